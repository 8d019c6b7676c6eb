package redisson_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
)

// giveUpCase is one object raced by waiters that give up: take tries once
// or waits under ctx; release gives back what take got. check reads Redis
// once every client that raced is closed, and fresh tries an acquire on a
// new client that must succeed at once.
type giveUpCase struct {
	name  string
	setup func(t *testing.T, c *redisson.Client)
	// holder is what the other client's holder goroutine takes; nil: take.
	holder func(c *redisson.Client) taker
	take   func(c *redisson.Client) taker
	check  func(t *testing.T, rdb *redis.Client)
	fresh  func(t *testing.T, c *redisson.Client)
	// granted, when set, checks what the acquisitions that succeeded
	// (took) left, on a fresh client.
	granted func(t *testing.T, c *redisson.Client, took int64)
}

// taker acquires under ctx (waiting until ctx ends) and returns how to let
// go of what it got.
type taker func(ctx context.Context) (release func(context.Context) error, ok bool, err error)

type unlocker interface{ Unlock(context.Context) error }

// holdOf adapts a lock kind's Lock to a taker.
func holdOf[H unlocker, O any](lock func(ctx context.Context, opts ...O) (H, error)) taker {
	return func(ctx context.Context) (func(context.Context) error, bool, error) {
		h, err := lock(ctx)
		if err != nil {
			return nil, false, err
		}
		return h.Unlock, true, nil
	}
}

// giveUpRate is the rate limiter's rate in the give-up race: more than it
// grants in an hour.
const giveUpRate = 10_000_000

// giveUpDuration is how long each object is raced: REDISSON_GIVEUP (a Go
// duration) or 1.5 s.
func giveUpDuration(t *testing.T) time.Duration {
	if v := os.Getenv("REDISSON_GIVEUP"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		return d
	}
	return 1500 * time.Millisecond
}

// keysBut returns every key in rdb's database, sorted, but Redisson's unlock
// latches (their TTL is the client's timeout: they are how a repeated
// unlock learns the first one's answer, not state of any object) and the
// clients' registration records.
func keysBut(t *testing.T, rdb *redis.Client) []string {
	t.Helper()
	keys := redistest.Keys(t, rdb, "*")
	return slices.DeleteFunc(keys, func(k string) bool { return strings.HasPrefix(k, "redisson_unlock_latch") })
}

// noKeys checks that nothing but unlock latches is left.
func noKeys(t *testing.T, rdb *redis.Client) {
	t.Helper()
	require.Empty(t, keysBut(t, rdb), "keys left behind")
}

