package semaphore_test

import (
	"context"
	"encoding/hex"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/leakcheck"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/semaphore"
)

// held is one zset member of {name}:timeout as the test reads it: the id in
// hex and the lease left (math.MaxInt64 without a lease).
type held struct {
	id   string
	left time.Duration
}

// rawHeld reads the timeout zset: ids in hex, scores relative to now.
func rawHeld(t testing.TB, raw *redis.Client, name string) []held {
	t.Helper()
	z, err := raw.ZRangeWithScores(context.Background(), "{"+name+"}:timeout", 0, -1).Result()
	require.NoError(t, err)
	now := time.Now().UnixMilli()
	out := make([]held, len(z))
	for i, m := range z {
		member := m.Member.(string)
		require.Len(t, member, 16, "ids are stored as 16 raw bytes")
		left := time.Duration(math.MaxInt64)
		if m.Score != 922337203685477 {
			left = time.Duration(int64(m.Score)-now) * time.Millisecond
		}
		out[i] = held{hex.EncodeToString([]byte(member)), left}
	}
	return out
}

// TestExpirableRawState checks the keys, the zset, TTLs and messages after
// each operation against §9.
func TestExpirableRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	s := c.PermitExpirableSemaphore("jobs")
	pub := redistest.Capture(t, raw)
	const ch = "redisson_sc:{jobs}"

	ok, err := s.TrySetPermits(ctx, 3)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "3", rawValue(t, raw, "jobs"))
	require.Equal(t, []redistest.Message{{Channel: ch, Payload: "3"}}, pub.Drain(t))

	leased, err := s.Acquire(ctx, semaphore.WithLease(10*time.Second))
	require.NoError(t, err)
	require.Regexp(t, "^[0-9a-f]{32}$", leased)
	forever, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.Equal(t, "1", rawValue(t, raw, "jobs"))
	hs := rawHeld(t, raw, "jobs")
	require.Len(t, hs, 2)
	require.Equal(t, leased, hs[0].id, "ordered by expiry")
	require.InDelta(t, 10*time.Second, hs[0].left, float64(time.Second))
	require.Equal(t, held{forever, math.MaxInt64}, hs[1])
	require.Empty(t, pub.Drain(t), "an acquire publishes nothing")

	// A TTL on the semaphore's key is copied to the zset by an acquire.
	require.NoError(t, raw.PExpire(ctx, "jobs", time.Minute).Err())
	third, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.InDelta(t, time.Minute, raw.PTTL(ctx, "{jobs}:timeout").Val(), float64(2*time.Second))
	require.NoError(t, raw.Persist(ctx, "jobs").Err())
	require.NoError(t, raw.Persist(ctx, "{jobs}:timeout").Err())

	_, ok, err = s.TryAcquire(ctx)
	require.NoError(t, err)
	require.False(t, ok, "exhausted")

	ok, err = s.UpdateLeaseTime(ctx, forever, 20*time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	left, err := s.LeaseTime(ctx, forever)
	require.NoError(t, err)
	require.InDelta(t, 20*time.Second, left, float64(time.Second))
	left, err = s.LeaseTime(ctx, third)
	require.NoError(t, err)
	require.Equal(t, time.Duration(-1), left)

	require.NoError(t, s.Release(ctx, third))
	require.Equal(t, "1", rawValue(t, raw, "jobs"))
	require.Equal(t, []redistest.Message{{Channel: ch, Payload: "1"}}, pub.Drain(t), "release publishes the new count")
	require.ErrorIs(t, s.Release(ctx, third), semaphore.ErrUnknownPermit)
	require.ErrorIs(t, s.Release(ctx, third), redisson.ErrNotOwner)
	require.Empty(t, pub.Drain(t))

	counts := func() [3]int {
		a, err := s.AvailablePermits(ctx)
		require.NoError(t, err)
		p, err := s.Permits(ctx)
		require.NoError(t, err)
		h, err := s.AcquiredPermits(ctx)
		require.NoError(t, err)
		return [3]int{a, p, h}
	}
	require.Equal(t, [3]int{1, 3, 2}, counts())

	require.NoError(t, s.SetPermits(ctx, 5))
	require.Equal(t, "3", rawValue(t, raw, "jobs"), "5 in all, 2 held")
	require.Equal(t, []redistest.Message{{Channel: ch, Payload: "5"}}, pub.Drain(t))
	require.NoError(t, s.AddPermits(ctx, -1))
	require.Empty(t, pub.Drain(t), "a negative delta publishes nothing")
	require.NoError(t, s.AddPermits(ctx, 2))
	require.Equal(t, []redistest.Message{{Channel: ch, Payload: "2"}}, pub.Drain(t), "the delta, not the total")
	require.Equal(t, [3]int{4, 6, 2}, counts())

	ok, err = s.Delete(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Zero(t, raw.Exists(ctx, "jobs", "{jobs}:timeout").Val())
}

// TestExpiredPermitComesBack: a holder that never releases loses its permit
// when the lease ends; a waiter gets it without any message (the acquire
// script's earliest-expiry reply times its re-check), the count is whole
// afterwards and the late release is a clear error.
func TestExpiredPermitComesBack(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	holder := redissontest.ClientAt(t, srv.Addr()).PermitExpirableSemaphore("lease")
	waiter := redissontest.ClientAt(t, srv.Addr()).PermitExpirableSemaphore("lease")
	_, err := holder.TrySetPermits(ctx, 1)
	require.NoError(t, err)
	old, err := holder.Acquire(ctx, semaphore.WithLease(300*time.Millisecond))
	require.NoError(t, err)

	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second) // far below the 30 s re-check
	defer cancel()
	id, err := waiter.Acquire(wctx, semaphore.WithLease(time.Minute))
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond)
	require.Less(t, time.Since(start), 5*time.Second)
	require.NotEqual(t, old, id)
	require.Equal(t, "0", rawValue(t, raw, "lease"))

	ok, err := holder.TryRelease(ctx, old)
	require.NoError(t, err)
	require.False(t, ok)
	require.ErrorIs(t, holder.Release(ctx, old), semaphore.ErrUnknownPermit)
	_, err = holder.LeaseTime(ctx, old)
	require.ErrorIs(t, err, semaphore.ErrUnknownPermit)
	ok, err = holder.UpdateLeaseTime(ctx, old, time.Second)
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, waiter.Release(ctx, id))
	require.Equal(t, "1", rawValue(t, raw, "lease"))
}

