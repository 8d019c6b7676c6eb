package fairlock_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/leakcheck"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
)

func field(c *redisson.Client, owner int64) string {
	return c.ID() + ":" + strconv.FormatInt(owner, 10)
}

// queued returns the queue list and each member's stale time relative to
// now (ms).
func queued(t *testing.T, raw *redis.Client, name string) ([]string, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	q, err := raw.LRange(ctx, keys.FairLockQueue(name), 0, -1).Result()
	require.NoError(t, err)
	zs, err := raw.ZRangeWithScores(ctx, keys.FairLockTimeout(name), 0, -1).Result()
	require.NoError(t, err)
	now := time.Now().UnixMilli()
	rel := map[string]int64{}
	for _, z := range zs {
		rel[z.Member.(string)] = int64(z.Score) - now
	}
	return q, rel
}

func within(t *testing.T, got, lo, hi int64, what string) {
	t.Helper()
	require.True(t, got >= lo && got <= hi, "%s: %d not in [%d, %d]", what, got, lo, hi)
}

// TestRawState follows one hand-over through Redis: the waiter's queue
// entry and stale time (holder's TTL + its wait), its own channel, the
// unlock message to the head only, re-entry, and a last unlock with an
// empty queue that publishes nothing.
func TestRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	pub := redistest.Capture(t, raw)

	h1, err := c1.FairLock("f").Lock(ctx, fairlock.WithOwner(1))
	require.NoError(t, err)
	hash, err := raw.HGetAll(ctx, "f").Result()
	require.NoError(t, err)
	require.Equal(t, map[string]string{field(c1, 1): "1"}, hash)
	within(t, raw.PTTL(ctx, "f").Val().Milliseconds(), 29000, 30000, "PTTL after lock")

	type res struct {
		h   *fairlock.Hold
		ok  bool
		err error
	}
	done := make(chan res, 1)
	go func() {
		h, ok, err := c2.FairLock("f").TryLock(ctx, fairlock.WithOwner(2), fairlock.WithWait(10*time.Second))
		done <- res{h, ok, err}
	}()
	f2 := field(c2, 2)
	ch2 := keys.FairLockChannel("f", f2)
	redistest.Eventually(t, 5*time.Second, "T2 queued and subscribed", func() bool {
		q, _ := queued(t, raw, "f")
		return len(q) == 1 && redistest.NumSub(t, raw, ch2) == 1
	})
	q, rel := queued(t, raw, "f")
	require.Equal(t, []string{f2}, q)
	pttl := raw.PTTL(ctx, "f").Val().Milliseconds()
	within(t, rel[f2], pttl+10000-500, pttl+10000+50, "T2's stale time")
	require.Len(t, rel, 1)
	pub.None(t)

	require.NoError(t, h1.Unlock(ctx))
	r := <-done
	require.NoError(t, r.err)
	require.True(t, r.ok)
	require.Equal(t, []redistest.Message{{Channel: ch2, Payload: "0"}}, pub.Drain(t), "only the head is woken, on its own channel")
	hash, err = raw.HGetAll(ctx, "f").Result()
	require.NoError(t, err)
	require.Equal(t, map[string]string{f2: "1"}, hash)
	q, rel = queued(t, raw, "f")
	require.Empty(t, q)
	require.Empty(t, rel)
	redistest.Eventually(t, 5*time.Second, "T2 unsubscribed", func() bool { return redistest.NumSub(t, raw, ch2) == 0 })

	// Re-entry counts on the same field and renews the lease.
	h2b, err := c2.FairLock("f").Lock(ctx, fairlock.WithOwner(2), fairlock.WithLease(20*time.Second))
	require.NoError(t, err)
	n, err := c2.FairLock("f").HoldCount(ctx, 2)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	within(t, raw.PTTL(ctx, "f").Val().Milliseconds(), 19000, 20000, "PTTL after re-entry")
	require.NoError(t, h2b.Unlock(ctx))
	require.NoError(t, r.h.Unlock(ctx))
	locked, err := c1.FairLock("f").IsLocked(ctx)
	require.NoError(t, err)
	require.False(t, locked)
	pub.None(t)
}

