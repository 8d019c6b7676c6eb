package multilock_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// pauseWrites makes server i hold every script and write (CLIENT PAUSE
// WRITE, which lets reads and CLIENT UNPAUSE through) until unpause is
// called or the test ends.
func (rc *redCluster) pauseWrites(t *testing.T, i int) (unpause func()) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, rc.raws[i].Do(ctx, "client", "pause", 60_000, "write").Err())
	var once sync.Once
	unpause = func() {
		once.Do(func() { require.NoError(t, rc.raws[i].Do(ctx, "client", "unpause").Err()) })
	}
	t.Cleanup(unpause)
	return unpause
}

// TestRedLockQuorumWithoutOneServer: the servers are asked at once, so a
// RedLock whose share per server is longer than the caller's ctx allows
// still gets its quorum when one server does not answer (paused) or is
// down, wherever that server is in the set's order; the paused server's
// late acquire is given back once the server answers.
func TestRedLockQuorumWithoutOneServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server int
		stop   bool
	}{
		{"first paused", 0, false},
		{"last paused", 2, false},
		{"first stopped", 0, true},
		{"middle stopped", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newRedCluster(t, 3)
			unpause := func() {}
			if tc.stop {
				require.NoError(t, rc.servers[tc.server].Kill())
			} else {
				unpause = rc.pauseWrites(t, tc.server)
			}
			// A share of 10s per server: a RedLock that waited for the
			// silent server before asking the others would run into ctx's
			// deadline.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			h, ok, err := rc.redLock(rc.clients, "res").TryLock(ctx, multilock.WithWait(30*time.Second))
			require.NoError(t, err)
			require.True(t, ok, "2 of 3 servers answer")
			require.Len(t, h.Held(), 2)
			require.Equal(t, 2, rc.held(t, "res", tc.server))
			require.NoError(t, h.Err())
			require.NoError(t, h.Unlock(context.Background()))
			require.Equal(t, 0, rc.held(t, "res", tc.server))
			if !tc.stop {
				unpause()
				redistest.Eventually(t, 10*time.Second, "the paused server's late acquire is given back", func() bool {
					return rc.raws[tc.server].Exists(context.Background(), "res").Val() == 0
				})
			}
		})
	}
}

