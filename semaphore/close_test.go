package semaphore_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
)

// syncBuffer is a log sink safe for the client's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// evalShaCalls counts the EVALSHA commands the server has run.
func evalShaCalls(t testing.TB, raw *redis.Client) int {
	t.Helper()
	info, err := raw.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:calls=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
		require.NoError(t, err)
		return n
	}
	return 0
}

// proxiedClient returns a Client whose go-redis client goes through a fault
// proxy to srv; the go-redis client is the caller's to close too.
func proxiedClient(t *testing.T, srv *redistest.Server, readTimeout time.Duration, opts ...redisson.Option) (*redisson.Client, *redis.Client, *faultproxy.Proxy) {
	t.Helper()
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ReadTimeout: readTimeout, MaxRetries: -1, MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, rdb, p
}

// acquirer is one kind of acquire: it sets the semaphore up with one
// permit, runs its acquire, and reads the permits Redis counts available.
type acquirer struct {
	name      string
	set       func(t *testing.T, c *redisson.Client)
	acquire   func(ctx context.Context, c *redisson.Client) error
	available func(t *testing.T, raw *redis.Client) int
}

var acquirers = []acquirer{
	{
		name: "semaphore",
		set: func(t *testing.T, c *redisson.Client) {
			ctx := context.Background()
			s := c.Semaphore("closing")
			ok, err := s.TrySetPermits(ctx, 1)
			require.NoError(t, err)
			require.True(t, ok)
			// Loads the scripts and opens a connection.
			require.NoError(t, s.Acquire(ctx, 1))
			require.NoError(t, s.Release(ctx, 1))
		},
		acquire: func(ctx context.Context, c *redisson.Client) error {
			return c.Semaphore("closing").Acquire(ctx, 1)
		},
		available: func(t *testing.T, raw *redis.Client) int {
			n, err := strconv.Atoi(rawValue(t, raw, "closing"))
			require.NoError(t, err)
			return n
		},
	},
	{
		// Without a lease: a permit taken for nobody is missing for good,
		// as with the plain semaphore.
		name: "expirable",
		set: func(t *testing.T, c *redisson.Client) {
			ctx := context.Background()
			s := c.PermitExpirableSemaphore("closing")
			ok, err := s.TrySetPermits(ctx, 1)
			require.NoError(t, err)
			require.True(t, ok)
			id, err := s.Acquire(ctx)
			require.NoError(t, err)
			require.NoError(t, s.Release(ctx, id))
		},
		acquire: func(ctx context.Context, c *redisson.Client) error {
			_, err := c.PermitExpirableSemaphore("closing").Acquire(ctx)
			return err
		},
		available: func(t *testing.T, raw *redis.Client) int {
			n, err := strconv.Atoi(rawValue(t, raw, "closing"))
			require.NoError(t, err)
			held, err := raw.ZCard(context.Background(), "{closing}:timeout").Result()
			require.NoError(t, err)
			require.Zero(t, held, "no permit id is held")
			return n
		},
	},
}

