package objinfo

import (
	"reflect"
	"strconv"
	"testing"
	"time"
)

// TestHolderList: holders sorted by field; a read-write lock's mode field
// is no holder and its holds are read or write.
func TestHolderList(t *testing.T) {
	const id = "8f6b2c1e-0d3a-4b7e-9c2f-1a2b3c4d5e6f"
	tests := []struct {
		name   string
		fields map[string]string
		rw     bool
		want   []string // field mode holds
	}{
		{"empty", map[string]string{}, false, nil},
		{"lock", map[string]string{id + ":2": "3", id + ":1": "1"}, false, []string{id + ":1 exclusive 1", id + ":2 exclusive 3"}},
		{"rwlock", map[string]string{"mode": "read", id + ":1": "2", id + ":2:write": "1"}, true, []string{id + ":1 read 2", id + ":2:write write 1"}},
		{"not an owner", map[string]string{"x": "5"}, false, []string{"x exclusive 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, h := range HolderList(tt.fields, tt.rw) {
				got = append(got, h.Field+" "+h.Mode+" "+strconv.FormatInt(h.Holds, 10))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTTLMillis: go-redis' -1 and -2 stay Redis' numbers; others become
// milliseconds.
func TestTTLMillis(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{{-1, -1}, {-2, -2}, {1500 * time.Millisecond, 1500}, {0, 0}} {
		if got := TTLMillis(tt.d); got != tt.want {
			t.Errorf("TTLMillis(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

// TestSmallHelpers covers Dedupe, RateTypeName and ChannelWaiters.
func TestSmallHelpers(t *testing.T) {
	if got := Dedupe([]string{"a", "b", "a", "c", "b"}); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("Dedupe = %q", got)
	}
	for v, want := range map[string]string{"0": "OVERALL", "1": "PER_CLIENT", "2": `unknown ("2")`} {
		if got := RateTypeName(v); got != want {
			t.Errorf("RateTypeName(%q) = %q, want %q", v, got, want)
		}
	}
	shard := int64(2)
	cs := []ChannelSub{{Channel: "a", Subscribers: 1}, {Channel: "b", Subscribers: 3, ShardSubscribers: &shard}}
	for ch, want := range map[string]int64{"a": 1, "b": 5, "c": 0} {
		if got := ChannelWaiters(cs, ch); got != want {
			t.Errorf("ChannelWaiters(%q) = %d, want %d", ch, got, want)
		}
	}
}