func TestGiveUpLeavesNothingBehind(t *testing.T) {
	lockFresh := func(take func(c *redisson.Client) taker) func(t *testing.T, c *redisson.Client) {
		return func(t *testing.T, c *redisson.Client) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			release, ok, err := take(c)(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, release(ctx))
		}
	}
	rlockTake := func(c *redisson.Client) taker { return holdOf(c.Lock("gu").Lock) }
	fairTake := func(c *redisson.Client) taker { return holdOf(c.FairLock("gu").Lock) }
	fencedTake := func(c *redisson.Client) taker { return holdOf(c.FencedLock("gu").Lock) }
	readTake := func(c *redisson.Client) taker { return holdOf(c.ReadWriteLock("gu").ReadLock().Lock) }
	writeTake := func(c *redisson.Client) taker { return holdOf(c.ReadWriteLock("gu").WriteLock().Lock) }
	multiTake := func(c *redisson.Client) taker {
		m := multilock.New(c.Lock("gu1"), c.Lock("gu2"), c.Lock("gu3"))
		return holdOf(m.Lock)
	}
	groupTake := func(c *redisson.Client) taker {
		return holdOf(c.MultiLockGroup("gu", "a", "b", "c").Lock)
	}
	semTake := func(c *redisson.Client) taker {
		return func(ctx context.Context) (func(context.Context) error, bool, error) {
			p, err := c.Semaphore("gu").AcquirePermits(ctx, 1)
			if err != nil {
				return nil, false, err
			}
			return p.Release, true, nil
		}
	}
	expTake := func(c *redisson.Client) taker {
		return func(ctx context.Context) (func(context.Context) error, bool, error) {
			s := c.PermitExpirableSemaphore("gu")
			id, err := s.Acquire(ctx)
			if err != nil {
				return nil, false, err
			}
			return func(ctx context.Context) error { return s.Release(ctx, id) }, true, nil
		}
	}
	latchTake := func(c *redisson.Client) taker {
		return func(ctx context.Context) (func(context.Context) error, bool, error) {
			ok, err := c.CountDownLatch("gu").Await(ctx)
			return func(context.Context) error { return nil }, ok, err
		}
	}
	permits := func(want string) func(t *testing.T, rdb *redis.Client) {
		return func(t *testing.T, rdb *redis.Client) {
			require.Equal(t, []string{"gu"}, keysBut(t, rdb))
			v, err := rdb.Get(context.Background(), "gu").Result()
			require.NoError(t, err)
			require.Equal(t, want, v, "permits")
		}
	}
	cases := []giveUpCase{
		{name: "lock", take: rlockTake, check: noKeys, fresh: lockFresh(rlockTake)},
		{name: "fair lock", take: fairTake, check: noKeys, fresh: lockFresh(fairTake)},
		{
			name: "fenced lock", take: fencedTake, fresh: lockFresh(fencedTake),
			// The token counter stays, as in Redisson.
			check: func(t *testing.T, rdb *redis.Client) {
				require.Equal(t, []string{"redisson_lock_token:{gu}"}, keysBut(t, rdb))
			},
		},
		{name: "read lock", holder: writeTake, take: readTake, check: noKeys, fresh: lockFresh(writeTake)},
		{name: "write lock", holder: readTake, take: writeTake, check: noKeys, fresh: lockFresh(writeTake)},
		{name: "multi-lock", take: multiTake, check: noKeys, fresh: lockFresh(multiTake)},
		{name: "group multi-lock", take: groupTake, check: noKeys, fresh: lockFresh(groupTake)},
		{
			name: "semaphore", take: semTake, check: permits("2"),
			setup: func(t *testing.T, c *redisson.Client) {
				_, err := c.Semaphore("gu").TrySetPermits(context.Background(), 2)
				require.NoError(t, err)
			},
			fresh: func(t *testing.T, c *redisson.Client) {
				ok, err := c.Semaphore("gu").TryAcquire(context.Background(), 2)
				require.NoError(t, err)
				require.True(t, ok)
			},
		},
		{
			name: "permit-expirable semaphore", take: expTake,
			setup: func(t *testing.T, c *redisson.Client) {
				_, err := c.PermitExpirableSemaphore("gu").TrySetPermits(context.Background(), 2)
				require.NoError(t, err)
			},
			check: func(t *testing.T, rdb *redis.Client) {
				ctx := context.Background()
				for _, k := range keysBut(t, rdb) {
					if k == "gu" {
						continue
					}
					// The permit zset and the permits hash of 4.x lay-outs
					// hold nothing once every permit is back.
					typ, err := rdb.Type(ctx, k).Result()
					require.NoError(t, err)
					t.Fatalf("key %q (%s) left behind", k, typ)
				}
				v, err := rdb.Get(ctx, "gu").Result()
				require.NoError(t, err)
				require.Equal(t, "2", v, "permits")
			},
			fresh: func(t *testing.T, c *redisson.Client) {
				ids, ok, err := c.PermitExpirableSemaphore("gu").TryAcquireN(context.Background(), 2)
				require.NoError(t, err)
				require.True(t, ok)
				require.Len(t, ids, 2)
			},
		},
		{
			name: "latch", take: latchTake,
			holder: func(c *redisson.Client) taker {
				// Count down and set again: waiters are released and
				// parked again all the time.
				return func(ctx context.Context) (func(context.Context) error, bool, error) {
					l := c.CountDownLatch("gu")
					if err := l.CountDown(ctx); err != nil {
						return nil, false, err
					}
					_, err := l.TrySetCount(ctx, 1)
					return func(context.Context) error { return nil }, err == nil, err
				}
			},
			setup: func(t *testing.T, c *redisson.Client) {
				_, err := c.CountDownLatch("gu").TrySetCount(context.Background(), 1)
				require.NoError(t, err)
			},
			check: func(t *testing.T, rdb *redis.Client) {
				require.Equal(t, []string{"gu"}, keysBut(t, rdb))
			},
			fresh: func(t *testing.T, c *redisson.Client) {
				l := c.CountDownLatch("gu")
				require.NoError(t, l.CountDown(context.Background()))
				ok, err := l.Await(context.Background(), latch.WithTimeout(time.Second))
				require.NoError(t, err)
				require.True(t, ok)
			},
		},
		{
			// A rate that the race cannot use up within a window that
			// does not move: every permit the window lacks is one that a
			// caller got.
			name: "rate limiter",
			take: func(c *redisson.Client) taker {
				return func(ctx context.Context) (func(context.Context) error, bool, error) {
					ok, err := c.RateLimiter("gu").TryAcquire(ctx, 1)
					return func(context.Context) error { return nil }, ok, err
				}
			},
			setup: func(t *testing.T, c *redisson.Client) {
				_, err := c.RateLimiter("gu").TrySetRate(context.Background(), ratelimit.Overall, giveUpRate, time.Hour)
				require.NoError(t, err)
			},
			check: func(t *testing.T, rdb *redis.Client) {
				require.Equal(t, []string{"gu", "{gu}:permits", "{gu}:value"}, keysBut(t, rdb))
			},
			granted: func(t *testing.T, c *redisson.Client, took int64) {
				n, err := c.RateLimiter("gu").AvailablePermits(context.Background())
				require.NoError(t, err)
				require.Equal(t, giveUpRate-took, n, "permits granted to nobody")
			},
			fresh: func(t *testing.T, c *redisson.Client) {
				ok, err := c.RateLimiter("gu").TryAcquire(context.Background(), 1)
				require.NoError(t, err)
				require.True(t, ok)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { raceGiveUps(t, tc) })
	}
}

