package rlock_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// The tests below pin down what a Hold guarantees: it releases what it took
// exactly once, a hold that ended sends nothing, re-entry is explicit, the
// caller's context is never cancelled by the library, and a fixed lease's
// end is signalled before Redis can hand the lock to someone else.

func fieldOf(c *redisson.Client, h *rlock.Hold) string {
	return c.ID() + ":" + strconv.FormatInt(h.Owner(), 10)
}

// requireSendsNothing runs fn and fails when any client sent a command that
// names key (a release, a renewal) or when anything was published.
func requireSendsNothing(t *testing.T, srv *redistest.Server, raw *redis.Client, msgs *redistest.Published, key string, fn func()) {
	t.Helper()
	sent := redistest.Sent(t, srv, raw, fn)
	require.Empty(t, redistest.Mentioning(sent, key), "commands naming %q", key)
	msgs.None(t)
}

// TestSecondUnlockSendsNothing: a hold releases once; a second Unlock
// returns an error wrapping ErrNotOwner and sends nothing, whoever holds
// the lock by then, so it can never release another hold. (Fixed leases
// throughout, so that no renewal runs while nothing may be sent.)
func TestSecondUnlockSendsNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	other := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lease := rlock.WithLease(time.Minute)
	take := func(t *testing.T, l *rlock.Lock, opts ...rlock.Option) *rlock.Hold {
		t.Helper()
		h, err := l.Lock(ctx, append(opts, lease)...)
		require.NoError(t, err)
		t.Cleanup(func() { _ = h.Unlock(ctx) })
		return h
	}

	for _, tc := range []struct {
		name string
		// before runs before the first Unlock of h, after after it; after
		// returns the lock's hash the second Unlock must leave alone.
		before func(t *testing.T, lock *rlock.Lock, h *rlock.Hold)
		after  func(t *testing.T, lock *rlock.Lock, h *rlock.Hold) map[string]string
	}{
		{"lock free", nil, func(t *testing.T, lock *rlock.Lock, h *rlock.Hold) map[string]string {
			return map[string]string{}
		}},
		{"re-entered: the owner's other hold remains", func(t *testing.T, lock *rlock.Lock, h *rlock.Hold) {
			take(t, lock, rlock.WithOwner(h.Owner()))
		}, func(t *testing.T, lock *rlock.Lock, h *rlock.Hold) map[string]string {
			return map[string]string{fieldOf(c, h): "1"}
		}},
		{"same owner holds it again", nil, func(t *testing.T, lock *rlock.Lock, h *rlock.Hold) map[string]string {
			h2 := take(t, lock, rlock.WithOwner(h.Owner()))
			return map[string]string{fieldOf(c, h2): "1"}
		}},
		{"another owner of this client holds it", nil, func(t *testing.T, lock *rlock.Lock, h *rlock.Hold) map[string]string {
			h2 := take(t, lock)
			return map[string]string{fieldOf(c, h2): "1"}
		}},
		{"another client holds it", nil, func(t *testing.T, lock *rlock.Lock, h *rlock.Hold) map[string]string {
			h2 := take(t, other.Lock(lock.Name()), rlock.WithOwner(h.Owner()))
			return map[string]string{fieldOf(other, h2): "1"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			const name = "twice"
			lock := c.Lock(name)
			h, err := lock.Lock(ctx, lease)
			require.NoError(t, err)
			if tc.before != nil {
				tc.before(t, lock, h)
			}
			require.NoError(t, h.Unlock(ctx))
			want := tc.after(t, lock, h)
			require.Equal(t, want, raw.HGetAll(ctx, name).Val())

			msgs := redistest.Capture(t, raw)
			requireSendsNothing(t, srv, raw, msgs, name, func() {
				err = h.Unlock(ctx)
			})
			require.ErrorIs(t, err, redisson.ErrNotOwner)
			require.Equal(t, want, raw.HGetAll(ctx, name).Val(), "nothing changed")
			require.ErrorIs(t, h.Err(), context.Canceled, "the hold ended with its (first) unlock")
		})
	}
}

