package multilock_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// occupancy counts holders per lock name and records any overlap.
type occupancy struct {
	mu      sync.Mutex
	holders map[string]int
	overlap atomic.Int64
	entries atomic.Int64
}

func newOccupancy() *occupancy { return &occupancy{holders: map[string]int{}} }

func (o *occupancy) enter(names []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range names {
		o.holders[n]++
		if o.holders[n] > 1 {
			o.overlap.Add(1)
		}
	}
	o.entries.Add(1)
}

func (o *occupancy) leave(names []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range names {
		o.holders[n]--
	}
}

// TestOppositeOrdersNeverDeadlockNorOverlap: owners of two clients ask for
// overlapping sets in opposite orders ([x y z] and [z y w]), with Lock and
// a random fixed lease and with TryLock and random waits. Every request
// completes (no deadlock) and no two holders ever share a lock.
func TestOppositeOrdersNeverDeadlockNorOverlap(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	sets := [][]string{{"x", "y", "z"}, {"z", "y", "w"}}
	occ := newOccupancy()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	const perWorker = 6
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 4 {
		c := c1
		if w%2 == 1 {
			c = c2
		}
		names := sets[w%2]
		useLock := w >= 2
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := multilock.New(rlocks(c, names...)...)
			for range perWorker {
				var h *multilock.Hold
				var err error
				if useLock {
					h, err = m.Lock(ctx, multilock.WithLease(time.Second))
				} else {
					for h == nil && err == nil {
						var ok bool
						h, ok, err = m.TryLock(ctx, multilock.WithWait(time.Duration(20+rand.IntN(180))*time.Millisecond))
						if err == nil && !ok {
							h = nil
						}
					}
				}
				if err != nil {
					errs <- err
					return
				}
				occ.enter(names)
				time.Sleep(time.Millisecond) // the critical section
				occ.leave(names)
				if err := h.Err(); err != nil {
					errs <- fmt.Errorf("hold ended inside the critical section: %w", err)
					return
				}
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
	require.Zero(t, occ.overlap.Load(), "two holders shared a lock")
	require.EqualValues(t, 4*perWorker, occ.entries.Load())
	raw := redistest.Client(t, srv)
	require.Equal(t, int64(0), raw.Exists(context.Background(), "x", "y", "z", "w").Val())
}

// keysOf returns the keys of the server, except unlock latches and the
// clients' registration records.
func keysOf(t *testing.T, rdb *redis.Client) []string {
	t.Helper()
	all := redistest.Keys(t, rdb, "*")
	var out []string
	for _, k := range all {
		if len(k) >= len("redisson_unlock_latch") && k[:len("redisson_unlock_latch")] == "redisson_unlock_latch" {
			continue
		}
		out = append(out, k)
	}
	return out
}

// TestPartialAcquisitionRolledBack: a set whose third member (of four kinds:
// RLock, fair lock, read lock, write lock) is held elsewhere is not taken,
// once or with a wait; what was taken is released, and Redis is left with
// no member lock, queue entry or read timeout key of the failed owner.
func TestPartialAcquisitionRolledBack(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()

	blocker, err := c2.ReadWriteLock("rw").WriteLock().Lock(ctx)
	require.NoError(t, err)
	defer blocker.Unlock(ctx)

	m := multilock.New(c1.Lock("plain"), c1.FairLock("fair"), c1.ReadWriteLock("rw").ReadLock(), c1.ReadWriteLock("rw2").WriteLock())
	for _, tc := range []struct {
		name string
		opts []multilock.Option
	}{
		{"once", nil},
		{"wait", []multilock.Option{multilock.WithWait(300 * time.Millisecond)}},
		{"wait and lease", []multilock.Option{multilock.WithWait(300 * time.Millisecond), multilock.WithLease(5 * time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			h, ok, err := m.TryLock(ctx, tc.opts...)
			require.NoError(t, err)
			require.False(t, ok)
			require.Nil(t, h)
			require.Less(t, time.Since(start), 5*time.Second)
			require.ElementsMatch(t, []string{"rw"}, keysOf(t, raw), "only the blocker's lock is left")
			fields, err := raw.HGetAll(ctx, "rw").Result()
			require.NoError(t, err)
			require.Len(t, fields, 2, "mode and the blocker's write field: %v", fields)
			require.Zero(t, c1.Stats().Leases, "no member lease left on the wheel")
		})
	}
	require.NoError(t, blocker.Unlock(ctx))
	h, ok, err := m.TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.ElementsMatch(t, []string{"plain", "fair", "rw", "rw2", "{rw}:" + c1.ID() + ":" + fmt.Sprint(h.Owner()) + ":rwlock_timeout:1"}, keysOf(t, raw))
	require.NoError(t, h.Unlock(ctx))
	require.Empty(t, keysOf(t, raw))
}

// TestTryLockLeaseTakesTwiceTheWaitThenTheLease: members are taken with a
// lease of 2 x wait and set to the requested lease once all are held; the
// hold's expiry signal follows the final lease, not the provisional one.
func TestTryLockLeaseTakesTwiceTheWaitThenTheLease(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	m := multilock.New(rlocks(c, "a", "b")...)
	// A wait ample for two tries under MONITOR on a busy machine; its
	// provisional lease (1s) well below the final one.
	const wait, lease = 500 * time.Millisecond, 3 * time.Second

	var acquires []string
	cmds := redistest.Sent(t, srv, raw, func() {
		start := time.Now()
		h, ok, err := m.TryLock(ctx, multilock.WithWait(wait), multilock.WithLease(lease))
		acquired := time.Now()
		require.NoError(t, err)
		require.True(t, ok)
		defer h.Unlock(ctx)
		for _, k := range []string{"a", "b"} {
			// The key's end in ms since the epoch (the server shares this
			// machine's clock): the final lease, set by a request sent
			// after start and answered before acquired; the provisional
			// one would end a second earlier.
			expires := raw.PExpireTime(ctx, k).Val()
			require.GreaterOrEqual(t, expires, time.Duration(start.UnixMilli())*time.Millisecond+lease, k)
			require.LessOrEqual(t, expires, time.Duration(acquired.UnixMilli()+1)*time.Millisecond+lease, k)
		}
		redistest.Eventually(t, 10*time.Second, "the hold signals the end of its lease", func() bool { return ended(h.Done()) })
		// Never before the final lease's signal (lease - 1% - LeaseMargin
		// - the wheel's tick from the final lease's requests): the
		// provisional lease's would have come about 2s earlier.
		require.Greater(t, time.Since(start), lease-lease/100-100*time.Millisecond, "the hold's signal follows the final lease")
		require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
	})
	for _, c := range cmds {
		// EVALSHA sha 1 key lease ...: the acquire and the expire scripts
		// both take the lease first.
		if (c.Command == "evalsha" || c.Command == "eval") && len(c.Args) > 3 && c.Args[1] == "1" && (c.Args[2] == "a" || c.Args[2] == "b") {
			acquires = append(acquires, c.Args[3])
		}
	}
	// The acquire scripts set the provisional lease (1000), the expire
	// scripts the final one (3000).
	require.Contains(t, acquires, "1000")
	require.Contains(t, acquires, "3000")
}

// TestMemberLossEndsTheHold: a MultiLock hold ends when any member is lost;
// its Unlock still releases the members it holds and reports the loss.
func TestMemberLossEndsTheHold(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	m := multilock.New(rlocks(c, "a", "b", "c")...)
	h, err := m.Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Err())
	require.Equal(t, []string{"a", "b", "c"}, h.Held())

	ok, err := c.Lock("b").ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	redistest.Eventually(t, 5*time.Second, "the hold ends", func() bool { return ended(h.Done()) })
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.ErrorIs(t, context.Cause(h.Context()), redisson.ErrLockLost)

	err = h.Unlock(ctx)
	require.ErrorIs(t, err, redisson.ErrLockLost)
	require.Equal(t, int64(0), raw.Exists(ctx, "a", "b", "c").Val(), "the members still held were released")
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrNotOwner, "a second Unlock")
}

// TestMemberLossBySilentExpiryEndsTheHold: the watchdog of a member finds
// its key gone (deleted behind the client's back): the set's hold ends,
// and its Unlock releases the member still held.
func TestMemberLossBySilentExpiryEndsTheHold(t *testing.T) {
	srv := redistest.StartServer(t)
	// "b" must stay held throughout: a member whose renewal came too late
	// is lost too, its Unlock sends nothing, and its key outlives the
	// Unlock. A 3 s lease is renewed every second, so a loaded machine may
	// hold a renewal round back for up to two seconds.
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(3*time.Second))
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	h, err := multilock.New(rlocks(c, "a", "b")...).Lock(ctx)
	require.NoError(t, err)
	redistest.Eventually(t, 10*time.Second, "the watchdog renewed both members", func() bool {
		return c.Stats().Renewal.Renewed >= 2
	})
	require.NoError(t, h.Err())
	require.NoError(t, raw.Del(ctx, "a").Err())
	redistest.Eventually(t, 10*time.Second, "the hold ends", func() bool { return ended(h.Done()) })
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.Equal(t, uint64(1), c.Stats().Renewal.Lost, "only the deleted member was lost")
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrLockLost)
	require.Equal(t, int64(0), raw.Exists(ctx, "b").Val(), "the member still held was released")
}

