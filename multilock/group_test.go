package multilock_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// TestGroupFieldIDsInRedis: the group's hash names values by the field ids
// of protocol Appendix A.1, with Redisson's three fields per value.
func TestGroupFieldIDsInRedis(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	g := c.MultiLockGroup("orders", "Jack_001", "Mary_002", "")
	require.Equal(t, []string{"7pNoDdizVy2xY792MaFv+w", "kIX2DFOX4IWct7G7K6tV9A", "t6rZwibGo2uy1OSmNVe8pg"}, g.FieldIDs())

	before := time.Now().UnixMilli()
	h, err := g.Lock(ctx)
	require.NoError(t, err)
	after := time.Now().UnixMilli()
	owner := c.ID() + ":" + strconv.FormatInt(h.Owner(), 10)
	fields := raw.HGetAll(ctx, "orders").Val()
	require.Len(t, fields, 9)
	for _, f := range g.FieldIDs() {
		require.Equal(t, owner, fields[f])
		require.Equal(t, "1", fields[f+":"+owner+":lock_count"])
		exp, err := strconv.ParseInt(fields[f+":"+owner+":expire_time"], 10, 64)
		require.NoError(t, err)
		require.GreaterOrEqual(t, exp, before+30000)
		require.LessOrEqual(t, exp, after+30000)
	}
	pttl := raw.PTTL(ctx, "orders").Val()
	require.Greater(t, pttl, 29*time.Second)

	msgs := redistest.Capture(t, raw)
	require.NoError(t, h.Unlock(ctx))
	ch, payload := msgs.Next(t)
	require.Equal(t, "redisson_lock__channel:{orders}", ch)
	require.Equal(t, "0", payload)
	require.Equal(t, int64(0), raw.Exists(ctx, "orders").Val(), "the last value's fields went, and with them the hash")
}

// TestGroupAcquireVariants: TryLock without wait sends Redisson's try-once
// script (now first), Lock and TryLock with a wait the waiting one (lease
// first).
func TestGroupAcquireVariants(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	g := c.MultiLockGroup("grp", "a", "b")
	firstArg := func(fn func()) []string {
		var out []string
		for _, l := range redistest.Sent(t, srv, raw, fn) {
			if (l.Command == "evalsha" || l.Command == "eval") && len(l.Args) > 3 && l.Args[2] == "grp" {
				out = append(out, l.Args[3])
			}
		}
		return out
	}
	args := firstArg(func() {
		h, ok, err := g.TryLock(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, h.Unlock(ctx))
	})
	require.GreaterOrEqual(t, len(args), 1)
	require.Len(t, args[0], 13, "try-once: ARGV[1] is now in ms")
	args = firstArg(func() {
		h, err := g.Lock(ctx, multilock.WithLease(5*time.Second))
		require.NoError(t, err)
		require.NoError(t, h.Unlock(ctx))
	})
	require.Equal(t, "5000", args[0], "waiting: ARGV[1] is the lease")
}

// TestGroupOverlappingSetsExclude: owners on overlapping value sets exclude
// each other, disjoint sets do not, and a waiter is woken by the release.
func TestGroupOverlappingSetsExclude(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	a, err := c1.MultiLockGroup("g", "a", "b").Lock(ctx)
	require.NoError(t, err)

	h, ok, err := c2.MultiLockGroup("g", "b", "c").TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, h)
	h, ok, err = c1.MultiLockGroup("g", "c", "b").TryLock(ctx, multilock.WithWait(100*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok, "another owner of the same client")
	require.Nil(t, h)
	d, ok, err := c2.MultiLockGroup("g", "c", "d").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok, "disjoint values")
	require.NoError(t, d.Unlock(ctx))

	got := make(chan *multilock.GroupHold, 1)
	go func() {
		h, err := c2.MultiLockGroup("g", "b", "c").Lock(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return c2.Stats().PubSub.Waiters == 1 })
	select {
	case <-got:
		t.Fatal("the waiter got values that are held")
	case <-time.After(100 * time.Millisecond):
	}
	start := time.Now()
	require.NoError(t, a.Unlock(ctx))
	var b *multilock.GroupHold
	select {
	case b = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter was not woken")
	}
	require.Less(t, time.Since(start), 5*time.Second, "woken by the message, not the 30s expiry")
	require.NoError(t, b.Unlock(ctx))
}

