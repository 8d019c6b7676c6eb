package localcache

import (
	"encoding/binary"
	"errors"
	"unicode/utf8"
)

// The first byte of each message Redisson's LocalCachedMessageCodec writes
// on the map's topic.
const (
	msgClear      = 0x00 // every near cache drops everything
	msgInvalidate = 0x01 // drop these key hashes
	msgUpdate     = 0x02 // store these encoded entries
	msgDisable    = 0x03 // a transaction: stop caching these keys (or all) for a while, and ack
	msgDisableAck = 0x04 // the ack, on the request's own channel
	msgEnable     = 0x05 // the transaction is over: cache them again
)

// idLen is the length of an instance id, a clear's request id and a key
// hash.
const idLen = 16

// hash is a key's 128-bit hash (Redisson's CacheKey): Hash.hash128toArray
// of the encoded key.
type hash = [idLen]byte

// errGarbled is why a message was not understood.
var errGarbled = errors.New("not a message of Redisson's LocalCachedMessageCodec")

// message is one decoded message of the topic.
type message struct {
	kind    byte
	sender  [idLen]byte // the writer's instance id (clear, invalidate, update)
	hashes  []hash      // invalidate, disable, enable
	entries []update    // update
	request []byte      // clear: the semaphore's id
	release bool        // clear: release the request's semaphore
	reqID   string      // disable, enable: the transaction's request id
	timeout int64       // disable: how long, in ms
	all     bool        // disable, enable: the whole cache (Redisson 4.x)
}

// update is one entry of an UPDATE message, as the writer encoded it.
type update struct{ key, value []byte }

// encodeInvalidate is LocalCachedMapInvalidate: 0x01, the sender's id, the
// count as a big-endian int32, the hashes.
func encodeInvalidate(sender [idLen]byte, hashes ...hash) []byte {
	b := make([]byte, 0, 1+idLen+4+idLen*len(hashes))
	b = append(b, msgInvalidate)
	b = append(b, sender[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(hashes)))
	for _, h := range hashes {
		b = append(b, h[:]...)
	}
	return b
}

// encodeUpdate is LocalCachedMapUpdate: 0x02, the sender's id, then per
// entry the key's length (int32), the key, the value's length, the value;
// no count (the reader reads entries to the end).
func encodeUpdate(sender [idLen]byte, entries ...update) []byte {
	n := 1 + idLen
	for _, e := range entries {
		n += 8 + len(e.key) + len(e.value)
	}
	b := make([]byte, 0, n)
	b = append(b, msgUpdate)
	b = append(b, sender[:]...)
	for _, e := range entries {
		b = binary.BigEndian.AppendUint32(b, uint32(len(e.key)))
		b = append(b, e.key...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(e.value)))
		b = append(b, e.value...)
	}
	return b
}

// encodeClear is LocalCachedMapClear: 0x00, the sender's id, a 16-byte
// request id, and whether receivers release the request's semaphore.
func encodeClear(sender, request [idLen]byte, release bool) []byte {
	b := make([]byte, 0, 2+2*idLen)
	b = append(b, msgClear)
	b = append(b, sender[:]...)
	b = append(b, request[:]...)
	if release {
		return append(b, 1)
	}
	return append(b, 0)
}

// reader reads a payload front to back; any read past its end sets bad.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) next(n int) []byte {
	if n < 0 || len(r.b) < n {
		r.bad = true
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8() byte {
	if b := r.next(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.next(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.next(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (r *reader) id() (out [idLen]byte) {
	copy(out[:], r.next(idLen))
	return out
}

// hashes reads a count and that many hashes; the count must fit what is
// left, so a garbled count never makes a large allocation.
func (r *reader) hashes() []hash {
	n := r.u32()
	if r.bad || uint64(n)*idLen > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	out := make([]hash, n)
	for i := range out {
		out[i] = r.id()
	}
	return out
}

// decode reads a payload as Redisson's codec does, stricter: bytes left
// over, or a length that runs past the end, make it garbled. Disable and
// enable are read in both versions' layouts (4.x added a flag byte): the
// length left after the fixed part tells which.
func decode(payload []byte) (message, error) {
	r := &reader{b: payload}
	m := message{kind: r.u8()}
	switch m.kind {
	case msgClear:
		m.sender = r.id()
		m.request = r.next(idLen)
		m.release = r.u8() != 0
	case msgInvalidate:
		m.sender = r.id()
		m.hashes = r.hashes()
	case msgUpdate:
		m.sender = r.id()
		for !r.bad && (len(r.b) > 0 || len(m.entries) == 0) {
			k := r.next(int(r.u32()))
			v := r.next(int(r.u32()))
			m.entries = append(m.entries, update{k, v})
		}
	case msgDisable:
		m.reqID = string(r.next(int(r.u8())))
		m.timeout = int64(r.u64())
		if len(r.b)%idLen == 5 {
			m.all = r.u8() != 0
		}
		m.hashes = r.hashes()
	case msgEnable:
		m.reqID = string(r.next(int(r.u8())))
		if len(r.b)%idLen == 5 {
			m.all = r.u8() != 0
		}
		m.hashes = r.hashes()
	case msgDisableAck:
	default:
		return message{}, errGarbled
	}
	if r.bad || len(r.b) != 0 || !utf8.ValidString(m.reqID) {
		return message{}, errGarbled
	}
	return m, nil
}