// TestFIFOAcrossClients: waiters of three clients (the holder's included:
// no local barging) that queue in a known order while the lock is held
// acquire in exactly that order, each recording its turn.
func TestFIFOAcrossClients(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	h, err := clients[0].FairLock("fifo").Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, 300*time.Second, clients[0].Options().FairLockWaitTimeout, "Redisson 3.52's default")

	const waiters = 12
	var mu sync.Mutex
	var order []int
	errs := make(chan error, waiters)
	for i := 0; i < waiters; i++ {
		c := clients[i%3]
		go func() {
			h, err := c.FairLock("fifo").Lock(ctx)
			if err == nil {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				err = h.Unlock(ctx)
			}
			errs <- err
		}()
		redistest.Eventually(t, 5*time.Second, fmt.Sprintf("waiter %d queued", i), func() bool {
			return raw.LLen(ctx, keys.FairLockQueue("fifo")).Val() == int64(i+1)
		})
	}
	require.NoError(t, h.Unlock(ctx))
	for i := 0; i < waiters; i++ {
		require.NoError(t, <-errs)
	}
	want := make([]int, waiters)
	for i := range want {
		want[i] = i
	}
	require.Equal(t, want, order)
	keys, err := raw.Keys(ctx, "redisson_lock_*").Result()
	require.NoError(t, err)
	require.Empty(t, keys)
}

// TestGiveUpLeavesNothing: a wait that ends without the lock (ctx
// cancelled, WithWait elapsed, client closed) takes its queue and zset
// entries out, moves the waiter behind it up by its wait, and unsubscribes
// its channel.
func TestGiveUpLeavesNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	holder := redissontest.ClientAt(t, srv.Addr())
	behind := redissontest.ClientAt(t, srv.Addr())

	tests := []struct {
		name    string
		acquire func(ctx context.Context, c *redisson.Client) error
		giveUp  func(cancel context.CancelFunc, c *redisson.Client)
		wantErr error
	}{
		{
			name: "ctx cancelled",
			acquire: func(ctx context.Context, c *redisson.Client) error {
				_, err := c.FairLock("g").Lock(ctx, fairlock.WithOwner(7))
				return err
			},
			giveUp:  func(cancel context.CancelFunc, _ *redisson.Client) { cancel() },
			wantErr: context.Canceled,
		},
		{
			name: "wait elapsed",
			acquire: func(ctx context.Context, c *redisson.Client) error {
				_, ok, err := c.FairLock("g").TryLock(ctx, fairlock.WithOwner(7), fairlock.WithWait(400*time.Millisecond))
				if err == nil && ok {
					err = errors.New("acquired")
				}
				return err
			},
			giveUp: func(context.CancelFunc, *redisson.Client) {},
		},
		{
			name: "client closed",
			acquire: func(ctx context.Context, c *redisson.Client) error {
				_, err := c.FairLock("g").Lock(ctx, fairlock.WithOwner(7))
				return err
			},
			giveUp:  func(_ context.CancelFunc, c *redisson.Client) { _ = c.Close() },
			wantErr: redisson.ErrClosed,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			h, err := holder.FairLock("g").Lock(ctx)
			require.NoError(t, err)
			defer func() { _ = h.Unlock(ctx) }()
			c := redissontest.ClientAt(t, srv.Addr())
			f := field(c, 7)
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- tc.acquire(wctx, c) }()
			redistest.Eventually(t, 5*time.Second, "queued and subscribed", func() bool {
				q, _ := queued(t, raw, "g")
				return len(q) == 1 && redistest.NumSub(t, raw, keys.FairLockChannel("g", f)) == 1
			})
			// A second waiter queues behind it.
			bctx, bcancel := context.WithCancel(ctx)
			defer bcancel()
			bdone := make(chan error, 1)
			go func() {
				_, err := behind.FairLock("g").Lock(bctx, fairlock.WithOwner(8))
				bdone <- err
			}()
			fb := field(behind, 8)
			redistest.Eventually(t, 5*time.Second, "second waiter queued", func() bool {
				q, _ := queued(t, raw, "g")
				return len(q) == 2
			})

			tc.giveUp(cancel, c)
			err = <-done
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			q, rel := queued(t, raw, "g")
			require.Equal(t, []string{fb}, q)
			require.NotContains(t, rel, f)
			// The chain of deadlines without the one that left: the
			// holder's TTL plus one default wait.
			pttl := raw.PTTL(ctx, "g").Val().Milliseconds()
			within(t, rel[fb], pttl+300000-1000, pttl+300000+50, "the waiter behind moved up")
			redistest.Eventually(t, 5*time.Second, "its channel unsubscribed", func() bool {
				return redistest.NumSub(t, raw, keys.FairLockChannel("g", f)) == 0
			})

			bcancel()
			require.ErrorIs(t, <-bdone, context.Canceled)
			q, rel = queued(t, raw, "g")
			require.Empty(t, q)
			require.Empty(t, rel)
		})
	}
}