// TestUnlockAfterLoss: a hold that ended as lost (or whose fixed lease
// ran out) returns why from Unlock and sends nothing: by then the lock may
// be someone else's.
func TestUnlockAfterLoss(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	const watchdog = 300 * time.Millisecond
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	other := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	ctx := context.Background()

	for _, tc := range []struct {
		name string
		opts []rlock.Option
		lose func(t *testing.T, name string)
		want error
	}{
		{"force-unlocked by another client, found by the watchdog", nil, func(t *testing.T, name string) {
			ok, err := other.Lock(name).ForceUnlock(ctx)
			require.NoError(t, err)
			require.True(t, ok)
		}, redisson.ErrLockLost},
		{"force-unlocked through this client", nil, func(t *testing.T, name string) {
			ok, err := c.Lock(name).ForceUnlock(ctx)
			require.NoError(t, err)
			require.True(t, ok)
		}, redisson.ErrLockLost},
		{"key deleted, found by the watchdog", nil, func(t *testing.T, name string) {
			require.NoError(t, raw.Del(ctx, name).Err())
		}, redisson.ErrLockLost},
		{"fixed lease ran out", []rlock.Option{rlock.WithLease(200 * time.Millisecond)}, func(*testing.T, string) {}, redisson.ErrLeaseExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			name := "lost"
			h, err := c.Lock(name).Lock(ctx, tc.opts...)
			require.NoError(t, err)
			tc.lose(t, name)
			select {
			case <-h.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("the loss was not noticed")
			}
			require.ErrorIs(t, h.Err(), tc.want)
			redistest.Eventually(t, 5*time.Second, "the key is gone", func() bool {
				return raw.Exists(ctx, name).Val() == 0
			})
			// Someone else takes the lock; the late Unlock must not touch
			// it.
			h2, err := other.Lock(name).Lock(ctx, rlock.WithLease(time.Minute), rlock.WithOwner(h.Owner()))
			require.NoError(t, err)
			msgs := redistest.Capture(t, raw)
			requireSendsNothing(t, srv, raw, msgs, name, func() {
				err = h.Unlock(ctx)
			})
			require.ErrorIs(t, err, tc.want)
			require.Equal(t, map[string]string{fieldOf(other, h2): "1"}, raw.HGetAll(ctx, name).Val())
			require.NoError(t, h2.Unlock(ctx))
		})
	}
}

// TestReentryWithOwner: a Lock WithOwner(h.Owner()) re-enters: one field
// counting 2, one lease; the two holds release in either order, each once,
// and only the last release frees the lock and publishes.
func TestReentryWithOwner(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	channel := keys.LockChannel("again")

	for _, tc := range []struct {
		name        string
		first, last int // index of the hold released first and last
	}{{"newest first", 1, 0}, {"oldest first", 0, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			msgs := redistest.Capture(t, raw)
			lock := c.Lock("again")
			h0, err := lock.Lock(ctx)
			require.NoError(t, err)
			h1, err := lock.Lock(ctx, rlock.WithOwner(h0.Owner()))
			require.NoError(t, err)
			require.Equal(t, h0.Owner(), h1.Owner())
			field := fieldOf(c, h0)
			require.Equal(t, map[string]string{field: "2"}, raw.HGetAll(ctx, "again").Val())
			holds := []*rlock.Hold{h0, h1}

			require.NoError(t, holds[tc.first].Unlock(ctx))
			require.ErrorIs(t, holds[tc.first].Err(), context.Canceled)
			require.NoError(t, holds[tc.last].Err(), "the other hold lasts")
			require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "again").Val())
			requirePTTL(t, raw, "again", 29*time.Second, 30*time.Second)
			n, err := lock.HoldCount(ctx, h0.Owner())
			require.NoError(t, err)
			require.Equal(t, 1, n)
			msgs.None(t)
			require.Equal(t, 1, c.Stats().Leases, "one lease per owner, still renewed")

			require.NoError(t, holds[tc.last].Unlock(ctx))
			require.ErrorIs(t, holds[tc.last].Err(), context.Canceled)
			require.Equal(t, int64(0), raw.Exists(ctx, "again").Val())
			require.Equal(t, []redistest.Message{{Channel: channel, Payload: "0"}}, msgs.Drain(t))
			require.Equal(t, 0, c.Stats().Leases)
			require.ErrorIs(t, holds[tc.first].Unlock(ctx), redisson.ErrNotOwner)
		})
	}
}

