package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// msgpackFormat writes MessagePack as msgpack-java's Jackson generator
// does: integers in their smallest format (non-negative ones unsigned),
// doubles as float64, floats as float32, strings and binaries with the
// smallest length header, maps with string keys.
type msgpackFormat struct{}

func (msgpackFormat) write(n *node) ([]byte, error) {
	var b bytes.Buffer
	e := msgpack.NewEncoder(&b)
	if err := writeMsgpack(e, &b, n); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeMsgpack(e *msgpack.Encoder, b *bytes.Buffer, n *node) error {
	switch n.kind {
	case kNull:
		return e.EncodeNil()
	case kBool:
		return e.EncodeBool(n.b)
	case kInt:
		return e.EncodeInt(n.i)
	case kUint:
		return e.EncodeUint(n.u)
	case kFloat:
		if n.f32 {
			return e.EncodeFloat32(float32(n.f))
		}
		return e.EncodeFloat64(n.f)
	case kBigInt, kDecimal:
		// The encoder converts or refuses these before (msgpackDecimal).
		return fmt.Errorf("number %.40s does not fit MessagePack", n.s)
	case kString:
		return e.EncodeString(n.s)
	case kBytes:
		if err := e.EncodeBytesLen(len(n.bin)); err != nil {
			return err
		}
		_, err := b.Write(n.bin)
		return err
	case kArray:
		if err := e.EncodeArrayLen(len(n.arr)); err != nil {
			return err
		}
		for i := range n.arr {
			if err := writeMsgpack(e, b, &n.arr[i]); err != nil {
				return err
			}
		}
		return nil
	case kObject:
		if err := e.EncodeMapLen(len(n.obj)); err != nil {
			return err
		}
		for i := range n.obj {
			if err := e.EncodeString(n.obj[i].key); err != nil {
				return err
			}
			if err := writeMsgpack(e, b, &n.obj[i].val); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown node kind %d", n.kind)
}

// msgpackReader parses with msgpack's Decoder over a bytes.Reader (which
// the Decoder reads directly, without buffering), so the unread length is
// always known: every length prefix is checked against it before anything
// is allocated.
type msgpackReader struct {
	r *bytes.Reader
	d *msgpack.Decoder
}

func (msgpackFormat) parse(data []byte) (node, error) {
	if len(data) == 0 {
		return node{}, errors.New("empty input")
	}
	r := bytes.NewReader(data)
	p := msgpackReader{r: r, d: msgpack.NewDecoder(r)}
	n, err := p.value(0)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return node{}, fmt.Errorf("truncated MessagePack at offset %d", len(data)-r.Len())
		}
		return node{}, err
	}
	if r.Len() > 0 {
		return node{}, fmt.Errorf("%d bytes after the MessagePack value", r.Len())
	}
	return n, nil
}

// need fails when fewer than n bytes are left.
func (p *msgpackReader) need(n uint64, what string) error {
	if n > uint64(p.r.Len()) {
		return fmt.Errorf("%s of %d does not fit the %d bytes left (truncated or corrupt MessagePack)", what, n, p.r.Len())
	}
	return nil
}

// headerLen reads the length in a str/bin/array/map header whose code is c
// without consuming it: the header bytes are read at the current offset.
func (p *msgpackReader) headerLen(c byte) (uint64, error) {
	var size int
	switch c {
	case msgpcode.Str8, msgpcode.Bin8:
		size = 1
	case msgpcode.Str16, msgpcode.Bin16, msgpcode.Array16, msgpcode.Map16:
		size = 2
	case msgpcode.Str32, msgpcode.Bin32, msgpcode.Array32, msgpcode.Map32:
		size = 4
	default:
		switch {
		case msgpcode.IsFixedString(c):
			return uint64(c & msgpcode.FixedStrMask), nil
		case msgpcode.IsFixedArray(c):
			return uint64(c & msgpcode.FixedArrayMask), nil
		case msgpcode.IsFixedMap(c):
			return uint64(c & msgpcode.FixedMapMask), nil
		}
		return 0, nil
	}
	var buf [5]byte
	got, _ := p.r.ReadAt(buf[:1+size], p.r.Size()-int64(p.r.Len()))
	if got < 1+size {
		return 0, io.ErrUnexpectedEOF
	}
	switch size {
	case 1:
		return uint64(buf[1]), nil
	case 2:
		return uint64(binary.BigEndian.Uint16(buf[1:])), nil
	}
	return uint64(binary.BigEndian.Uint32(buf[1:])), nil
}

func (p *msgpackReader) value(depth int) (node, error) {
	c, err := p.d.PeekCode()
	if err != nil {
		return node{}, err
	}
	switch {
	case c == msgpcode.Nil:
		return node{kind: kNull}, p.d.DecodeNil()
	case c == msgpcode.True || c == msgpcode.False:
		b, err := p.d.DecodeBool()
		return node{kind: kBool, b: b}, err
	case msgpcode.IsFixedNum(c) || c == msgpcode.Int8 || c == msgpcode.Int16 || c == msgpcode.Int32 ||
		c == msgpcode.Int64 || c == msgpcode.Uint8 || c == msgpcode.Uint16 || c == msgpcode.Uint32:
		i, err := p.d.DecodeInt64()
		return node{kind: kInt, i: i}, err
	case c == msgpcode.Uint64:
		u, err := p.d.DecodeUint64()
		if u > math.MaxInt64 {
			return node{kind: kUint, u: u}, err
		}
		return node{kind: kInt, i: int64(u)}, err
	case c == msgpcode.Float:
		f, err := p.d.DecodeFloat32()
		return node{kind: kFloat, f: float64(f), f32: true}, err
	case c == msgpcode.Double:
		f, err := p.d.DecodeFloat64()
		return node{kind: kFloat, f: f}, err
	case msgpcode.IsString(c):
		return p.str(c)
	case msgpcode.IsBin(c):
		return p.bin(c)
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		return p.array(c, depth)
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		return p.object(c, depth)
	case msgpcode.IsExt(c):
		return node{}, fmt.Errorf("MessagePack extension type (code 0x%02x) is not supported", c)
	}
	return node{}, fmt.Errorf("invalid MessagePack code 0x%02x", c)
}

// str reads a string of header code c.
func (p *msgpackReader) str(c byte) (node, error) {
	n, err := p.headerLen(c)
	if err != nil {
		return node{}, err
	}
	if err := p.need(n, "string length"); err != nil {
		return node{}, err
	}
	s, err := p.d.DecodeString()
	// Java reads malformed UTF-8 as U+FFFD; so does this side.
	return node{kind: kString, s: strings.ToValidUTF8(s, "\uFFFD")}, err
}

// bin reads a binary value of header code c.
func (p *msgpackReader) bin(c byte) (node, error) {
	n, err := p.headerLen(c)
	if err != nil {
		return node{}, err
	}
	if err := p.need(n, "binary length"); err != nil {
		return node{}, err
	}
	b, err := p.d.DecodeBytes()
	if b == nil {
		b = []byte{}
	}
	return node{kind: kBytes, bin: b}, err
}

// array reads an array of header code c at nesting depth.
func (p *msgpackReader) array(c byte, depth int) (node, error) {
	if depth >= maxDepth {
		return node{}, fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	n, err := p.headerLen(c)
	if err != nil {
		return node{}, err
	}
	if _, err := p.d.DecodeArrayLen(); err != nil {
		return node{}, err
	}
	if err := p.need(n, "array length"); err != nil { // every element takes a byte at least
		return node{}, err
	}
	out := node{kind: kArray, arr: make([]node, 0, n)}
	for range n {
		v, err := p.value(depth + 1)
		if err != nil {
			return node{}, err
		}
		out.arr = append(out.arr, v)
	}
	return out, nil
}

// object reads a map of header code c at nesting depth: its keys must be
// strings.
func (p *msgpackReader) object(c byte, depth int) (node, error) {
	if depth >= maxDepth {
		return node{}, fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	n, err := p.headerLen(c)
	if err != nil {
		return node{}, err
	}
	if _, err := p.d.DecodeMapLen(); err != nil {
		return node{}, err
	}
	if err := p.need(2*n, "map length"); err != nil { // a key and a value take two bytes at least
		return node{}, err
	}
	out := node{kind: kObject, obj: make([]member, 0, n)}
	for range n {
		k, err := p.value(depth + 1)
		if err != nil {
			return node{}, err
		}
		if k.kind != kString {
			return node{}, fmt.Errorf("map key is a MessagePack %s, not a string", k.kind)
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return node{}, err
		}
		out.obj = append(out.obj, member{key: k.s, val: v})
	}
	return out, nil
}