// TestRedLockCancelWithTriesInFlight: a RedLock acquire cancelled while
// its tries are on their way to servers that have not run them yet returns
// only once whatever they took is given back: when it returns, no server
// has the lock.
func TestRedLockCancelWithTriesInFlight(t *testing.T) {
	rc := newRedCluster(t, 3)
	unpause1, unpause2 := rc.pauseWrites(t, 1), rc.pauseWrites(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	type outcome struct {
		h   *multilock.Hold
		ok  bool
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		h, ok, err := rc.redLock(rc.clients, "res").TryLock(ctx, multilock.WithWait(30*time.Second))
		done <- outcome{h, ok, err}
	}()
	// Server 0 answered (it holds the lock for us), 1 and 2 hold the
	// scripts: the quorum is still open.
	redistest.Eventually(t, 10*time.Second, "server 0 took the lock", func() bool {
		return rc.raws[0].Exists(context.Background(), "res").Val() == 1
	})
	cancel()
	// The tries in flight run once the servers answer again; the acquire
	// waits for them and gives back what they took.
	unpause1()
	unpause2()
	o := <-done
	require.False(t, o.ok)
	require.Nil(t, o.h)
	require.ErrorIs(t, o.err, context.Canceled)
	rc.requireNothingHeld(t)
}

// TestRedLockCancelledAtAnyPointLeavesNothing cancels RedLock acquires at
// random points, uncontended and while another RedLock holds the lock: an
// acquire that fails leaves no member of ours on any server when it
// returns; one that succeeded leaves none once released (a try still
// running when the quorum was reached may end a little later).
func TestRedLockCancelledAtAnyPointLeavesNothing(t *testing.T) {
	rc := newRedCluster(t, 3)
	other := make([]*redisson.Client, 3)
	for i, s := range rc.servers {
		other[i] = redissontest.ClientAt(t, s.Addr())
	}
	rl := rc.redLock(rc.clients, "res")
	blocker := rc.redLock(other, "res")
	for i := range 60 {
		var bh *multilock.Hold
		if i%3 == 2 {
			var err error
			bh, err = blocker.Lock(context.Background())
			require.NoError(t, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Duration(rand.IntN(3000))*time.Microsecond, cancel)
		h, err := rl.Lock(ctx)
		cancel()
		if err != nil {
			require.ErrorIs(t, err, context.Canceled)
			for _, c := range rc.clients {
				require.Zero(t, c.Stats().Leases, "round %d (blocked: %v): a member was left held", i, bh != nil)
			}
			if bh == nil {
				require.Equal(t, 0, rc.held(t, "res"), "round %d: a member was left held", i)
			}
			for k, r := range rc.raws { // the blocker's field only
				require.LessOrEqual(t, r.HLen(context.Background(), "res").Val(), int64(1), "round %d, server %d", i, k)
			}
		} else {
			require.NoError(t, h.Unlock(context.Background()))
		}
		if bh != nil {
			require.NoError(t, bh.Unlock(context.Background()))
		}
		redistest.Eventually(t, 10*time.Second, fmt.Sprintf("round %d: nothing held", i), func() bool {
			for _, c := range rc.clients {
				if c.Stats().Leases != 0 {
					return false
				}
			}
			return rc.held(t, "res") == 0
		})
	}
}

// TestRedLockContentionOneOwner: RedLocks of two sets of Clients (two
// processes, as it were) on the same servers, taken by several goroutines
// each, with Lock, TryLock with a wait and TryLock without one, never
// have two owners at once: no overlap, no lost update, and every Lock
// gets the lock (its ctx has no deadline: a Lock that never returns is
// the test binary's timeout). A TryLock may fail; a failed one without
// wait backs off a little, as a caller polling the lock would.
func TestRedLockContentionOneOwner(t *testing.T) {
	for _, n := range []int{3, 5} {
		t.Run(fmt.Sprintf("%d servers", n), func(t *testing.T) {
			rc := newRedCluster(t, n)
			sets := [][]*redisson.Client{rc.clients, make([]*redisson.Client, n)}
			for i, s := range rc.servers {
				sets[1][i] = redissontest.ClientAt(t, s.Addr())
			}
			const goroutines, rounds = 4, 25
			var inside, overlaps, acquired, locks atomic.Int64
			var counter int64 // guarded by the RedLock only
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make(chan error, 2*goroutines)
			for p, clients := range sets {
				for g := range goroutines {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rl := rc.redLock(clients, "res")
						for k := range rounds {
							var h *multilock.Hold
							var ok bool
							var err error
							mode := (p + g + k) % 3
							switch mode {
							case 0:
								h, err = rl.Lock(ctx)
								ok = err == nil
								locks.Add(1)
							case 1:
								h, ok, err = rl.TryLock(ctx, multilock.WithWait(2*time.Second))
							default:
								h, ok, err = rl.TryLock(ctx)
							}
							if err != nil {
								errs <- err
								return
							}
							if !ok {
								if mode == 2 {
									time.Sleep(time.Duration(500+rand.IntN(1500)) * time.Microsecond)
								}
								continue
							}
							if inside.Add(1) > 1 {
								overlaps.Add(1)
							}
							c := counter
							time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
							counter = c + 1
							inside.Add(-1)
							acquired.Add(1)
							if err := h.Unlock(context.Background()); err != nil {
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
			require.Zero(t, overlaps.Load(), "two owners held the RedLock at once")
			require.GreaterOrEqual(t, acquired.Load(), locks.Load(), "every Lock holds the lock once")
			require.Equal(t, acquired.Load(), counter, "updates were lost")
			redistest.Eventually(t, 10*time.Second, "nothing left held", func() bool { return rc.held(t, "res") == 0 })
		})
	}
}

// TestRedLockFirstPassGivesWayToHolder: a waiting RedLock whose first
// pass finds a member held by another owner does not take the lock from
// the other servers, even when they are a quorum: it gives them back and
// waits in the set's order, as Redisson's one-after-another pass does, so
// that an owner holding the first member while it waits for the others is
// not starved by owners that find the rest free. Once the first member is
// free it holds it, and a quorum (the others may answer after the grace).
func TestRedLockFirstPassGivesWayToHolder(t *testing.T) {
	rc := newRedCluster(t, 3)
	ctx := context.Background()
	blocker, err := redissontest.ClientAt(t, rc.servers[0].Addr()).Lock("res").Lock(ctx)
	require.NoError(t, err)
	got := make(chan error, 1)
	var held []string
	var heldFirst bool // server 0 has the lock, which only we can hold then
	go func() {
		h, ok, err := rc.redLock(rc.clients, "res").TryLock(ctx, multilock.WithWait(30*time.Second))
		if err == nil && !ok {
			err = errors.New("not acquired")
		}
		if err == nil {
			held = h.Held()
			heldFirst = rc.raws[0].Exists(ctx, "res").Val() == 1
			err = h.Unlock(ctx)
		}
		got <- err
	}()
	redistest.Eventually(t, 10*time.Second, "the RedLock waits for server 0", func() bool {
		return rc.clients[0].Stats().PubSub.Waiters > 0
	})
	require.Equal(t, 0, rc.held(t, "res", 0), "the first pass kept servers 1 and 2")
	require.NoError(t, blocker.Unlock(ctx))
	require.NoError(t, <-got)
	require.True(t, heldFirst, "the hold lacks server 0's member")
	require.GreaterOrEqual(t, len(held), 2)
	require.Equal(t, 0, rc.held(t, "res"))
}

// blocked returns how many clients server i holds back (a paused
// server's queued writes among them).
func (rc *redCluster) blocked(t *testing.T, i int) int {
	t.Helper()
	info, err := rc.raws[i].Info(context.Background(), "clients").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "blocked_clients:"); ok {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("INFO clients has no blocked_clients")
	return 0
}

// TestRedLockFailedFinishWaitsForLateTries: an acquire whose quorum
// answered while its try on a paused server was still on its way, and
// which then fails (a lease of 2ms leaves no validity: Err wraps
// ErrLeaseExpired), returns only once that try has ended: the server answers
// only once the acquire had ample time to return (a bound of the wait
// would have let it return earlier).
//
// What the late try took cannot be given back: its lease counts from its
// send, 300 ms before the reply, so the member's hold had ended by the
// client's count when the reply came, and no release may be sent for an
// ended hold (it could take a later hold of the same owner). Redis counts
// the 2 ms from when the script ran, so the member may still be there when
// the acquire returns, with at most its lease to live: that, and no lease
// tracked by any client, is what is left. (It once read "nothing held",
// which held only when the check came more than 2 ms after the reply.)
func TestRedLockFailedFinishWaitsForLateTries(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []multilock.Option
	}{
		{"without wait", []multilock.Option{multilock.WithLease(2 * time.Millisecond)}},
		{"with wait", []multilock.Option{multilock.WithWait(30 * time.Second), multilock.WithLease(2 * time.Millisecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newRedCluster(t, 3)
			unpause := rc.pauseWrites(t, 2)
			type outcome struct {
				h   *multilock.Hold
				ok  bool
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				h, ok, err := rc.redLock(rc.clients, "res").TryLock(context.Background(), tc.opts...)
				done <- outcome{h, ok, err}
			}()
			redistest.Eventually(t, 10*time.Second, "the try on server 2 is queued", func() bool { return rc.blocked(t, 2) > 0 })
			// Servers 0 and 1 answer at once: the acquire decides within
			// its grace (at most 100ms) and fails; it must not return
			// before server 2 answers.
			select {
			case o := <-done:
				t.Fatalf("the acquire returned (ok=%v, err=%v) with its try on the paused server in flight", o.ok, o.err)
			case <-time.After(300 * time.Millisecond):
			}
			unpause()
			o := <-done
			require.False(t, o.ok)
			require.Nil(t, o.h)
			require.ErrorIs(t, o.err, redisson.ErrLeaseExpired)
			require.Zero(t, rc.blocked(t, 2), "the late try has run")
			for i, r := range rc.raws {
				// One script: the key and its TTL at the same instant.
				v, err := r.Eval(context.Background(), "return {redis.call('exists', KEYS[1]), redis.call('pttl', KEYS[1])}", []string{"res"}).Result()
				require.NoError(t, err)
				if a := v.([]any); a[0].(int64) == 1 {
					require.LessOrEqual(t, a[1].(int64), int64(2), "server %d's member lives past its 2 ms lease", i)
				}
			}
			rc.requireLeasesNone(t)
		})
	}
}

// TestRedLockNoSuccessAfterTheWait: as in Redisson's pass, a quorum that
// is complete only once the wait is over is given back and the acquire
// fails: the members on servers 0 and 1, paused, are taken after the
// deadline (each try is bounded by its share, about 17ms, plus the 100ms
// member grace, so it is still running then).
func TestRedLockNoSuccessAfterTheWait(t *testing.T) {
	rc := newRedCluster(t, 3)
	unpause0, unpause1 := rc.pauseWrites(t, 0), rc.pauseWrites(t, 1)
	const wait = 50 * time.Millisecond
	type outcome struct {
		h   *multilock.Hold
		ok  bool
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		h, ok, err := rc.redLock(rc.clients, "res").TryLock(context.Background(), multilock.WithWait(wait))
		done <- outcome{h, ok, err}
	}()
	redistest.Eventually(t, 10*time.Second, "the tries on servers 0 and 1 are queued", func() bool {
		return rc.blocked(t, 0) > 0 && rc.blocked(t, 1) > 0
	})
	// The wait began before the tries were sent: it is over after this.
	time.Sleep(wait + 10*time.Millisecond)
	unpause0()
	unpause1()
	o := <-done
	require.NoError(t, o.err)
	require.False(t, o.ok, "the RedLock was taken after its wait was over")
	require.Nil(t, o.h)
	redistest.Eventually(t, 10*time.Second, "nothing left held", func() bool { return rc.held(t, "res") == 0 })
	rc.requireLeasesNone(t)
}

// requireNothingHeld: no server holds "res" and no client tracks a lease.
func (rc *redCluster) requireNothingHeld(t *testing.T) {
	t.Helper()
	require.Equal(t, 0, rc.held(t, "res"), "a member was left held")
	rc.requireLeasesNone(t)
}

// requireLeasesNone: no client tracks a lease.
func (rc *redCluster) requireLeasesNone(t *testing.T) {
	t.Helper()
	for _, c := range rc.clients {
		require.Zero(t, c.Stats().Leases)
	}
}

// TestRedLockUnlockFreesReachableMembers: a RedLock's Unlock with one of
// its servers not answering (writes paused) frees the members on the other
// servers without waiting for it, however the hold was taken (first pass,
// or in the set's order after waiting for another owner) and wherever the
// silent server is in the set's order: while the silent server still
// holds its member and its release is queued, the others' keys are gone.
// Once the server answers, its release runs too and Unlock returns.
func TestRedLockUnlockFreesReachableMembers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		contended bool
		paused    int
	}{
		{"first pass, first paused", false, 0},
		{"first pass, last paused", false, 2},
		{"after waiting, first paused", true, 0},
		{"after waiting, middle paused", true, 1},
		{"after waiting, last paused", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newRedClusterPatient(t, 3)
			h := rc.holdAll(t, tc.contended)
			unpause := rc.pauseWrites(t, tc.paused)
			unlocked := make(chan error, 1)
			go func() { unlocked <- h.Unlock(context.Background()) }()
			redistest.Eventually(t, 10*time.Second, "the release on the paused server is queued", func() bool { return rc.blocked(t, tc.paused) > 0 })
			redistest.Eventually(t, 10*time.Second, "the reachable members are freed", func() bool { return rc.held(t, "res", tc.paused) == 0 })
			// Reads pass the pause: the paused server's member is still
			// held and its release still queued, so the others were freed
			// without waiting for it.
			require.Equal(t, int64(1), rc.raws[tc.paused].Exists(context.Background(), "res").Val())
			require.Positive(t, rc.blocked(t, tc.paused))
			unpause()
			require.NoError(t, <-unlocked)
			rc.requireNothingHeld(t)
		})
	}
}

// newRedClusterPatient is newRedCluster with clients that wait 30s for a
// reply (go-redis' timeouts and the Client's Timeout, which bounds a
// release): a server paused by a test then delays a call rather than
// failing it.
func newRedClusterPatient(t *testing.T, n int) *redCluster {
	t.Helper()
	rc := &redCluster{servers: redistest.StartMasters(t, n)}
	for _, s := range rc.servers {
		rdb := redistest.Client(t, s, func(o *redis.Options) {
			o.ReadTimeout, o.WriteTimeout = 30*time.Second, 30*time.Second
		})
		c, err := redisson.New(rdb, redisson.WithTimeout(30*time.Second))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		rc.clients = append(rc.clients, c)
		rc.raws = append(rc.raws, redistest.Client(t, s))
	}
	return rc
}

// holdAll returns a hold of rc.clients' RedLock on "res" with every
// member. With contended, another owner holds server 0's lock when the
// acquire starts, so that the RedLock's first pass gives way and it takes
// the set in the set's order once that owner releases. A hold that did
// not get every member (a reply later than the acquire's grace on a busy
// machine) is released and the acquire repeated.
func (rc *redCluster) holdAll(t *testing.T, contended bool) *multilock.Hold {
	t.Helper()
	ctx := context.Background()
	rl := rc.redLock(rc.clients, "res")
	var blockerClient *redisson.Client
	if contended {
		blockerClient = redissontest.ClientAt(t, rc.servers[0].Addr())
	}
	for attempt := 1; ; attempt++ {
		require.LessOrEqual(t, attempt, 20, "no hold of every member in 20 acquires")
		var h *multilock.Hold
		if !contended {
			var err error
			h, err = rl.Lock(ctx)
			require.NoError(t, err)
		} else {
			blocker, err := blockerClient.Lock("res").Lock(ctx)
			require.NoError(t, err)
			waiters := rc.clients[0].Stats().PubSub.Waiters
			type outcome struct {
				h   *multilock.Hold
				err error
			}
			got := make(chan outcome, 1)
			go func() {
				h, err := rl.Lock(ctx)
				got <- outcome{h, err}
			}()
			redistest.Eventually(t, 10*time.Second, "the RedLock waits for server 0", func() bool {
				return rc.clients[0].Stats().PubSub.Waiters > waiters
			})
			require.NoError(t, blocker.Unlock(ctx))
			o := <-got
			require.NoError(t, o.err)
			h = o.h
		}
		if len(h.Held()) == len(rc.clients) {
			return h
		}
		require.NoError(t, h.Unlock(ctx))
		redistest.Eventually(t, 10*time.Second, "nothing left held", func() bool { return rc.held(t, "res") == 0 })
	}
}