// TestGroupStress: goroutines of two clients lock random overlapping
// subsets of one group; no value ever has two holders.
func TestGroupStress(t *testing.T) {
	srv := redistest.StartServer(t)
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	raw := redistest.Client(t, srv)
	values := []string{"v1", "v2", "v3", "v4", "v5"}
	occ := newOccupancy()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[w%2]
			for range 15 {
				perm := rand.Perm(len(values))
				set := make([]string, 1+rand.IntN(3))
				for i := range set {
					set[i] = values[perm[i]]
				}
				h, err := c.MultiLockGroup("stress", set...).Lock(ctx)
				if err != nil {
					errs <- err
					return
				}
				occ.enter(set)
				time.Sleep(time.Millisecond)
				occ.leave(set)
				if err := h.Unlock(context.Background()); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, occ.overlap.Load())
	require.EqualValues(t, 8*15, occ.entries.Load())
	require.Equal(t, int64(0), raw.Exists(context.Background(), "stress").Val())
}

// TestGroupReentry: WithOwner re-enters the same values (lock_count 2);
// each hold is released by its own Unlock; an owner's holds on overlapping
// value sets share the counts in Redis.
func TestGroupReentry(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	g := c.MultiLockGroup("g", "a", "b")
	h1, err := g.Lock(ctx)
	require.NoError(t, err)
	h2, ok, err := g.TryLock(ctx, multilock.WithOwner(h1.Owner()))
	require.NoError(t, err)
	require.True(t, ok)
	owner := c.ID() + ":" + strconv.FormatInt(h1.Owner(), 10)
	fa := keys.GroupMultiLockField([]byte("a"))
	require.Equal(t, "2", raw.HGet(ctx, "g", fa+":"+owner+":lock_count").Val())

	h3, ok, err := c.MultiLockGroup("g", "b", "c").TryLock(ctx, multilock.WithOwner(h1.Owner()))
	require.NoError(t, err)
	require.True(t, ok, "the owner's overlapping set")

	require.NoError(t, h1.Unlock(ctx))
	require.NoError(t, h2.Err())
	require.Equal(t, "1", raw.HGet(ctx, "g", fa+":"+owner+":lock_count").Val())
	require.NoError(t, h2.Unlock(ctx))
	require.False(t, raw.HExists(ctx, "g", fa).Val(), "a is free")
	require.NoError(t, h3.Err())
	held, err := c.MultiLockGroup("g", "b", "c").IsHeldByOwner(ctx, h1.Owner())
	require.NoError(t, err)
	require.True(t, held)
	require.NoError(t, h3.Unlock(ctx))
	require.Equal(t, int64(0), raw.Exists(ctx, "g").Val())
	require.ErrorIs(t, h3.Unlock(ctx), redisson.ErrNotOwner)
}

// TestGroupForceUnlockAndQueries: IsLocked, IsHeldByOwner, ForceUnlock
// (which ends this client's holds on the group).
func TestGroupForceUnlockAndQueries(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	g := c1.MultiLockGroup("g", "a", "b")
	locked, err := g.IsLocked(ctx)
	require.NoError(t, err)
	require.False(t, locked)
	h, err := g.Lock(ctx)
	require.NoError(t, err)
	for _, tc := range []struct {
		g      *multilock.Group
		owner  int64
		locked bool
		held   bool
	}{
		{g, h.Owner(), true, true},
		{c1.MultiLockGroup("g", "b"), h.Owner(), true, true},
		{c1.MultiLockGroup("g", "b", "z"), h.Owner(), true, false},
		{c1.MultiLockGroup("g", "z"), h.Owner(), false, false},
		{g, h.Owner() + 1, true, false},
		{c2.MultiLockGroup("g", "a", "b"), h.Owner(), true, false},
	} {
		locked, err := tc.g.IsLocked(ctx)
		require.NoError(t, err)
		require.Equal(t, tc.locked, locked, tc.g.Values())
		held, err := tc.g.IsHeldByOwner(ctx, tc.owner)
		require.NoError(t, err)
		require.Equal(t, tc.held, held, tc.g.Values())
	}
	msgs := redistest.Capture(t, raw)
	ok, err := c1.MultiLockGroup("g", "b", "z").ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	ch, _ := msgs.Next(t)
	require.Equal(t, "redisson_lock__channel:{g}", ch)
	redistest.Eventually(t, 5*time.Second, "the hold ends", func() bool { return ended(h.Done()) })
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.False(t, raw.HExists(ctx, "g", keys.GroupMultiLockField([]byte("b"))).Val())
	ok, err = c1.MultiLockGroup("g", "z").ForceUnlock(ctx)
	require.NoError(t, err)
	require.False(t, ok)
}