// TestCloseGivesBackInFlightAcquire is the bench's lost permit: an acquire
// is on its way when its caller leaves (or, with a context that cannot end,
// while it waits), the application closes the Client and then its go-redis
// client. Close waits for the reply and gives the permit back before it
// returns, so nothing is missing once the script has run. Without that
// wait the reply (or the give-back) meets a closed go-redis client and the
// permit is gone.
func TestCloseGivesBackInFlightAcquire(t *testing.T) {
	for _, a := range acquirers {
		for _, cancelled := range []bool{true, false} {
			name := a.name + "/background"
			if cancelled {
				name = a.name + "/cancelled"
			}
			t.Run(name, func(t *testing.T) {
				srv := redistest.StartServer(t)
				raw := redistest.Client(t, srv)
				c, rdb, p := proxiedClient(t, srv, 10*time.Second)
				a.set(t, c)
				before := evalShaCalls(t, raw)

				p.Stall()
				sent := p.Stats().FromClient
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				actx := ctx
				if !cancelled {
					actx = context.Background()
				}
				got := make(chan error, 1)
				go func() { got <- a.acquire(actx, c) }()
				redistest.Eventually(t, 5*time.Second, "the acquire left the client", func() bool { return p.Stats().FromClient > sent })
				if cancelled {
					cancel()
					select {
					case err := <-got:
						require.ErrorIs(t, err, context.Canceled)
					case <-time.After(5 * time.Second):
						t.Fatal("the cancelled acquire did not return")
					}
				}

				closed := make(chan struct{})
				go func() {
					_ = c.Close()
					close(closed)
				}()
				redistest.Eventually(t, 5*time.Second, "Close began", func() bool {
					// Zero permits: the closed check only, nothing sent.
					return c.Semaphore("closing").Acquire(context.Background(), 0) != nil
				})
				// The application closes its go-redis client as soon as
				// Close returns. Give a Close that does not wait for the
				// acquire the time to return, so that its loss shows.
				select {
				case <-closed:
					_ = rdb.Close()
				case <-time.After(time.Second):
				}
				p.Resume()
				select {
				case <-closed:
				case <-time.After(20 * time.Second):
					t.Fatal("Close did not return after Redis answered")
				}
				_ = rdb.Close()
				if !cancelled {
					require.ErrorIs(t, <-got, redisson.ErrClosed, "the permit went back, the caller is told the client closed")
				}

				redistest.Eventually(t, 5*time.Second, "the acquire ran", func() bool { return evalShaCalls(t, raw) > before })
				require.Equal(t, 1, a.available(t, raw), "the permit came back before Close returned")
				require.Greater(t, evalShaCalls(t, raw), before+1, "the give-back ran before Close returned")
			})
		}
	}
}

// TestCloseBoundedWhenRedisIsGone: with Redis silent for good and a
// go-redis client that waits for a reply forever (no ReadTimeout), Close
// stops waiting for the acquire in flight at its bound (twice the client's
// Timeout here), says so in the log, and sends nothing afterwards.
func TestCloseBoundedWhenRedisIsGone(t *testing.T) {
	for _, a := range acquirers {
		t.Run(a.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			raw := redistest.Client(t, srv)
			var logs syncBuffer
			const timeout = 300 * time.Millisecond
			c, rdb, p := proxiedClient(t, srv, -1,
				redisson.WithTimeout(timeout),
				redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Disabled: true}),
				redisson.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			a.set(t, c)
			before := evalShaCalls(t, raw)

			p.Stall()
			sent := p.Stats().FromClient
			ctx, cancel := context.WithCancel(context.Background())
			got := make(chan error, 1)
			go func() { got <- a.acquire(ctx, c) }()
			redistest.Eventually(t, 5*time.Second, "the acquire left the client", func() bool { return p.Stats().FromClient > sent })
			cancel()
			require.ErrorIs(t, <-got, context.Canceled)

			start := time.Now()
			closed := make(chan struct{})
			go func() {
				_ = c.Close()
				close(closed)
			}()
			select {
			case <-closed:
			case <-time.After(2*timeout + 10*time.Second):
				t.Fatal("Close hung with Redis gone")
			}
			took := time.Since(start)
			t.Logf("Close took %v (bound %v)", took, 2*timeout)
			require.GreaterOrEqual(t, took, 2*timeout, "Close waited for the acquire up to its bound")
			require.Contains(t, logs.String(), "Close stopped waiting for acquires in flight")
			require.Contains(t, logs.String(), "inflight=1")

			// The application closes its go-redis client: the acquire
			// fails, and nothing is sent for it (no check, no give-back).
			sent = p.Stats().FromClient
			_ = rdb.Close()
			redistest.Eventually(t, 5*time.Second, "the acquire's loss is logged", func() bool {
				return strings.Contains(logs.String(), "no reply to the acquire") || strings.Contains(logs.String(), "an acquire got no reply")
			})
			require.Equal(t, sent, p.Stats().FromClient, "nothing sent after Close returned")
			require.Equal(t, before, evalShaCalls(t, raw), "nothing ran: the proxy never delivered")
			require.Equal(t, 1, a.available(t, raw))
		})
	}
}
