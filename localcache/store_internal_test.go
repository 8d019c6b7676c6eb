package localcache

import (
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func h(i int) hash { return keyHash([]byte(fmt.Sprint(i))) }

func keysOf(s *store[int, string]) []int {
	var out []int
	for k := range s.byKey {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Redisson's eviction: LRU drops the least recently read, LFU the least
// read (the oldest of equals), NONE ignores the size.
func TestEviction(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     Options
		reads []int
		want  []int // after 0, 1, 2 are cached, the reads, and 3 is put
	}{
		{"lru drops the least recent", Options{Eviction: EvictionLRU, CacheSize: 3}, []int{0, 2}, []int{0, 2, 3}},
		{"lru without reads drops the oldest", Options{Eviction: EvictionLRU, CacheSize: 3}, nil, []int{1, 2, 3}},
		{"lfu drops the least read", Options{Eviction: EvictionLFU, CacheSize: 3}, []int{0, 0, 1, 2, 2}, []int{0, 2, 3}},
		{"lfu ties go to the oldest", Options{Eviction: EvictionLFU, CacheSize: 3}, []int{1, 2}, []int{1, 2, 3}},
		{"none ignores the size", Options{CacheSize: 3}, nil, []int{0, 1, 2, 3}},
		{"no cap", Options{Eviction: EvictionLRU}, nil, []int{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore[int, string](tc.o)
			for i := range 3 {
				s.put(i, h(i), "v")
			}
			for _, r := range tc.reads {
				_, ok := s.get(r)
				require.True(t, ok)
			}
			s.put(3, h(3), "v")
			require.Equal(t, tc.want, keysOf(s))
			require.Len(t, s.byHash, len(tc.want))
		})
	}
}

// LFU lowers every count by the evicted entry's, as Redisson does, so a
// new entry starts level with the least read survivor: 0 and 1 read once,
// 2 three times; 3 evicts 0 (the older of the least read), leaving 1 at 0
// reads and 2 at 2; then 4 evicts 1, older than 3, both at 0.
func TestLFUFloor(t *testing.T) {
	s := newStore[int, string](Options{Eviction: EvictionLFU, CacheSize: 3})
	for i := range 3 {
		s.put(i, h(i), "v")
	}
	for _, r := range []int{0, 1, 2, 2, 2} {
		s.get(r)
	}
	s.put(3, h(3), "v") // evicts 0 (count 1, oldest of the ones): floor 1
	require.Equal(t, []int{1, 2, 3}, keysOf(s))
	s.put(4, h(4), "v") // 1 (count 1) and 3 (count 1) tie: 1 is older
	require.Equal(t, []int{2, 3, 4}, keysOf(s))
}

// TTL counts from the put, max idle from the last read; an expired entry
// is never returned, and a full cache drops expired entries before it
// evicts a live one.
func TestExpiry(t *testing.T) {
	s := newStore[int, string](Options{TTL: time.Hour, MaxIdle: time.Hour, Eviction: EvictionLRU, CacheSize: 2})
	s.put(1, h(1), "a")
	s.put(2, h(2), "b")
	s.byKey[1].created -= int64(2 * time.Hour)
	_, ok := s.get(1)
	require.False(t, ok, "past its TTL")
	require.Equal(t, []int{2}, keysOf(s))
	s.put(1, h(1), "a")
	s.byKey[2].access -= int64(2 * time.Hour)
	_, ok = s.peek(2)
	require.False(t, ok, "idle too long")
	s.put(3, h(3), "c") // full: the idle 2 goes, not the live 1
	require.Equal(t, []int{1, 3}, keysOf(s))
}

// CacheSize -1 caches nothing.
func TestNoCache(t *testing.T) {
	s := newStore[int, string](Options{CacheSize: -1})
	s.put(1, h(1), "a")
	_, ok := s.get(1)
	require.False(t, ok)
}

// Messages of every kind decode as Redisson's codec writes them; Disable
// and Enable in the 3.52.0 and the 4.x layout.
func TestDecode(t *testing.T) {
	id := "000102030405060708090a0b0c0d0e0f"
	k1 := "f6c0bc2a9320f05f0a05bc601e7a69d7"
	for _, tc := range []struct {
		name, hex string
		want      message
	}{
		{"invalidate", "01" + id + "00000001" + k1, message{kind: msgInvalidate, hashes: []hash{hashOf(k1)}}},
		{"update", "02" + id + "000000026b31000000027631", message{kind: msgUpdate, entries: []update{{[]byte("k1"), []byte("v1")}}}},
		{"clear", "00" + id + id + "01", message{kind: msgClear, request: unhex(id), release: true}},
		{"disable 3.52", "03" + "02" + "7271" + "0000000000001388" + "00000001" + k1, message{kind: msgDisable, reqID: "rq", timeout: 5000, hashes: []hash{hashOf(k1)}}},
		{"disable 4.x", "03" + "02" + "7271" + "0000000000001388" + "01" + "00000000", message{kind: msgDisable, reqID: "rq", timeout: 5000, all: true, hashes: []hash{}}},
		{"enable 3.52", "05" + "02" + "7271" + "00000001" + k1, message{kind: msgEnable, reqID: "rq", hashes: []hash{hashOf(k1)}}},
		{"enable 4.x", "05" + "02" + "7271" + "01" + "00000000", message{kind: msgEnable, reqID: "rq", all: true, hashes: []hash{}}},
		{"ack", "04", message{kind: msgDisableAck}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decode(unhex(tc.hex))
			require.NoError(t, err)
			if tc.want.kind <= msgUpdate {
				copy(tc.want.sender[:], unhex(id))
			}
			require.Equal(t, tc.want, got)
		})
	}
	for _, bad := range []string{"", "09", "01" + id + "00000002" + k1, "01" + id + "ffffffff", "02" + id, "02" + id + "00000005" + "6b31", "00" + id, "03ff"} {
		_, err := decode(unhex(bad))
		require.ErrorIs(t, err, errGarbled, bad)
	}
}

// The encoders write Redisson's layouts (interop-java README).
func TestEncode(t *testing.T) {
	var id [idLen]byte
	for i := range id {
		id[i] = byte(i)
	}
	k1 := hashOf("f6c0bc2a9320f05f0a05bc601e7a69d7")
	require.Equal(t, k1, keyHash([]byte("k1")), "Redisson's hash of k1 (the records' notes)")
	require.Equal(t, "01"+hex.EncodeToString(id[:])+"00000001"+hex.EncodeToString(k1[:]), hex.EncodeToString(encodeInvalidate(id, k1)))
	require.Equal(t, "02"+hex.EncodeToString(id[:])+"000000026b31000000027631",
		hex.EncodeToString(encodeUpdate(id, update{[]byte("k1"), []byte("v1")})))
	require.Equal(t, "00"+hex.EncodeToString(id[:])+hex.EncodeToString(id[:])+"00", hex.EncodeToString(encodeClear(id, id, false)))
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func hashOf(s string) (out hash) {
	copy(out[:], unhex(s))
	return out
}
