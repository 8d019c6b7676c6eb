package redisson_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/multilock"
)

// TestUnlockRefusedByOOM: an Unlock that Redis refuses before its script
// writes (out of memory, no eviction) leaves the hold its caller's: not
// ended, still renewed, and the same Unlock works once Redis accepts it.
// A re-entered hold is released with HINCRBY, which Redis refuses under
// OOM (a full release's DEL is served).
func TestUnlockRefusedByOOM(t *testing.T) {
	srv := redistest.StartFullable(t)
	raw := redistest.Client(t, srv)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()

	type acquire func(ctx context.Context, opts ...locks.Option) (*locks.Hold, error)
	rw := c.ReadWriteLock("oom:rw")
	kinds := []struct {
		name, key string
		lock      acquire
	}{
		{"lock", "oom:lock", c.Lock("oom:lock").Lock},
		{"fair lock", "oom:fair", c.FairLock("oom:fair").Lock},
		{"read lock", "oom:rw", rw.ReadLock().Lock},
		{"write lock", "oom:rw", rw.WriteLock().Lock},
		{"fenced lock", "oom:fenced", func(ctx context.Context, opts ...locks.Option) (*locks.Hold, error) {
			h, err := c.FencedLock("oom:fenced").Lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return &h.Hold, nil
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			first, err := k.lock(ctx)
			require.NoError(t, err)
			again, err := k.lock(ctx, locks.WithOwner(first.Owner()))
			require.NoError(t, err)

			free := redistest.Fill(t, raw)
			err = again.Unlock(ctx)
			require.Error(t, err, "Redis is out of memory")
			require.Contains(t, err.Error(), "OOM")
			require.ErrorIs(t, err, redisson.ErrReleaseRefused)
			require.NoError(t, again.Err(), "a refused Unlock leaves the hold alive")
			require.NoError(t, first.Err())
			free()

			require.NoError(t, again.Unlock(ctx), "the same Unlock works once Redis accepts it")
			require.ErrorIs(t, again.Unlock(ctx), redisson.ErrNotOwner, "and only once")
			n, err := raw.Exists(ctx, k.key).Result()
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the first hold still holds the lock")
			require.NoError(t, first.Unlock(ctx))
			n, err = raw.Exists(ctx, k.key).Result()
			require.NoError(t, err)
			require.Zero(t, n)
		})
	}
}

// TestMultiLockUnlockRefusedByOOM: a multi-lock's Unlock whose member
// releases Redis refused ends the multi-lock's hold but leaves those
// members held, and the next Unlock releases them.
func TestMultiLockUnlockRefusedByOOM(t *testing.T) {
	srv := redistest.StartFullable(t)
	raw := redistest.Client(t, srv)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	m := multilock.New(c.Lock("oom:m1"), c.Lock("oom:m2"))
	first, err := m.Lock(ctx)
	require.NoError(t, err)
	again, err := m.Lock(ctx, locks.WithOwner(first.Owner()))
	require.NoError(t, err)

	free := redistest.Fill(t, raw)
	err = again.Unlock(ctx)
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.Contains(t, err.Error(), "OOM")
	free()
	require.NoError(t, again.Unlock(ctx), "the next Unlock releases the members left held")
	require.ErrorIs(t, again.Unlock(ctx), redisson.ErrNotOwner)
	for _, k := range []string{"oom:m1", "oom:m2"} {
		v, err := raw.HVals(ctx, k).Result()
		require.NoError(t, err)
		require.Equal(t, []string{"1"}, v, "%s: the first hold's count is left", k)
	}
	require.NoError(t, first.Unlock(ctx))
	n, err := raw.Exists(ctx, "oom:m1", "oom:m2").Result()
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestUnlockRefusedByACL: a user whose ACL lets it take a lock (its key)
// but not touch the unlock channel (which Redisson's release script
// declares as a key) gets NOPERM from Unlock, at once, as an error
// matching ErrNoPermission; the hold stays its own, and Unlock works once
// the ACL allows it.
func TestUnlockRefusedByACL(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	ctx := context.Background()
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "on", ">pw", "resetkeys", "~app:*", "allchannels", "+@all").Err())
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = "app", "pw" })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	h, err := c.Lock("app:job").Lock(ctx)
	require.NoError(t, err)
	err = h.Unlock(ctx)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.NoError(t, h.Err(), "a refused Unlock leaves the hold alive")

	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "~redisson_*").Err())
	require.NoError(t, h.Unlock(ctx))
	n, err := admin.Exists(ctx, "app:job").Result()
	require.NoError(t, err)
	require.Zero(t, n)
}
