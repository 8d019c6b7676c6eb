package keys_test

import (
	"testing"

	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
	"github.com/goredisson/redisson/semaphore"
)

// TestLayoutIsTheLibrarys: the public layout gives the keys the objects
// themselves use, for names with and without a hash tag.
func TestLayoutIsTheLibrarys(t *testing.T) {
	for _, name := range []string{"a", "orders:42", "{tag}x", "x{tag}", "a{b}c:d"} {
		for _, tc := range []struct{ what, got, want string }{
			{"Tagged", keys.Tagged(name), core.Tagged(name)},
			{"PrefixName", keys.PrefixName("p", name), core.PrefixName("p", name)},
			{"SuffixName", keys.SuffixName(name, "s"), core.SuffixName(name, "s")},
			{"lock channel", keys.PrefixName("redisson_lock__channel", name), rlock.ChannelName(name)},
			{"rwlock channel", keys.PrefixName("redisson_rwlock", name), rwlock.ChannelName(name)},
			{"semaphore channel", keys.PrefixName("redisson_sc", name), semaphore.ChannelName(name)},
			{"fair queue", keys.PrefixName("redisson_lock_queue", name), fairlock.QueueName(name)},
			{"fair timeout", keys.PrefixName("redisson_lock_timeout", name), fairlock.TimeoutName(name)},
			{"fencing token", keys.PrefixName("redisson_lock_token", name), fencedlock.TokenKey(name)},
			{"unlock latch", keys.UnlockLatchPrefix(name), rlock.LatchPrefix(name)},
			{"pes timeout", keys.ExpirableSemaphoreTimeout(name), core.SuffixName(name, "timeout")},
			{"rate value", keys.RateLimiterValue(name), core.SuffixName(name, "value")},
			{"rate permits", keys.RateLimiterPermits(name), core.SuffixName(name, "permits")},
		} {
			if tc.got != tc.want {
				t.Errorf("%s(%q) = %q, the library uses %q", tc.what, name, tc.got, tc.want)
			}
		}
	}
}

func TestUntag(t *testing.T) {
	for _, tc := range []struct {
		w, name string
		ok      bool
	}{
		{"{a}", "a", true},
		{"{orders:42}", "orders:42", true},
		{"x{tag}", "x{tag}", true},
		{"{tag}x", "{tag}x", true},
		{"plain", "", false},
		{"{}", "{}", true}, // a name with braces is embedded as it is
		{"", "", false},
	} {
		name, ok := keys.Untag(tc.w)
		if name != tc.name || ok != tc.ok {
			t.Errorf("Untag(%q) = %q, %v; want %q, %v", tc.w, name, ok, tc.name, tc.ok)
		}
		if ok && keys.Tagged(name) != tc.w {
			t.Errorf("Tagged(Untag(%q)) = %q", tc.w, keys.Tagged(name))
		}
	}
}
