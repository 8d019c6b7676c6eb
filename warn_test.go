package redisson_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
)

// warnFail is a slog handler that fails its test on every record at Warn or
// above: ordinary contention and a Close after it are nothing to warn about,
// and a warning there trains readers of the logs to ignore the real ones.
type warnFail struct {
	sink  *warnSink
	attrs string
}

type warnSink struct {
	t    testing.TB
	mu   sync.Mutex
	done bool // the test returned: t must not be used any more
}

func newWarnFail(t testing.TB) *slog.Logger {
	s := &warnSink{t: t}
	// Registered before the clients' cleanups, this one runs after them,
	// so a Close left to cleanup is checked too; Close waits for the
	// client's goroutines, so anything logged later is not this test's.
	t.Cleanup(func() {
		s.mu.Lock()
		s.done = true
		s.mu.Unlock()
	})
	return slog.New(&warnFail{sink: s})
}

func (h *warnFail) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *warnFail) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message + h.attrs
	r.Attrs(func(a slog.Attr) bool {
		msg += fmt.Sprintf(" %s=%v", a.Key, a.Value)
		return true
	})
	h.sink.mu.Lock()
	defer h.sink.mu.Unlock()
	if !h.sink.done {
		h.sink.t.Errorf("logged at %v: %s", r.Level, msg)
	}
	return nil
}

func (h *warnFail) WithAttrs(attrs []slog.Attr) slog.Handler {
	s := h.attrs
	for _, a := range attrs {
		s += fmt.Sprintf(" %s=%v", a.Key, a.Value)
	}
	return &warnFail{sink: h.sink, attrs: s}
}

func (h *warnFail) WithGroup(string) slog.Handler { return h }

// warnClients returns n Clients over rdb logging to a warnFail handler.
// The test closes them itself (the point is that Close logs nothing);
// cleanup closes any it did not.
func warnClients(t *testing.T, rdb redis.UniversalClient, n int) []*redisson.Client {
	t.Helper()
	log := newWarnFail(t)
	cs := make([]*redisson.Client, n)
	for i := range cs {
		c, err := redisson.New(rdb, redisson.WithLogger(log))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		cs[i] = c
	}
	return cs
}