// raceGiveUps races tc's object from two clients: a holder on the first
// takes and lets go in a loop (waiting up to 1 s), and 8 waiters on each client wait with a
// deadline of 1–5 ms (most of them) or 100–500 ms, so that many give up
// while their try is on the wire. Once every client is closed (Close waits
// for what is still settling), Redis must hold nothing but the object's own
// resting state, no subscription may be left, and a fresh acquire succeeds
// at once.
func raceGiveUps(t *testing.T, tc giveUpCase) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	clients := []*redisson.Client{newRaceClient(t, srv), newRaceClient(t, srv)}
	if tc.setup != nil {
		tc.setup(t, clients[0])
	}
	holder := tc.holder
	if holder == nil {
		holder = tc.take
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var gaveUp, took, failed atomic.Int64
	var firstErr atomic.Value
	run := func(take taker, holding bool) {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			d := time.Duration(100+rand.IntN(400)) * time.Millisecond
			switch {
			case holding:
				d = time.Second
			case rand.IntN(5) > 0:
				d = time.Duration(1000+rand.IntN(4000)) * time.Microsecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), d)
			release, ok, err := take(ctx)
			cancel()
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				gaveUp.Add(1)
			case err != nil:
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err)
			case ok:
				took.Add(1)
				if rand.IntN(2) == 0 {
					time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond)
				}
				if err := release(context.Background()); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}
	}
	wg.Add(1)
	go run(holder(clients[0]), true)
	for _, c := range clients {
		for range 8 {
			wg.Add(1)
			go run(tc.take(c), false)
		}
	}
	time.Sleep(giveUpDuration(t)) // how long to race, not a wait for a result
	close(stop)
	wg.Wait()
	t.Logf("%s: %d acquired, %d gave up at their deadline, %d failed", tc.name, took.Load(), gaveUp.Load(), failed.Load())
	if err := firstErr.Load(); err != nil {
		t.Fatalf("an acquire or release failed: %v", err)
	}
	require.Positive(t, gaveUp.Load(), "no waiter gave up: the race was not run")
	// Every waiter has returned: its subscription goes (the hub
	// unsubscribes in the background), while the clients stay open.
	redistest.Eventually(t, 5*time.Second, "no subscription left", func() bool {
		channels, err := rdb.PubSubChannels(context.Background(), "*").Result()
		require.NoError(t, err)
		return len(channels) == 0
	})
	for _, c := range clients {
		require.NoError(t, c.Close())
	}
	tc.check(t, rdb)
	fresh := newRaceClient(t, srv)
	if tc.granted != nil {
		tc.granted(t, fresh, took.Load())
	}
	tc.fresh(t, fresh)
}