// TestExpirableTryAcquireWait: a wait that runs out is false with a nil
// error; one that sees a release takes the permit.
func TestExpirableTryAcquireWait(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	s := redissontest.ClientAt(t, srv.Addr()).PermitExpirableSemaphore("w")
	_, err := s.TrySetPermits(ctx, 1)
	require.NoError(t, err)
	id, err := s.Acquire(ctx)
	require.NoError(t, err)
	start := time.Now()
	_, ok, err := s.TryAcquire(ctx, semaphore.WithWait(150*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)

	got := make(chan bool, 1)
	other := redissontest.ClientAt(t, srv.Addr()).PermitExpirableSemaphore("w")
	go func() {
		_, ok, err := other.TryAcquire(ctx, semaphore.WithWait(10*time.Second))
		got <- ok && err == nil
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool {
		return redistest.NumSub(t, redistest.Client(t, srv), keys.SemaphoreChannel("w")) == 1
	})
	require.NoError(t, s.Release(ctx, id))
	require.True(t, <-got)
}

// TestExpirableCancelledWaits: 1000 cancelled waits of two clients lose or
// create no permit and leave no subscription and no goroutine.
func TestExpirableCancelledWaits(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	before := leakcheck.Current()
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	s := clients[0].PermitExpirableSemaphore("busy")
	_, err := s.TrySetPermits(ctx, 1)
	require.NoError(t, err)
	id, err := s.Acquire(ctx, semaphore.WithLease(time.Minute))
	require.NoError(t, err)

	const waiters = 1000
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var cancelled atomic.Int64
	for i := range waiters {
		w := clients[i%2].PermitExpirableSemaphore("busy")
		wg.Go(func() {
			_, err := w.Acquire(wctx, semaphore.WithLease(time.Minute))
			if err != nil {
				require.ErrorIs(t, err, context.Canceled)
				cancelled.Add(1)
			}
		})
	}
	redistest.Eventually(t, 20*time.Second, "all waiters wait", func() bool {
		return clients[0].Stats().PubSub.Waiters+clients[1].Stats().PubSub.Waiters == waiters
	})
	cancel()
	wg.Wait()
	require.Equal(t, int64(waiters), cancelled.Load())
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.SemaphoreChannel("busy")) == 0
	})
	require.Equal(t, "0", rawValue(t, raw, "busy"))
	require.Len(t, rawHeld(t, raw, "busy"), 1)
	require.NoError(t, s.Release(ctx, id))
	// An acquire whose caller left may still be queued behind the others
	// and take the permit for a moment: it gives it back at once.
	redistest.Eventually(t, 10*time.Second, "the permit is back", func() bool {
		return rawValue(t, raw, "busy") == "1" && len(rawHeld(t, raw, "busy")) == 0
	})

	for _, c := range clients {
		require.NoError(t, c.Close())
	}
	leakcheck.Verify(t, before, ignoreRedis...)
}

