package multilock_test

import (
	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/lockable"
)

// rlocks returns the RLocks called names of c as multi-lock members.
func rlocks(c *redisson.Client, names ...string) []lockable.Lock {
	out := make([]lockable.Lock, len(names))
	for i, n := range names {
		out[i] = c.Lock(n)
	}
	return out
}

// ended reports whether done is closed.
func ended(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// rlocksOf returns the RLock called name of each client as multi-lock
// members.
func rlocksOf(cs []*redisson.Client, name string) []lockable.Lock {
	out := make([]lockable.Lock, len(cs))
	for i, c := range cs {
		out[i] = c.Lock(name)
	}
	return out
}