// TestGroupWatchdog: the watchdog renews the values' expiry and the hash's
// TTL past the lease; the hold ends with ErrLockLost once the hash is gone.
func TestGroupWatchdog(t *testing.T) {
	srv := redistest.StartServer(t)
	// Renewed every second, a 3 s lease survives a renewal round that a
	// loaded machine holds back for up to two seconds: the hold must not
	// end before the test deletes the hash.
	const watchdog = 3 * time.Second
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	g := c.MultiLockGroup("g", "a", "b")
	h, err := g.Lock(ctx)
	require.NoError(t, err)
	owner := c.ID() + ":" + strconv.FormatInt(h.Owner(), 10)
	ef := keys.GroupMultiLockField([]byte("b")) + ":" + owner + ":expire_time"
	first, err := raw.HGet(ctx, "g", ef).Int64()
	require.NoError(t, err)
	// Renewed past its lease: expire_time raised by a whole lease or more.
	redistest.Eventually(t, 10*watchdog, "expire_time raised by a lease", func() bool {
		later, err := raw.HGet(ctx, "g", ef).Int64()
		require.NoError(t, err)
		return later >= first+watchdog.Milliseconds()
	})
	require.NoError(t, h.Err())
	require.Greater(t, raw.PTTL(ctx, "g").Val(), time.Duration(0))
	require.NoError(t, raw.Del(ctx, "g").Err())
	redistest.Eventually(t, 5*time.Second, "the hold ends", func() bool { return ended(h.Done()) })
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
}

// TestGroupFixedLease: a fixed lease is not renewed; the hold signals its
// end before the values' expiry, and another owner takes them after it.
func TestGroupFixedLease(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	start := time.Now()
	h, err := c1.MultiLockGroup("g", "a").Lock(ctx, multilock.WithLease(time.Second))
	require.NoError(t, err)
	other := c2.MultiLockGroup("g", "a", "b")
	b, err := other.Lock(ctx)
	require.NoError(t, err)
	require.True(t, ended(h.Done()), "the holder learned its end before the other owner got the value")
	require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
	require.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond)
	require.NoError(t, b.Unlock(ctx))
}

// TestGroupBadInput: no values, a value given twice, an empty group name,
// bad options: clear errors, nothing in Redis.
func TestGroupBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		g    *multilock.Group
		opts []multilock.Option
		want error
	}{
		{"no values", c.MultiLockGroup("g"), nil, redisson.ErrInvalidArgument},
		{"value twice", c.MultiLockGroup("g", "a", "b", "a"), nil, redisson.ErrInvalidArgument},
		{"empty group", c.MultiLockGroup("", "a"), nil, redisson.ErrInvalidName},
		{"zero lease", c.MultiLockGroup("g", "a"), []multilock.Option{multilock.WithLease(0)}, redisson.ErrInvalidArgument},
		{"negative wait", c.MultiLockGroup("g", "a"), []multilock.Option{multilock.WithWait(-1)}, redisson.ErrInvalidArgument},
		{"zero owner", c.MultiLockGroup("g", "a"), []multilock.Option{multilock.WithOwner(0)}, redisson.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := tc.g.TryLock(ctx, tc.opts...)
			require.ErrorIs(t, err, tc.want)
			require.False(t, ok)
			_, err = tc.g.Lock(ctx, tc.opts...)
			require.ErrorIs(t, err, tc.want)
			if tc.opts == nil {
				_, err = tc.g.ForceUnlock(ctx)
				require.ErrorIs(t, err, tc.want)
				_, err = tc.g.IsLocked(ctx)
				require.ErrorIs(t, err, tc.want)
			}
		})
	}
	_, err := c.MultiLockGroup("g", "a").Lock(ctx, multilock.WithWait(time.Second))
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.Zero(t, redistest.DBSize(t, raw))
}

// TestGroupWrongType: a group key holding another type is reported as
// such.
func TestGroupWrongType(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	require.NoError(t, raw.Set(ctx, "g", "x", 0).Err())
	_, _, err := c.MultiLockGroup("g", "a").TryLock(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, err = c.MultiLockGroup("g", "a").IsLocked(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.Equal(t, "x", raw.Get(ctx, "g").Val())
}