// TestReentryWithOwner: WithOwner(h.Owner()) re-enters every member; each
// hold is released by its own Unlock.
func TestReentryWithOwner(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	m := multilock.New(rlocks(c, "a", "b")...)
	h1, err := m.Lock(ctx)
	require.NoError(t, err)
	h2, ok, err := m.TryLock(ctx, multilock.WithOwner(h1.Owner()))
	require.NoError(t, err)
	require.True(t, ok)
	field := c.ID() + ":" + fmt.Sprint(h1.Owner())
	require.Equal(t, "2", raw.HGet(ctx, "a", field).Val())
	other, ok, err := m.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "another owner")
	require.Nil(t, other)
	require.NoError(t, h1.Unlock(ctx))
	require.Equal(t, "1", raw.HGet(ctx, "b", field).Val())
	require.NoError(t, h2.Err())
	require.NoError(t, h2.Unlock(ctx))
	require.Equal(t, int64(0), raw.Exists(ctx, "a", "b").Val())
}

// TestBadInput: an empty set, a nil member, a lock given twice, bad
// options: clear errors, and nothing sent to Redis.
func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	var nilLock *rlock.Lock
	good := rlocks(c, "a", "b")
	for _, tc := range []struct {
		name string
		m    *multilock.Lock
		opts []multilock.Option
		want error
	}{
		{"empty set", multilock.New(), nil, redisson.ErrInvalidArgument},
		{"empty RedLock", multilock.NewRedLock(), nil, redisson.ErrInvalidArgument},
		{"nil member", multilock.New(c.Lock("a"), nil), nil, redisson.ErrInvalidArgument},
		{"typed nil member", multilock.New(c.Lock("a"), nilLock), nil, redisson.ErrInvalidArgument},
		{"same handle twice", multilock.New(good[0], good[1], good[0]), nil, redisson.ErrInvalidArgument},
		{"same lock twice", multilock.NewRedLock(c.Lock("a"), c.Lock("b"), c.Lock("a")), nil, redisson.ErrInvalidArgument},
		{"zero lease", multilock.New(good...), []multilock.Option{multilock.WithLease(0)}, redisson.ErrInvalidArgument},
		{"negative wait", multilock.New(good...), []multilock.Option{multilock.WithWait(-time.Second)}, redisson.ErrInvalidArgument},
		{"zero owner", multilock.New(good...), []multilock.Option{multilock.WithOwner(0)}, redisson.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := tc.m.TryLock(ctx, tc.opts...)
			require.ErrorIs(t, err, tc.want)
			require.False(t, ok)
			_, err = tc.m.Lock(ctx, tc.opts...)
			require.ErrorIs(t, err, tc.want)
		})
	}
	_, err := multilock.New(good...).Lock(ctx, multilock.WithWait(time.Second))
	require.ErrorIs(t, err, redisson.ErrInvalidArgument, "WithWait on Lock")
	// Read and write lock of one name are different members.
	rw := c.ReadWriteLock("rw")
	h, err := multilock.New(rw.WriteLock(), rw.ReadLock()).Lock(ctx)
	require.NoError(t, err, "write then read by one owner is a downgrade")
	require.NoError(t, h.Unlock(ctx))
	require.Zero(t, redistest.DBSize(t, raw)-int64(len(raw.Keys(ctx, "redisson_unlock_latch*").Val())))
	err = (&multilock.Hold{}).Unlock(ctx)
	require.Error(t, err)
}

