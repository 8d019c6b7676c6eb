package multilock_test

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/lockable"
)

// newClient returns a Client over its own go-redis client to srv; both are
// closed when the test ends.
//
// The go-redis client has maintenance notifications off: go-redis v9.23
// races (-race) on its shared MaintNotificationsConfig when the first
// handshakes of a pooled and a dedicated connection fail at the same time
// (redis-server without CLIENT MAINT_NOTIFICATIONS), which happens when a
// server that was down at the start comes up while an undo and an acquire
// connect to it.
func newClient(t testing.TB, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redistest.Client(t, srv, func(o *redis.Options) {
		o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	})
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

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