// warnRun runs work in workers goroutines per client and fails the test
// with their errors.
func warnRun(t *testing.T, cs []*redisson.Client, workers int, work func(c *redisson.Client) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(cs)*workers)
	for _, c := range cs {
		for range workers {
			wg.Go(func() {
				if err := work(c); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// warnRounds is how many times each worker takes its object.
const warnRounds = 15

// Every object under ordinary contention, by goroutines of two Clients on
// one server, then Client.Close: nothing logs a warning. Read unlocks while
// other readers hold used to warn that the lock was still held after the
// last local hold (one line per such unlock), and a Close racing a waiter's
// queued unsubscribe that the subscription command failed.
func TestContentionLogsNoWarning(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, ctx context.Context, rdb redis.UniversalClient, cs []*redisson.Client)
	}{
		{"rlock", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				l := c.Lock("w-lock")
				for range warnRounds {
					h, err := l.Lock(ctx)
					if err != nil {
						return err
					}
					// A re-entry: its release leaves the owner's outer hold.
					in, err := l.Lock(ctx, rlock.WithOwner(h.Owner()))
					if err != nil {
						return err
					}
					if err := in.Unlock(ctx); err != nil {
						return err
					}
					if err := h.Unlock(ctx); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"fair lock", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				l := c.FairLock("w-fair")
				for range warnRounds {
					h, err := l.Lock(ctx)
					if err != nil {
						return err
					}
					if err := h.Unlock(ctx); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"fenced lock", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				l := c.FencedLock("w-fenced")
				for range warnRounds {
					h, err := l.Lock(ctx)
					if err != nil {
						return err
					}
					if err := h.Unlock(ctx); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"read-write lock", warnReadWrite},
		{"semaphore", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			s := cs[0].Semaphore("w-sem")
			_, err := s.TrySetPermits(ctx, 2)
			require.NoError(t, err)
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				s := c.Semaphore("w-sem")
				for range warnRounds {
					if err := s.Acquire(ctx, 1); err != nil {
						return err
					}
					if err := s.Release(ctx, 1); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"permit-expirable semaphore", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			_, err := cs[0].PermitExpirableSemaphore("w-psem").TrySetPermits(ctx, 2)
			require.NoError(t, err)
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				s := c.PermitExpirableSemaphore("w-psem")
				for range warnRounds {
					id, err := s.Acquire(ctx)
					if err != nil {
						return err
					}
					if err := s.Release(ctx, id); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"latch", func(t *testing.T, ctx context.Context, rdb redis.UniversalClient, _ []*redisson.Client) {
			warnLatchRounds(t, ctx, rdb, 5)
		}},
		{"rate limiter", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			_, err := cs[0].RateLimiter("w-rate").TrySetRate(ctx, ratelimit.Overall, 10, 100*time.Millisecond)
			require.NoError(t, err)
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				l := c.RateLimiter("w-rate")
				for range 5 {
					if err := l.Acquire(ctx, 1); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"multi-lock", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				// One order for all: opposite orders without a lease make
				// owners fail each other's passes for whole 4.5 s tries
				// (Redisson's wait has no jitter there either).
				m := multilock.New(c.Lock("w-m1"), c.Lock("w-m2"), c.ReadWriteLock("w-mrw").ReadLock())
				for range warnRounds / 3 {
					h, err := m.Lock(ctx)
					if err != nil {
						return err
					}
					if err := h.Unlock(ctx); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"group multi-lock", func(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
			warnRun(t, cs, 3, func(c *redisson.Client) error {
				g := c.MultiLockGroup("w-group", "a", "b")
				for range warnRounds {
					h, err := g.Lock(ctx)
					if err != nil {
						return err
					}
					if err := h.Unlock(ctx); err != nil {
						return err
					}
				}
				return nil
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cs := warnClients(t, rdb, 2)
			tc.run(t, ctx, rdb, cs)
			for _, c := range cs {
				require.NoError(t, c.Close())
			}
		})
	}
}

// warnReadWrite: in each round several readers of both clients hold the
// read lock together, one of them twice (a re-entrant read), and a writer
// waits for them; they release one after another, so that every release
// but the last leaves other readers holding. Then the writer gets the lock
// and releases it.
func warnReadWrite(t *testing.T, ctx context.Context, _ redis.UniversalClient, cs []*redisson.Client) {
	const readers = 4 // per client
	for range warnRounds / 3 {
		var holds []*rwlock.Hold
		for _, c := range cs {
			rl := c.ReadWriteLock("w-rw").ReadLock()
			for range readers {
				h, err := rl.Lock(ctx)
				require.NoError(t, err)
				holds = append(holds, h)
			}
		}
		again, err := cs[0].ReadWriteLock("w-rw").ReadLock().Lock(ctx, rwlock.WithOwner(holds[0].Owner()))
		require.NoError(t, err)
		holds = append(holds, again)
		writerDone := make(chan error, 1)
		go func() {
			h, err := cs[1].ReadWriteLock("w-rw").WriteLock().Lock(ctx)
			if err == nil {
				err = h.Unlock(ctx)
			}
			writerDone <- err
		}()
		redistest.Eventually(t, 10*time.Second, "the writer waits", func() bool { return cs[1].Stats().PubSub.Waiters > 0 })
		for i := len(holds) - 1; i >= 0; i-- {
			require.NoError(t, holds[i].Unlock(ctx))
		}
		select {
		case err := <-writerDone:
			require.NoError(t, err)
		case <-ctx.Done():
			t.Fatal("the writer did not get the lock")
		}
	}
}

// warnLatchRounds runs rounds of a latch of count 2 on fresh Clients over
// rdb: two waiters per client wait for it, the clients count it down, and
// the Clients are closed as soon as the waiters return, while the waiters'
// unsubscribes may still be queued.
func warnLatchRounds(t *testing.T, ctx context.Context, rdb redis.UniversalClient, rounds int) {
	for r := range rounds {
		cs := warnClients(t, rdb, 2)
		name := "w-latch" + strconv.Itoa(r)
		ok, err := cs[0].CountDownLatch(name).TrySetCount(ctx, int64(len(cs)))
		require.NoError(t, err)
		require.True(t, ok)
		var waiters sync.WaitGroup
		results := make(chan error, 2*len(cs))
		for _, c := range cs {
			for range 2 {
				waiters.Go(func() {
					ok, err := c.CountDownLatch(name).Await(ctx)
					if err == nil && !ok {
						err = errors.New("Await reported false")
					}
					results <- err
				})
			}
		}
		for _, c := range cs {
			redistest.Eventually(t, 10*time.Second, "the waiters wait", func() bool { return c.Stats().PubSub.Waiters == 2 })
		}
		for _, c := range cs {
			require.NoError(t, c.CountDownLatch(name).CountDown(ctx))
		}
		waiters.Wait()
		for _, c := range cs {
			require.NoError(t, c.Close())
		}
		close(results)
		for err := range results {
			require.NoError(t, err)
		}
	}
}

// The latch rounds on a cluster with sharded pub/sub (one subscription
// connection per master): Close after the waiters return used to log a
// failed unsubscribe on the closed connection in most runs.
func TestClusterLatchCloseLogsNoWarning(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	rdb := cluster.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	warnLatchRounds(t, ctx, rdb, 6)
}