// newRaceClient returns a client of srv on a go-redis client of its own.
func newRaceClient(t *testing.T, srv *redistest.Server) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// A try held back on its way to Redis past its caller's deadline is
// compensated after it ran, for every lock kind: sent at once, the undo
// would find nothing to release and the try would then take the lock (or
// queue the waiter) for nobody. The try's write is delayed 200 ms on the
// socket; the caller's deadline is 30 ms.
func TestCompensationAfterDelayedTry(t *testing.T) {
	type take func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error)
	cases := []struct {
		name string
		// held is taken by another client first (the try then queues).
		held  func(c *redisson.Client) taker
		take  take
		check func(t *testing.T, rdb *redis.Client)
	}{
		{name: "lock", check: noKeys, take: func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error) {
			return unlockerOf(c.Lock("d").Lock(ctx, rlock.WithOwner(owner)))
		}},
		{name: "fenced lock", take: func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error) {
			return unlockerOf(c.FencedLock("d").Lock(ctx, fencedlock.WithOwner(owner)))
		}, check: func(t *testing.T, rdb *redis.Client) {
			require.Equal(t, []string{"redisson_lock_token:{d}"}, keysBut(t, rdb))
		}},
		{name: "read lock", check: noKeys, take: func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error) {
			return unlockerOf(c.ReadWriteLock("d").ReadLock().Lock(ctx, rwlock.WithOwner(owner)))
		}},
		{name: "write lock", check: noKeys, take: func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error) {
			return unlockerOf(c.ReadWriteLock("d").WriteLock().Lock(ctx, rwlock.WithOwner(owner)))
		}},
		{name: "multi-lock", check: noKeys, take: func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error) {
			return unlockerOf(multilock.New(c.Lock("d1"), c.Lock("d2")).Lock(ctx, multilock.WithOwner(owner)))
		}},
		{name: "group multi-lock", check: noKeys, take: func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error) {
			return unlockerOf(c.MultiLockGroup("d", "a", "b").Lock(ctx, multilock.WithOwner(owner)))
		}},
		{
			name: "fair lock", take: func(ctx context.Context, c *redisson.Client, owner int64) (unlocker, error) {
				return unlockerOf(c.FairLock("d").Lock(ctx, fairlock.WithOwner(owner)))
			},
			held: func(c *redisson.Client) taker { return holdOf(c.FairLock("d").Lock) },
			check: func(t *testing.T, rdb *redis.Client) {
				require.Equal(t, []string{"d"}, keysBut(t, rdb), "queue or timeout entries left behind")
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			rdb := redistest.Client(t, srv)
			ctx := context.Background()
			owner := redisson.NewOwnerID()
			delay := &delayFirst{marker: []byte(":" + strconv.FormatInt(owner, 10)), written: make(chan struct{})}
			delay.armed.Store(true)
			brdb := redistest.Client(t, srv, func(o *redis.Options) { o.ClientName = "delayed" })
			brdb.AddHook(delay)
			b, err := redisson.New(brdb)
			require.NoError(t, err)
			// A first acquisition loads the scripts: a try answered NOSCRIPT
			// would be sent again with EVAL after its caller had gone,
			// which go-redis refuses for a done context.
			h, err := tc.take(ctx, b, redisson.NewOwnerID())
			require.NoError(t, err)
			require.NoError(t, h.Unlock(ctx))
			if tc.held != nil {
				_, ok, err := tc.held(newRaceClient(t, srv))(ctx)
				require.NoError(t, err)
				require.True(t, ok)
			}
			wctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
			_, err = tc.take(wctx, b, owner)
			cancel()
			require.ErrorIs(t, err, context.DeadlineExceeded)
			select {
			case <-delay.written:
			case <-time.After(5 * time.Second):
				t.Fatal("the held-back try was never written")
			}
			// Close waits for what is still settling.
			require.NoError(t, b.Close())
			// Redis runs what a connection sent before it drops it: once
			// B's connections are gone, the try has run.
			require.NoError(t, brdb.Close())
			redistest.Eventually(t, 5*time.Second, "B's connections closed", func() bool {
				list, err := rdb.ClientList(ctx).Result()
				require.NoError(t, err)
				return !strings.Contains(list, "name=delayed")
			})
			tc.check(t, rdb)
		})
	}
}

// unlockerOf returns a lock kind's hold as an unlocker, nil when err is set.
func unlockerOf[H unlocker](h H, err error) (unlocker, error) {
	if err != nil {
		return nil, err
	}
	return h, nil
}

// delayFirst holds back, on the socket, the first write that carries
// marker by 200 ms, and closes written once that write is done: the
// command is on its way while its caller gives up.
type delayFirst struct {
	marker  []byte
	armed   atomic.Bool
	written chan struct{}
}

func (d *delayFirst) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return delayConn{Conn: c, d: d}, nil
	}
}
func (d *delayFirst) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (d *delayFirst) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

type delayConn struct {
	net.Conn
	d *delayFirst
}

func (c delayConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, c.d.marker) && c.d.armed.CompareAndSwap(true, false) {
		time.Sleep(200 * time.Millisecond) // the command's delay on its way, not a wait for a result
		defer close(c.d.written)
	}
	return c.Conn.Write(b)
}