// TestCancelledWaitsLeaveNothing: 1000 cancelled Lock waits leave an empty
// queue and zset, no subscription and no goroutine.
func TestCancelledWaitsLeaveNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	before := leakcheck.Current()
	holder := redissontest.ClientAt(t, srv.Addr())
	c := redissontest.ClientAt(t, srv.Addr())
	h, err := holder.FairLock("busy").Lock(ctx)
	require.NoError(t, err)

	const waiters = 1000
	wctx, cancel := context.WithCancel(ctx)
	errs := make(chan error, waiters)
	for i := 0; i < waiters; i++ {
		go func() {
			_, err := c.FairLock("busy").Lock(wctx)
			errs <- err
		}()
	}
	redistest.Eventually(t, 30*time.Second, "all waiters queued and subscribed", func() bool {
		return raw.LLen(ctx, keys.FairLockQueue("busy")).Val() == waiters && c.Stats().PubSub.Waiters == waiters
	})
	cancel()
	for i := 0; i < waiters; i++ {
		require.ErrorIs(t, <-errs, context.Canceled)
	}
	q, rel := queued(t, raw, "busy")
	require.Empty(t, q)
	require.Empty(t, rel)
	redistest.Eventually(t, 10*time.Second, "every channel unsubscribed", func() bool {
		chans, err := raw.PubSubChannels(ctx, "redisson_lock__channel:*").Result()
		return err == nil && len(chans) == 0
	})
	require.Equal(t, 0, c.Stats().PubSub.Channels)
	require.NoError(t, h.Unlock(ctx))
	keys := redistest.Keys(t, raw, "*")
	require.Len(t, keys, 1, "only the unlock latch: %v", keys)

	require.NoError(t, c.Close())
	require.NoError(t, holder.Close())
	leakcheck.Verify(t, before,
		"github.com/redis/go-redis/v9/internal/pool.(*ConnPool).reaper",
		"internal/poll.runtime_pollWait")
}

// TestStaleHeadIsSkipped: a queued waiter that vanished (here a raw entry)
// holds the free lock back only until its stale time passes.
func TestStaleHeadIsSkipped(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithFairLockWaitTimeout(300*time.Millisecond))
	// In whole ms, as the score and the script's "now" are: the ghost is
	// stale from the start of that ms, which a finer stale time would put
	// up to 1 ms after an acquisition that was right.
	stale := time.UnixMilli(time.Now().Add(300 * time.Millisecond).UnixMilli())
	require.NoError(t, raw.RPush(ctx, keys.FairLockQueue("s"), "ghost:1").Err())
	require.NoError(t, raw.ZAdd(ctx, keys.FairLockTimeout("s"), redis.Z{Score: float64(stale.UnixMilli()), Member: "ghost:1"}).Err())

	_, ok, err := c.FairLock("s").TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "the ghost is first in line")
	h, err := c.FairLock("s").Lock(ctx)
	require.NoError(t, err)
	require.False(t, time.Now().Before(stale), "acquired before the ghost turned stale")
	q, rel := queued(t, raw, "s")
	require.Empty(t, q)
	require.Empty(t, rel)
	require.NoError(t, h.Unlock(ctx))
}

