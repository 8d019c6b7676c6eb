package vectors

import (
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
)

// lcmState is the local cached map rules of testdata/README.md §10: the
// instances' ids, clear requests and updates-log entries, numbered as
// first seen.
type lcmState struct {
	instances map[string]string // 16 raw bytes → "I1"
	requests  map[string]string // a clear's 16 raw bytes → "Q1"
	logIDs    map[string]string // a log entry's 8 random bytes → "L1"
	// pastClock: a wall-clock argument more than one grid step old is
	// {"clock_ms": "past"} (PastClockArgs).
	pastClock bool
}

// lcmLog is the prefix of a local cached map's updates log.
const lcmLog = "redisson__cache_updates_log:"

// LocalCachedMap turns on the rules of §10: messages on "…:topic" and the
// same bytes as command arguments decoded, updates-log members as
// log_entry objects, their scores as {"clock_ms": "past"}.
func (n *Normalizer) LocalCachedMap() {
	n.lcm = &lcmState{instances: map[string]string{}, requests: map[string]string{}, logIDs: map[string]string{}}
}

// AddInstance numbers a local cached map instance's 16-byte id as the next
// <In>, in creation order as the records do.
func (n *Normalizer) AddInstance(id [16]byte) {
	if n.lcm == nil {
		n.LocalCachedMap()
	}
	if _, ok := n.lcm.instances[string(id[:])]; !ok {
		n.lcm.instances[string(id[:])] = "I" + strconv.Itoa(len(n.lcm.instances)+1)
	}
}

// Payload normalizes a published message: a local cached map message on
// its topic decoded (§10), anything else as Text.
func (n *Normalizer) Payload(channel, payload string) any {
	if n.lcm != nil && strings.HasSuffix(channel, ":topic") {
		if v, ok := n.lcmValue(payload); ok {
			return v
		}
	}
	return n.textValue(payload)
}

// arg normalizes a command argument: a local cached map message or log
// entry decoded (§10), anything else as Text.
func (n *Normalizer) arg(a string) any {
	if n.lcm != nil {
		if v, ok := n.lcmValue(a); ok {
			return v
		}
	}
	return n.textValue(a)
}

func numbered(m map[string]string, prefix, raw string) string {
	id, ok := m[raw]
	if !ok {
		id = prefix + strconv.Itoa(len(m)+1)
		m[raw] = id
	}
	return "<" + id + ">"
}

// lcmValue decodes a message of a known instance, or an updates-log
// member.
func (n *Normalizer) lcmValue(s string) (any, bool) {
	b := []byte(s)
	if len(b) == 25 && b[16] == ':' {
		id := numbered(n.lcm.logIDs, "L", s[17:])
		h := hex.EncodeToString(b[:16])
		return map[string]any{"log_entry": map[string]any{"key_hash": h, "id": id}, "hex": h + "3a" + id}, true
	}
	if len(b) < 17 || b[0] > 2 {
		return nil, false
	}
	inst, ok := n.lcm.instances[s[1:17]]
	if !ok && s[1:17] == goInstance {
		inst, ok = "GO", true
	}
	if !ok {
		return nil, false
	}
	inst = "<" + inst + ">"
	rest := b[17:]
	head := hex.EncodeToString(b[:1]) + inst
	switch b[0] {
	case 0x00:
		if len(rest) != 17 {
			return nil, false
		}
		q := numbered(n.lcm.requests, "Q", string(rest[:16]))
		return map[string]any{"lcm": map[string]any{"type": "clear", "instance": inst, "request": q, "release_semaphore": rest[16] != 0},
			"hex": head + q + hex.EncodeToString(rest[16:])}, true
	case 0x01:
		if len(rest) < 4 || len(rest) != 4+16*int(binary.BigEndian.Uint32(rest)) {
			return nil, false
		}
		hashes := []any{}
		for i := 4; i < len(rest); i += 16 {
			hashes = append(hashes, hex.EncodeToString(rest[i:i+16]))
		}
		return map[string]any{"lcm": map[string]any{"type": "invalidate", "instance": inst, "key_hashes": hashes},
			"hex": head + hex.EncodeToString(rest)}, true
	}
	entries := []any{}
	for r := rest; len(r) > 0; {
		var kv [2]any
		for j := range kv {
			if len(r) < 4 || len(r) < 4+int(binary.BigEndian.Uint32(r)) {
				return nil, false
			}
			l := int(binary.BigEndian.Uint32(r))
			kv[j] = n.textValue(string(r[4 : 4+l]))
			r = r[4+l:]
		}
		entries = append(entries, []any{kv[0], kv[1]})
	}
	return map[string]any{"lcm": map[string]any{"type": "update", "instance": inst, "entries": entries},
		"hex": head + hex.EncodeToString(rest)}, true
}

