package rlock_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// TestRawState checks every key, field, TTL, latch and message against the
// protocol (§1.2, §4) after each operation, for names with and without
// braces.
func TestRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	cases := []struct{ name, channel, latch string }{
		{"orders", "redisson_lock__channel:{orders}", "redisson_unlock_latch:{orders}:"},
		{"has:colon", "redisson_lock__channel:{has:colon}", "redisson_unlock_latch:{has:colon}:"},
		{"a{b}c", "redisson_lock__channel:a{b}c", "redisson_unlock_latch:a{b}c:"},
		{"{tag}x", "redisson_lock__channel:{tag}x", "redisson_unlock_latch:{tag}x:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			msgs := redistest.Capture(t, raw)
			lock := c.Lock(tc.name)
			require.Equal(t, tc.channel, keys.LockChannel(tc.name))
			owner := rlock.WithOwner(42)
			field := c.ID() + ":42"

			h, err := lock.Lock(ctx, owner)
			require.NoError(t, err)
			require.Equal(t, int64(42), h.Owner())
			require.Equal(t, tc.name, h.Name())
			require.Equal(t, "hash", raw.Type(ctx, tc.name).Val())
			require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, tc.name).Val())
			requirePTTL(t, raw, tc.name, 29*time.Second, 30*time.Second)

			h2, err := lock.Lock(ctx, rlock.WithOwner(h.Owner()))
			require.NoError(t, err)
			require.Equal(t, map[string]string{field: "2"}, raw.HGetAll(ctx, tc.name).Val())
			requirePTTL(t, raw, tc.name, 29*time.Second, 30*time.Second)
			msgs.None(t)

			require.NoError(t, h2.Unlock(ctx))
			require.True(t, ended(h2), "the re-entered hold ends with its unlock")
			require.ErrorIs(t, h2.Err(), context.Canceled)
			require.False(t, ended(h))
			require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, tc.name).Val())
			latches := raw.Keys(ctx, "redisson_unlock_latch:*").Val()
			require.Len(t, latches, 1)
			requireLatch(t, raw, latches[0], tc.latch, "0")
			msgs.None(t)

			require.NoError(t, h.Unlock(ctx))
			require.True(t, ended(h))
			require.ErrorIs(t, h.Err(), context.Canceled)
			require.Equal(t, int64(0), raw.Exists(ctx, tc.name).Val())
			ch, payload := msgs.Next(t)
			require.Equal(t, tc.channel, ch)
			require.Equal(t, "0", payload)
			latches = raw.Keys(ctx, "redisson_unlock_latch:*").Val()
			require.Len(t, latches, 2)
			var released int
			for _, l := range latches {
				if raw.Get(ctx, l).Val() == "1" {
					released++
					requireLatch(t, raw, l, tc.latch, "1")
				}
			}
			require.Equal(t, 1, released)

			// forceUnlock: DEL and the same message; no latch. The hold
			// it took away ends as lost.
			h3, err := lock.Lock(ctx, owner)
			require.NoError(t, err)
			ok, err := lock.ForceUnlock(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			ch, payload = msgs.Next(t)
			require.Equal(t, tc.channel, ch)
			require.Equal(t, "0", payload)
			require.Len(t, raw.Keys(ctx, "redisson_unlock_latch:*").Val(), 2)
			require.True(t, ended(h3))
			require.ErrorIs(t, h3.Err(), redisson.ErrLockLost)
			ok, err = lock.ForceUnlock(ctx)
			require.NoError(t, err)
			require.False(t, ok)
			msgs.None(t)
		})
	}
}

func requirePTTL(t *testing.T, raw *redis.Client, key string, lo, hi time.Duration) {
	t.Helper()
	d := raw.PTTL(context.Background(), key).Val()
	require.True(t, d > lo && d <= hi, "PTTL %s = %v, want in (%v, %v]", key, d, lo, hi)
}

func requireLatch(t *testing.T, raw *redis.Client, key, prefix, value string) {
	t.Helper()
	require.Regexp(t, "^"+regexpQuote(prefix)+"[0-9a-f]{32}$", key)
	require.Equal(t, "string", raw.Type(context.Background(), key).Val())
	require.Equal(t, value, raw.Get(context.Background(), key).Val())
	requirePTTL(t, raw, key, 0, 20*time.Second)
}