// TestDefaultOwnersExclude: without WithOwner every Lock is a new owner, so
// a second Lock through the same client (even the same handle) waits for the
// first hold like a sync.Mutex, and TryLock fails.
func TestDefaultOwnersExclude(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("mutex")

	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	_, ok, err := lock.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "not reentrant without WithOwner")

	got := make(chan *rlock.Hold, 1)
	errs := make(chan error, 1)
	go func() {
		h2, err := lock.Lock(ctx)
		if err != nil {
			errs <- err
			return
		}
		got <- h2
	}()
	redistest.Eventually(t, 5*time.Second, "the second Lock waits", func() bool { return c.Stats().PubSub.Waiters == 1 })
	select {
	case h2 := <-got:
		t.Fatalf("a second Lock got the lock while it was held (owner %d)", h2.Owner())
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	require.Equal(t, map[string]string{fieldOf(c, h): "1"}, raw.HGetAll(ctx, "mutex").Val())

	require.NoError(t, h.Unlock(ctx))
	select {
	case h2 := <-got:
		require.NotEqual(t, h.Owner(), h2.Owner())
		require.Equal(t, map[string]string{fieldOf(c, h2): "1"}, raw.HGetAll(ctx, "mutex").Val())
		require.NoError(t, h2.Unlock(ctx))
	case err := <-errs:
		t.Fatal(err)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting Lock did not get the lock after the Unlock")
	}
}

type ctxKey struct{}

// TestLockContext: the context given to Lock only bounds the wait: the
// library never cancels it, cancelling it after the acquire does not end
// the hold, and the hold's Context carries its values but ends with the
// hold.
func TestLockContext(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	// The hold must outlive the renewals below: a 1 s lease leaves each
	// round about 650 ms of a loaded machine's delay.
	const watchdog = time.Second
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))

	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	defer cancel()
	h, err := c.Lock("ctx").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "Lock does not cancel its ctx")
	require.Equal(t, "v", h.Context().Value(ctxKey{}), "the hold's context carries ctx's values")
	require.NoError(t, h.Context().Err())

	cancel()
	renewed := c.Stats().Renewal.Renewed
	redistest.Eventually(t, 5*time.Second, "two renewals after ctx was cancelled", func() bool {
		return c.Stats().Renewal.Renewed >= renewed+2
	})
	require.NoError(t, h.Err(), "cancelling Lock's ctx does not end the hold")
	require.NoError(t, h.Context().Err())
	require.Equal(t, int64(1), raw.Exists(context.Background(), "ctx").Val())

	// A second Lock's ctx is not cancelled by an Unlock either.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	require.NoError(t, h.Unlock(ctx)) // a cancelled ctx still releases
	h2, err := c.Lock("ctx").Lock(ctx2)
	require.NoError(t, err)
	require.NoError(t, h2.Unlock(ctx2))
	require.NoError(t, ctx2.Err(), "Unlock does not cancel the ctx of Lock")
	require.ErrorIs(t, h.Context().Err(), context.Canceled)
	require.ErrorIs(t, context.Cause(h.Context()), context.Canceled)
	require.Equal(t, "v", h.Context().Value(ctxKey{}))
	require.Equal(t, int64(0), raw.Exists(context.Background(), "ctx").Val())
}