// TestExpirableNoOverAdmission: 3 clients × 8 goroutines on 3 permits, each
// acquisition with a lease, half of them cancelled at random moments: an
// in-flight gauge never exceeds 3 and every permit is back at the end.
func TestExpirableNoOverAdmission(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	const permits = 3
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	_, err := clients[0].PermitExpirableSemaphore("pool").TrySetPermits(ctx, permits)
	require.NoError(t, err)

	var inFlight, peak, taken atomic.Int64
	var wg sync.WaitGroup
	for _, c := range clients {
		s := c.PermitExpirableSemaphore("pool")
		for g := range 8 {
			wg.Go(func() {
				for i := range 40 {
					actx, cancel := ctx, context.CancelFunc(func() {})
					if (g+i)%2 == 0 {
						actx, cancel = context.WithTimeout(ctx, time.Duration(1+i%20)*time.Millisecond)
					}
					id, err := s.Acquire(actx, semaphore.WithLease(time.Minute))
					cancel()
					if err != nil {
						require.ErrorIs(t, err, context.DeadlineExceeded)
						continue
					}
					n := inFlight.Add(1)
					for old := peak.Load(); n > old && !peak.CompareAndSwap(old, n); old = peak.Load() {
					}
					taken.Add(1)
					work()
					inFlight.Add(-1)
					require.NoError(t, s.Release(ctx, id))
				}
			})
		}
	}
	wg.Wait()
	t.Logf("taken %d, peak %d", taken.Load(), peak.Load())
	require.LessOrEqual(t, peak.Load(), int64(permits))
	require.NotZero(t, taken.Load())
	redistest.Eventually(t, 10*time.Second, "every permit is back", func() bool {
		return rawValue(t, raw, "pool") == "3" && len(rawHeld(t, raw, "pool")) == 0
	})
}

// TestExpirableBadInput: nonsense arguments and a key of another type are
// clear errors and change nothing.
func TestExpirableBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	s := redissontest.ClientAt(t, srv.Addr()).PermitExpirableSemaphore("bad")
	_, err := s.TrySetPermits(ctx, 1)
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"negative permits", func() error { _, err := s.AcquireN(ctx, -1); return err }, redisson.ErrInvalidArgument},
		{"negative set", func() error { return s.SetPermits(ctx, -1) }, redisson.ErrInvalidArgument},
		{"lease below 1ms", func() error { _, err := s.Acquire(ctx, semaphore.WithLease(time.Microsecond)); return err }, redisson.ErrInvalidArgument},
		{"negative wait", func() error { _, _, err := s.TryAcquire(ctx, semaphore.WithWait(-1)); return err }, redisson.ErrInvalidArgument},
		{"malformed id", func() error { return s.Release(ctx, "xyz") }, redisson.ErrInvalidArgument},
		{"unknown id", func() error { return s.Release(ctx, "00112233445566778899aabbccddeeff") }, semaphore.ErrUnknownPermit},
		{"update lease 0", func() error {
			_, err := s.UpdateLeaseTime(ctx, "00112233445566778899aabbccddeeff", 0)
			return err
		}, redisson.ErrInvalidArgument},
		{"more than there are", func() error {
			_, ok, err := s.TryAcquireN(ctx, 2)
			require.False(t, ok)
			return err
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if tc.want == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.want)
			}
			require.Equal(t, "1", rawValue(t, raw, "bad"))
			require.Empty(t, rawHeld(t, raw, "bad"))
		})
	}

	require.NoError(t, raw.HSet(ctx, "other", "f", "v").Err())
	o := redissontest.ClientAt(t, srv.Addr()).PermitExpirableSemaphore("other")
	_, err = o.Acquire(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, err = o.AvailablePermits(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.Equal(t, map[string]string{"f": "v"}, raw.HGetAll(ctx, "other").Val())
}