func regexpQuote(s string) string {
	out := make([]byte, 0, len(s)*2)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '}', '.', '*', '+', '?', '(', ')', '[', ']', '^', '$', '|', '\\':
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func TestReentrancyAndOwners(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	other := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("reentrant")

	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	owner := h.Owner()
	require.Positive(t, owner, "a Lock without WithOwner gets a fresh owner")
	holds := []*rlock.Hold{h}
	for i := 2; i <= 5; i++ {
		hi, err := lock.Lock(ctx, rlock.WithOwner(owner))
		require.NoError(t, err)
		require.Equal(t, owner, hi.Owner())
		holds = append(holds, hi)
		n, err := lock.HoldCount(ctx, owner)
		require.NoError(t, err)
		require.Equal(t, i, n)
	}
	held, err := lock.IsHeldByOwner(ctx, owner)
	require.NoError(t, err)
	require.True(t, held)

	// Another owner of the same client, and the same owner id on another
	// client, cannot take it, and hold nothing of it.
	_, ok, err := lock.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	_, ok, err = other.Lock("reentrant").TryLock(ctx, rlock.WithOwner(owner))
	require.NoError(t, err)
	require.False(t, ok, "the same owner id on another client is another owner")
	held, err = other.Lock("reentrant").IsHeldByOwner(ctx, owner)
	require.NoError(t, err)
	require.False(t, held)
	n, err := other.Lock("reentrant").HoldCount(ctx, owner)
	require.NoError(t, err)
	require.Zero(t, n)
	// Releasing goes through holds only: a hold that was never acquired
	// releases nothing.
	require.ErrorIs(t, new(rlock.Hold).Unlock(ctx), redisson.ErrNotOwner)

	for i := 5; i >= 1; i-- {
		require.NoError(t, holds[i-1].Unlock(ctx))
		n, err := lock.HoldCount(ctx, owner)
		require.NoError(t, err)
		require.Equal(t, i-1, n)
	}
	locked, err := lock.IsLocked(ctx)
	require.NoError(t, err)
	require.False(t, locked)
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrNotOwner)
}

// TestFixedLeaseExpires: a fixed lease is not renewed; its hold ends (ErrLeaseExpired)
// before the key expires in Redis (the loss is reported ahead of the lease's
// end by this process's clock: formerly the hold ended after the key was
// gone), the lock then expires, and a late Unlock returns the loss and sends
// nothing.
func TestFixedLeaseExpires(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("leased")

	h, err := lock.Lock(ctx, rlock.WithLease(300*time.Millisecond))
	require.NoError(t, err)
	requirePTTL(t, raw, "leased", 0, 300*time.Millisecond)
	select {
	case <-h.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the hold outlived its lease")
	}
	require.Equal(t, int64(1), raw.Exists(ctx, "leased").Val(), "the hold ended before the key expired")
	require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
	require.ErrorIs(t, context.Cause(h.Context()), redisson.ErrLeaseExpired)
	redistest.Eventually(t, 5*time.Second, "the key expires", func() bool {
		return raw.Exists(ctx, "leased").Val() == 0
	})
	// Someone else can take it now; the late unlock returns the loss and
	// sends nothing that could touch the new holder.
	h2, ok, err := c.Lock("leased").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	sent := redistest.Sent(t, srv, raw, func() {
		err = h.Unlock(ctx)
	})
	require.ErrorIs(t, err, redisson.ErrLeaseExpired)
	require.Empty(t, redistest.Mentioning(sent, "leased"))
	require.Equal(t, map[string]string{c.ID() + ":" + itoa(h2.Owner()): "1"}, raw.HGetAll(ctx, "leased").Val())
	require.NoError(t, h2.Unlock(ctx))
}

func TestWatchdogOutlivesTimeout(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	// A second's lease leaves renewal rounds 650 ms of slack (renewed every
	// third, reported lost 1% + 12 ms before the end): a test machine busy
	// with other packages must not pass for a lapse.
	const watchdog = time.Second
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	ctx := context.Background()
	lock := c.Lock("watched")

	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	held := time.Now()
	// Hold for more than 3 watchdog timeouts, checking the lock all along.
	for time.Since(held) < 3*watchdog+watchdog/2 {
		require.Equal(t, int64(1), raw.Exists(ctx, "watched").Val(), "lock lapsed after %v", time.Since(held))
		require.NoError(t, h.Err())
		time.Sleep(20 * time.Millisecond)
	}
	require.Greater(t, c.Stats().Renewal.Renewed, uint64(3))
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, 0, c.Stats().Leases)
}

func TestLostLockEndsHold(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	const watchdog = 600 * time.Millisecond
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	ctx := context.Background()

	h, err := c.Lock("doomed").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, raw.Del(ctx, "doomed").Err())
	deleted := time.Now()
	select {
	case <-h.Done():
	case <-time.After(watchdog/3 + time.Second):
		t.Fatal("ownership loss was not noticed within one renewal period")
	}
	t.Logf("noticed after %v", time.Since(deleted))
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.ErrorIs(t, context.Cause(h.Context()), redisson.ErrLockLost)
	require.Equal(t, 0, c.Stats().Leases)

	// A key replaced by another owner's lock is lost as well.
	h, err = c.Lock("stolen").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, raw.Del(ctx, "stolen").Err())
	require.NoError(t, raw.HSet(ctx, "stolen", "someone:1", "1").Err())
	select {
	case <-h.Done():
	case <-time.After(watchdog/3 + time.Second):
		t.Fatal("a stolen lock was not noticed")
	}
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
}