// TestInvalidOptions: options that make no sense fail before anything is
// sent.
func TestInvalidOptions(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("bad-options")
	msgs := redistest.Capture(t, raw)

	for _, tc := range []struct {
		name    string
		opt     rlock.Option
		lock    bool // also invalid for Lock
		tryLock bool // also invalid for TryLock
	}{
		{"WithWait on Lock", rlock.WithWait(time.Second), true, false},
		{"WithWait(0) on Lock", rlock.WithWait(0), true, false},
		{"negative wait", rlock.WithWait(-time.Second), true, true},
		{"WithWait(-1)", rlock.WithWait(-1), true, true},
		{"zero lease", rlock.WithLease(0), true, true},
		{"negative lease", rlock.WithLease(-time.Second), true, true},
		{"lease below 1ms", rlock.WithLease(999 * time.Microsecond), true, true},
		{"owner 0", rlock.WithOwner(0), true, true},
		{"negative owner", rlock.WithOwner(-5), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireSendsNothing(t, srv, raw, msgs, "bad-options", func() {
				if tc.lock {
					h, err := lock.Lock(ctx, tc.opt)
					require.ErrorIs(t, err, redisson.ErrInvalidArgument)
					require.Nil(t, h)
				}
				if tc.tryLock {
					h, ok, err := lock.TryLock(ctx, tc.opt)
					require.ErrorIs(t, err, redisson.ErrInvalidArgument)
					require.False(t, ok)
					require.Nil(t, h)
				}
			})
		})
	}
	require.Equal(t, int64(0), raw.Exists(ctx, "bad-options").Val())

	// The valid counterparts work.
	h, ok, err := lock.TryLock(ctx, rlock.WithWait(0), rlock.WithLease(time.Millisecond), rlock.WithOwner(1))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(1), h.Owner())
}

// TestFixedLeaseEndsBeforeExpiry: a fixed lease's hold ends (ErrLockLost)
// before the key can expire in Redis: when Done fires the key is still
// there, with a PTTL left. The signal comes 1% of the lease plus the lease
// margin plus one wheel tick ahead of the lease's end (no earlier); the
// read of PTTL must happen within that head start.
func TestFixedLeaseEndsBeforeExpiry(t *testing.T) {
	srv := redistest.StartServer(t)
	const tick = 10 * time.Millisecond // the renewal wheel's
	for _, tc := range []struct {
		name          string
		lease, margin time.Duration // margin 0: the default
	}{
		{"default margin", 3 * time.Second, 0},
		{"margin 200ms", time.Second, 200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw := redistest.Client(t, srv)
			c := redissontest.ClientAt(t, srv.Addr(), redisson.WithLeaseMargin(tc.margin))
			ctx := context.Background()
			name := "fixed:" + tc.name
			margin := renewal.Margin(tc.lease, c.Options().LeaseMargin, tick)

			before := time.Now()
			h, err := c.Lock(name).Lock(ctx, rlock.WithLease(tc.lease))
			require.NoError(t, err)
			select {
			case <-h.Done():
			case <-time.After(tc.lease + 5*time.Second):
				t.Fatal("the hold outlived its lease")
			}
			pttl := raw.PTTL(ctx, name).Val()
			elapsed := time.Since(before)
			t.Logf("Done after %v; PTTL then %v (head start %v)", elapsed, pttl, margin)
			require.Positive(t, pttl, "the key must still be there when Done fires")
			require.GreaterOrEqual(t, elapsed, tc.lease-margin-tick, "Done fired too early")
			require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
			require.NotErrorIs(t, h.Err(), redisson.ErrLockLost)
		})
	}
}

