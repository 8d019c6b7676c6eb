package keys_test

import (
	"testing"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/keys"
)

// TestLayoutIsTheLibrarys: the rules give what the library's internals
// use, for names with and without a hash tag.
func TestLayoutIsTheLibrarys(t *testing.T) {
	for _, name := range []string{"a", "orders:42", "{tag}x", "x{tag}", "a{b}c:d"} {
		for _, tc := range []struct{ what, got, want string }{
			{"Tagged", keys.Tagged(name), core.Tagged(name)},
			{"PrefixName", keys.PrefixName("p", name), core.PrefixName("p", name)},
			{"SuffixName", keys.SuffixName(name, "s"), core.SuffixName(name, "s")},
		} {
			if tc.got != tc.want {
				t.Errorf("%s(%q) = %q, the library uses %q", tc.what, name, tc.got, tc.want)
			}
		}
	}
}

// TestDerivedNamesAreRedissons: each derived name is the one Redisson
// gives (RedissonLock.getChannelName, RedissonFairLock's queue and timeout
// names, ...), for a plain name and one with a hash tag of its own.
func TestDerivedNamesAreRedissons(t *testing.T) {
	for _, tc := range []struct{ what, got, want string }{
		{"LockChannel", keys.LockChannel("o:1"), "redisson_lock__channel:{o:1}"},
		{"LockChannel tagged", keys.LockChannel("{t}x"), "redisson_lock__channel:{t}x"},
		{"UnlockLatchPrefix", keys.UnlockLatchPrefix("o:1"), "redisson_unlock_latch:{o:1}"},
		{"FairLockQueue", keys.FairLockQueue("f"), "redisson_lock_queue:{f}"},
		{"FairLockTimeout", keys.FairLockTimeout("f"), "redisson_lock_timeout:{f}"},
		{"FairLockChannel", keys.FairLockChannel("f", "c:7"), "redisson_lock__channel:{f}:c:7"},
		{"ReadWriteLockChannel", keys.ReadWriteLockChannel("rw"), "redisson_rwlock:{rw}"},
		{"ReadWriteLockTimeoutPrefix", keys.ReadWriteLockTimeoutPrefix("rw", "c:7"), "{rw}:c:7:rwlock_timeout"},
		{"ReadWriteLockTimeoutPrefix tagged", keys.ReadWriteLockTimeoutPrefix("{t}rw", "c:7"), "{t}rw:c:7:rwlock_timeout"},
		{"FencedLockToken", keys.FencedLockToken("fl"), "redisson_lock_token:{fl}"},
		{"SemaphoreChannel", keys.SemaphoreChannel("sem"), "redisson_sc:{sem}"},
		{"LatchChannel", keys.LatchChannel("gate"), "redisson_countdownlatch__channel__{gate}"},
		{"LatchChannel tagged", keys.LatchChannel("{t}x"), "redisson_countdownlatch__channel__{{t}x}"},
		{"ExpirableSemaphoreTimeout", keys.ExpirableSemaphoreTimeout("pes"), "{pes}:timeout"},
		{"RateLimiterValue", keys.RateLimiterValue("rl"), "{rl}:value"},
		{"RateLimiterPermits", keys.RateLimiterPermits("rl"), "{rl}:permits"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, Redisson uses %q", tc.what, tc.got, tc.want)
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