// TestUnlockNeedsNoLiveContext: Unlock works with a cancelled ctx.
func TestUnlockNeedsNoLiveContext(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	h, err := multilock.New(rlocks(c, "a", "b")...).Lock(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, h.Unlock(ctx))
	require.ErrorIs(t, h.Err(), context.Canceled)
	require.Equal(t, int64(0), raw.Exists(context.Background(), "a", "b").Val())
}

// TestCancelledWaitLeavesNothing: a Lock whose ctx ends while it waits for
// a held member returns the ctx error and leaves no member held.
func TestCancelledWaitLeavesNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	blocker, err := c2.Lock("b").Lock(context.Background())
	require.NoError(t, err)
	defer blocker.Unlock(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	_, err = multilock.New(rlocks(c1, "a", "b", "c")...).Lock(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Equal(t, []string{"b"}, keysOf(t, raw))
	require.Zero(t, c1.Stats().Leases)
	redistest.Eventually(t, 5*time.Second, "no subscription left", func() bool { return c1.Stats().PubSub.Waiters == 0 })
}

var _ lockable.Lock = (*rlock.Lock)(nil)

// TestFairMemberWaitLeavesNoQueueEntry: a multi-lock that waits for a fair
// lock held elsewhere and gives up leaves no queue or timeout entry, and
// the RLock it took first is released.
func TestFairMemberWaitLeavesNoQueueEntry(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	blocker, err := c2.FairLock("fair").Lock(ctx)
	require.NoError(t, err)
	defer blocker.Unlock(ctx)
	_, ok, err := multilock.New(c1.Lock("plain"), c1.FairLock("fair")).TryLock(ctx, multilock.WithWait(300*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, []string{"fair"}, keysOf(t, raw), "no queue, timeout zset or member lock left")
}

// TestMembersOfSeveralServers: a MultiLock over locks of three Clients on
// three servers takes and releases all of them.
func TestMembersOfSeveralServers(t *testing.T) {
	servers := redistest.StartMasters(t, 3)
	ctx := context.Background()
	var members []lockable.Lock
	var raws []*redis.Client
	for _, s := range servers {
		members = append(members, redissontest.ClientAt(t, s.Addr()).Lock("res"))
		raws = append(raws, redistest.Client(t, s))
	}
	h, err := multilock.New(members...).Lock(ctx)
	require.NoError(t, err)
	for _, r := range raws {
		require.Equal(t, int64(1), r.Exists(ctx, "res").Val())
	}
	require.NoError(t, h.Unlock(ctx))
	for _, r := range raws {
		require.Equal(t, int64(0), r.Exists(ctx, "res").Val())
	}
}

// TestLockWithServerDownEndsAtDeadline: Lock keeps trying while a member's
// server is down and returns at ctx's deadline, holding nothing.
func TestLockWithServerDownEndsAtDeadline(t *testing.T) {
	servers := redistest.StartMasters(t, 2)
	ctx := context.Background()
	c0, c1 := redissontest.ClientAt(t, servers[0].Addr()), redissontest.ClientAt(t, servers[1].Addr())
	raw0 := redistest.Client(t, servers[0])
	require.NoError(t, servers[1].Kill())
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := multilock.New(c0.Lock("res"), c1.Lock("res")).Lock(lctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 8*time.Second)
	require.Equal(t, int64(0), raw0.Exists(ctx, "res").Val())
	require.Zero(t, c0.Stats().Leases)
}