// TestLocalHandOffPublishesNothing: an unlock that hands the lock straight
// to a waiter of the same client publishes nothing (the lock is never free:
// issue 8, point 4), while the real release that ends a streak of 16
// hand-offs, and every release without a local waiter, publishes "0" as
// Redisson does.
func TestLocalHandOffPublishesNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	const name, streak, waiters = "handoff", 16, 17
	channel := keys.LockChannel(name)
	lock := c.Lock(name)

	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	got := make(chan *rlock.Hold, waiters)
	errs := make(chan error, waiters)
	for range waiters {
		go func() {
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			wh, err := lock.Lock(wctx)
			if err != nil {
				errs <- err
				return
			}
			got <- wh
		}()
	}
	redistest.Eventually(t, 5*time.Second, "all waiters parked", func() bool { return c.Stats().PubSub.Waiters == waiters })
	msgs := redistest.Capture(t, raw)
	next := func() *rlock.Hold {
		t.Helper()
		select {
		case wh := <-got:
			return wh
		case err := <-errs:
			t.Fatal(err)
		case <-time.After(5 * time.Second):
			t.Fatal("no waiter got the lock")
		}
		return nil
	}

	for i := 1; i <= streak; i++ {
		require.NoError(t, h.Unlock(ctx))
		h = next()
		require.Empty(t, msgs.Drain(t), "hand-off %d published", i)
		require.Equal(t, map[string]string{fieldOf(c, h): "1"}, raw.HGetAll(ctx, name).Val(), "hand-off %d", i)
		requirePTTL(t, raw, name, 29*time.Second, 30*time.Second)
	}
	// The streak is over: a real release, although a waiter is parked.
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, []redistest.Message{{Channel: channel, Payload: "0"}}, msgs.Drain(t))
	h = next()
	require.Equal(t, map[string]string{fieldOf(c, h): "1"}, raw.HGetAll(ctx, name).Val())
	// No waiter left: a real release.
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, []redistest.Message{{Channel: channel, Payload: "0"}}, msgs.Drain(t))
	require.Equal(t, int64(0), raw.Exists(ctx, name).Val())
}

// TestUnlockRefusedByRedisKeepsHold: an unlock that Redis refuses before
// its script runs (here BUSY: a script runs past busy-reply-threshold)
// leaves the hold its caller's (issue 33: a refusal is not a lost reply):
// not ended, still renewed, and the same Unlock releases the lock once
// Redis serves again. (It used to spend the hold's one release and let the
// lock expire.)
func TestUnlockRefusedByRedisKeepsHold(t *testing.T) {
	srv := redistest.StartServer(t, redistest.Options{Args: []string{"--busy-reply-threshold", "100"}})
	raw := redistest.Client(t, srv)
	busy := redistest.Client(t, srv, func(o *redis.Options) { o.ReadTimeout = 10 * time.Second })
	ctx := context.Background()
	// The lease must outlast the busy script with room to spare, however
	// late a loaded machine starts it after the acquire: renewals fail with
	// BUSY while it runs, and the hold must still be renewed after it.
	const watchdog = 5 * time.Second
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	h, err := c.Lock("busy").Lock(ctx)
	require.NoError(t, err)

	scriptDone := make(chan error, 1)
	go func() {
		// Spins for about 2 s; Redis answers BUSY to others meanwhile.
		// Long enough for the wait below and the Unlock to both fall in
		// it on a loaded machine.
		scriptDone <- busy.Eval(ctx, `local t = redis.call('time'); local s = t[1]*1000000+t[2]
			repeat t = redis.call('time') until t[1]*1000000+t[2] - s > 2000000
			return 1`, nil).Err()
	}()
	redistest.Eventually(t, 5*time.Second, "Redis answers BUSY", func() bool {
		err := raw.Ping(ctx).Err()
		return err != nil && strings.HasPrefix(err.Error(), "BUSY")
	})
	err = h.Unlock(ctx)
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.Contains(t, err.Error(), "BUSY")
	require.NoError(t, h.Err(), "the refused release left the hold alive")
	require.NoError(t, <-scriptDone)
	// Still renewed: the lock outlives its first lease.
	redistest.Eventually(t, 5*watchdog, "a renewal after the refusal", func() bool {
		return raw.PTTL(ctx, "busy").Val() > watchdog-watchdog/3+50*time.Millisecond
	})
	require.NoError(t, h.Err())
	require.NoError(t, h.Unlock(ctx), "the same hold releases once Redis serves")
	require.Equal(t, int64(0), raw.Exists(ctx, "busy").Val())
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrNotOwner, "once")
}