// TestBadInput: invalid names, options and keys of another type fail with
// the library's sentinels (never a panic), and the error names what is in
// the way.
func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	require.NoError(t, raw.Set(ctx, "str", "x", 0).Err())
	require.NoError(t, raw.Set(ctx, keys.FairLockQueue("badqueue"), "x", 0).Err())
	require.NoError(t, raw.HSet(ctx, "rw", "mode", "read").Err())

	tests := []struct {
		name    string
		call    func() error
		want    error
		message string
	}{
		{"empty name", func() error { _, err := c.FairLock("").Lock(ctx); return err }, redisson.ErrInvalidName, ""},
		{"zero lease", func() error { _, err := c.FairLock("a").Lock(ctx, fairlock.WithLease(0)); return err }, redisson.ErrInvalidArgument, ""},
		{"negative lease", func() error { _, _, err := c.FairLock("a").TryLock(ctx, fairlock.WithLease(-time.Second)); return err }, redisson.ErrInvalidArgument, ""},
		{"negative wait", func() error { _, _, err := c.FairLock("a").TryLock(ctx, fairlock.WithWait(-1)); return err }, redisson.ErrInvalidArgument, ""},
		{"sub-ms wait", func() error {
			_, _, err := c.FairLock("a").TryLock(ctx, fairlock.WithWait(time.Microsecond))
			return err
		}, redisson.ErrInvalidArgument, ""},
		{"wait on Lock", func() error { _, err := c.FairLock("a").Lock(ctx, fairlock.WithWait(time.Second)); return err }, redisson.ErrInvalidArgument, ""},
		{"zero owner", func() error { _, err := c.FairLock("a").Lock(ctx, fairlock.WithOwner(0)); return err }, redisson.ErrInvalidArgument, ""},
		{"string key", func() error { _, _, err := c.FairLock("str").TryLock(ctx); return err }, redisson.ErrWrongType, "str holds a string, not a hash"},
		{"string queue", func() error {
			_, _, err := c.FairLock("badqueue").TryLock(ctx, fairlock.WithWait(time.Second))
			return err
		}, redisson.ErrWrongType, "redisson_lock_queue:{badqueue} holds a string, not a list"},
		{"string key, hold count", func() error { _, err := c.FairLock("str").HoldCount(ctx, 1); return err }, redisson.ErrWrongType, "string"},
		{"negative FairLockWaitTimeout", func() error {
			_, err := redisson.New(raw, redisson.WithFairLockWaitTimeout(-time.Second))
			return err
		}, redisson.ErrInvalidArgument, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), tc.message)
		})
	}

	// Another object's hash: Redisson's scripts decide (held by someone
	// else), and nothing changes.
	_, ok, err := c.FairLock("rw").TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, map[string]string{"mode": "read"}, raw.HGetAll(ctx, "rw").Val())
}