// lcmScore records an updates-log score: "past" when it is not later than
// now and at most 10 minutes old (§10).
func lcmScore(s float64, now int64) any {
	if int64(s) <= now && int64(s) >= now-600_000 {
		return map[string]any{"clock_ms": "past"}
	}
	return s
}

// goInstance is the instance id of the messages a record's raw steps
// publish as another client would (§10, lcm.foreign_messages): 16 bytes
// 0x11, written <GO>.
var goInstance = strings.Repeat("\x11", 16)

// rawArgs turns a raw step's arguments back into what to send: a decoded
// §10 message ({"hex": …}) becomes its bytes, <GO> the raw instance id, a
// known <Qn> its request id and a new one 16 zero bytes (numbered so).
func (n *Normalizer) rawArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		m, ok := a.(map[string]any)
		if !ok || n.lcm == nil {
			continue
		}
		h, _ := m["hex"].(string)
		if h == "" {
			continue
		}
		h = strings.ReplaceAll(h, "<GO>", hex.EncodeToString([]byte(goInstance)))
		for raw, id := range n.lcm.instances {
			h = strings.ReplaceAll(h, "<"+id+">", hex.EncodeToString([]byte(raw)))
		}
		for strings.Contains(h, "<Q") {
			start := strings.Index(h, "<Q")
			end := start + strings.Index(h[start:], ">")
			ph := h[start : end+1]
			raw := ""
			for r, id := range n.lcm.requests {
				if "<"+id+">" == ph {
					raw = r
				}
			}
			if raw == "" {
				raw = string(make([]byte, 16))
				n.lcm.requests[raw] = ph[1 : len(ph)-1]
			}
			h = strings.Replace(h, ph, hex.EncodeToString([]byte(raw)), 1)
		}
		if b, err := hex.DecodeString(h); err == nil {
			out[i] = string(b)
		}
	}
	return out
}

// clearRequestHex is a clear request id in a semaphore's name (§10, quiet
// scenario): 32 hex digits.
var clearRequestHex = regexp.MustCompile(`[0-9a-f]{32}`)

// QuietChannel normalizes the channel of a message of §10's quiet
// scenario: every 32-hex token is a clear request id, numbered <Qn> as
// the decoded clear messages number them (the same raw bytes, the same
// number), then as Text.
func (n *Normalizer) QuietChannel(channel string) string {
	if n.lcm == nil {
		n.LocalCachedMap()
	}
	channel = clearRequestHex.ReplaceAllStringFunc(channel, func(h string) string {
		raw, err := hex.DecodeString(h)
		if err != nil {
			return h
		}
		return numbered(n.lcm.requests, "Q", string(raw))
	})
	return n.Text(channel)
}

// PastClockArgs turns on §10's rule of lcm.reconnection_load_resubscribe:
// a command's wall-clock argument more than one grid step before the
// command (the time of the last message an instance received, which
// depends on how long its reconnection took) is recorded as
// {"clock_ms": "past"}.
func (n *Normalizer) PastClockArgs() {
	if n.lcm == nil {
		n.LocalCachedMap()
	}
	n.lcm.pastClock = true
}

// pastClock is the PastClockArgs rule for an argument delta ms after its
// command's time.
func (n *Normalizer) pastClock(delta int64) (any, bool) {
	if n.lcm == nil || !n.lcm.pastClock || delta >= -n.Grid {
		return nil, false
	}
	return map[string]any{"clock_ms": "past"}, true
}