// TestMutualExclusion: 3 clients × 16 goroutines, 3000 acquisitions in all,
// each a non-atomic read-modify-write of a counter under the lock.
func TestMutualExclusion(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	const clients, workers, total = 3, 16, 3000
	var wg sync.WaitGroup
	var done atomic.Int64
	errs := make(chan error, clients*workers)
	for i := 0; i < clients; i++ {
		c := redissontest.ClientAt(t, srv.Addr())
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lock := c.Lock("counter-lock")
				for done.Add(1) <= total {
					h, err := lock.Lock(ctx)
					if err != nil {
						errs <- err
						return
					}
					v, err := raw.Get(h.Context(), "counter").Int()
					if err != nil && !errors.Is(err, redis.Nil) {
						errs <- err
						return
					}
					if err := raw.Set(h.Context(), "counter", strconv.Itoa(v+1), 0).Err(); err != nil {
						errs <- err
						return
					}
					if err := h.Unlock(ctx); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	n, err := raw.Get(ctx, "counter").Int()
	require.NoError(t, err)
	require.Equal(t, total, n, "lost updates")
	require.Equal(t, int64(0), raw.Exists(ctx, "counter-lock").Val())
}

func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	empty := c.Lock("")
	_, err := empty.Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	_, _, err = empty.TryLock(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	_, err = empty.ForceUnlock(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	_, err = empty.IsLocked(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	_, err = empty.HoldCount(ctx, 1)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	_, err = empty.IsHeldByOwner(ctx, 1)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	_, err = empty.RemainTTL(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidName)

	lock := c.Lock("bad-input")

	// A key of another type is reported, and left alone.
	require.NoError(t, raw.Set(ctx, "a-string", "x", 0).Err())
	str := c.Lock("a-string")
	_, err = str.Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, _, err = str.TryLock(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, err = str.HoldCount(ctx, redisson.NewOwnerID())
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, err = str.IsHeldByOwner(ctx, redisson.NewOwnerID())
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.Equal(t, "x", raw.Get(ctx, "a-string").Val())

	// A cancelled context fails before anything is sent.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = lock.Lock(cancelled)
	require.ErrorIs(t, err, context.Canceled)
	_, _, err = lock.TryLock(cancelled)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, int64(0), raw.Exists(ctx, "bad-input").Val())

	// Unlock works with an already-cancelled context.
	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(cancelled))
	require.Equal(t, int64(0), raw.Exists(ctx, "bad-input").Val())
}

func TestClosedClient(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("closing")
	h, err := lock.Lock(ctx)
	require.NoError(t, err)

	waiter := make(chan error, 1)
	go func() {
		_, err := c.Lock("closing").Lock(ctx)
		waiter <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == 1 })

	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close is idempotent")
	select {
	case err := <-waiter:
		require.ErrorIs(t, err, redisson.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting Lock did not return on Close")
	}
	require.True(t, ended(h))
	require.ErrorIs(t, h.Err(), redisson.ErrClosed)
	_, err = lock.Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrClosed)
	_, err = lock.IsLocked(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
	// The lock itself is left to expire, as a Redisson shutdown leaves it.
	require.Equal(t, int64(1), raw.Exists(ctx, "closing").Val())
}

// TestTryLockWait covers the wait budget: it fails after waiting while the
// lock is held and succeeds when it is released during the wait.
func TestTryLockWait(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("trylock")
	h, err := lock.Lock(ctx)
	require.NoError(t, err)

	start := time.Now()
	_, ok, err := lock.TryLock(ctx, rlock.WithWait(200*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)

	got := make(chan bool, 1)
	go func() {
		wh, ok, err := lock.TryLock(ctx, rlock.WithWait(10*time.Second), rlock.WithLease(5*time.Second))
		if err == nil && ok {
			err = wh.Unlock(ctx)
		}
		got <- ok && err == nil
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == 1 })
	require.NoError(t, h.Unlock(ctx))
	select {
	case ok := <-got:
		require.True(t, ok)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken")
	}
}

// TestLockOwnershipFromSeparateGoroutines checks that two goroutines never
// both hold the lock through one handle (every Lock without WithOwner is a
// fresh owner).
func TestLockOwnershipFromSeparateGoroutines(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	lock := c.Lock("shared-handle")
	var inside atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				h, err := lock.Lock(context.Background())
				if err != nil {
					panic(fmt.Sprint("lock: ", err))
				}
				if inside.Add(1) != 1 {
					panic("two owners inside")
				}
				inside.Add(-1)
				if err := h.Unlock(context.Background()); err != nil {
					panic(fmt.Sprint("unlock: ", err))
				}
			}
		}()
	}
	wg.Wait()
}