// TestMutualExclusion: 3 clients × 8 goroutines increment a counter with a
// non-atomic GET/SET under the lock; no update is lost.
func TestMutualExclusion(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	const clients, goroutines, rounds = 3, 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, clients*goroutines)
	for i := 0; i < clients; i++ {
		c := redissontest.ClientAt(t, srv.Addr())
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < rounds; r++ {
					h, err := c.FairLock("counter-lock").Lock(ctx)
					if err != nil {
						errs <- err
						return
					}
					n, _ := raw.Get(ctx, "counter").Int()
					if err := raw.Set(ctx, "counter", n+1, 0).Err(); err != nil {
						errs <- err
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
	require.Equal(t, clients*goroutines*rounds, n)
}

// TestWatchdogKeepsLock: a lock taken without a lease outlives three
// watchdog periods, renewed by the plain-lock batch.
func TestWatchdogKeepsLock(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(time.Second))
	h, err := c.FairLock("w").Lock(ctx)
	require.NoError(t, err)
	select {
	case <-h.Done():
		t.Fatalf("hold ended: %v", h.Err())
	case <-time.After(3 * time.Second): // the property: held past 3 leases (1 s leases: slack for a busy test machine)
	}
	held, err := c.FairLock("w").IsHeldByOwner(ctx, h.Owner())
	require.NoError(t, err)
	require.True(t, held)
	require.NoError(t, h.Unlock(ctx))
}

// TestGiveUpPassesWakeUp: a head that leaves while the lock is free wakes
// the next waiter at once; without it that waiter would sleep until its
// timer (minutes here). The lock is freed by a raw DEL, which publishes
// nothing, as when a holder's lease ran out. The DEL waits for the head's
// second try (the one after it subscribed): a try that came after the DEL
// would take the lock, and the head would have nothing to give up.
func TestGiveUpPassesWakeUp(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c1 := redissontest.ClientAt(t, srv.Addr())
	headRedis := redistest.Client(t, srv)
	var headScripts scriptReplies
	headRedis.AddHook(&headScripts)
	c2, err := redisson.New(headRedis)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c2.Close() })
	_, err = c1.FairLock("p").Lock(ctx, fairlock.WithLease(time.Minute))
	require.NoError(t, err)

	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	adone := make(chan error, 1)
	go func() {
		_, err := c2.FairLock("p").Lock(actx)
		adone <- err
	}()
	redistest.Eventually(t, 5*time.Second, "head queued, subscribed and tried again", func() bool {
		return headScripts.n.Load() >= 2 && raw.LLen(ctx, keys.FairLockQueue("p")).Val() == 1
	})
	bdone := make(chan error, 1)
	go func() {
		h, err := c1.FairLock("p").Lock(ctx)
		if err == nil {
			err = h.Unlock(ctx)
		}
		bdone <- err
	}()
	redistest.Eventually(t, 5*time.Second, "second waiter queued", func() bool {
		return raw.LLen(ctx, keys.FairLockQueue("p")).Val() == 2
	})
	require.NoError(t, raw.Del(ctx, "p").Err())
	cancel()
	require.ErrorIs(t, <-adone, context.Canceled)
	select {
	case err := <-bdone:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the second waiter was not woken when the head left")
	}
}

// TestVanishedWaiterIsSkipped: a waiter whose process died while queued
// (here its Redis connection closes under it, so it cannot leave the
// queue) holds the lock back only until its stale time: holder's TTL plus
// the short FairLockWaitTimeout every client uses here.
func TestVanishedWaiterIsSkipped(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	wait := redisson.WithFairLockWaitTimeout(300 * time.Millisecond)
	holder, waiter := redissontest.ClientAt(t, srv.Addr(), wait), redissontest.ClientAt(t, srv.Addr(), wait)
	victimRedis := redistest.Client(t, srv)
	victim, err := redisson.New(victimRedis, wait)
	require.NoError(t, err)
	t.Cleanup(func() { _ = victim.Close() })

	_, err = holder.FairLock("v").Lock(ctx, fairlock.WithLease(500*time.Millisecond))
	require.NoError(t, err)
	vdone := make(chan error, 1)
	go func() {
		_, err := victim.FairLock("v").Lock(ctx)
		vdone <- err
	}()
	redistest.Eventually(t, 5*time.Second, "victim queued", func() bool {
		return raw.LLen(ctx, keys.FairLockQueue("v")).Val() == 1
	})
	// And subscribed: closing its connections while the subscription is
	// still being confirmed would leave the victim waiting for that
	// confirmation (the hub has no confirmation timeout yet, issue #12).
	redistest.Eventually(t, 5*time.Second, "victim subscribed", func() bool {
		return len(raw.PubSubChannels(ctx, "redisson_lock__channel:*").Val()) == 1
	})
	q, rel := queued(t, raw, "v")
	require.Len(t, rel, 1)
	victimStale := time.Now().Add(time.Duration(rel[q[0]]) * time.Millisecond)
	require.NoError(t, victimRedis.Close())
	require.Error(t, <-vdone)
	q, _ = queued(t, raw, "v")
	require.Len(t, q, 1, "the victim could not leave the queue")

	h, err := waiter.FairLock("v").Lock(ctx)
	require.NoError(t, err)
	require.False(t, time.Now().Before(victimStale.Add(-20*time.Millisecond)), "acquired before the victim turned stale")
	q, rel = queued(t, raw, "v")
	require.Empty(t, q)
	require.Empty(t, rel)
	require.NoError(t, h.Unlock(ctx))
}
