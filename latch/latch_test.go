package latch_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/leakcheck"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/redissontest"
)

func rawValue(t testing.TB, raw *redis.Client, key string) string {
	t.Helper()
	v, err := raw.Get(context.Background(), key).Result()
	if err == redis.Nil {
		return ""
	}
	require.NoError(t, err)
	return v
}

// TestRawState runs every operation in turn on one latch and checks, after
// each, its result, the key as §10 describes it (a decimal string without
// TTL, gone when open) and the messages on its channel.
func TestRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	pub := redistest.Capture(t, raw)
	c := redissontest.ClientAt(t, srv.Addr())
	l := c.CountDownLatch("gate")
	ctx := context.Background()
	require.Equal(t, "redisson_countdownlatch__channel__{gate}", keys.LatchChannel("gate"))
	require.Equal(t, "redisson_countdownlatch__channel__{{t}x}", keys.LatchChannel("{t}x"))

	steps := []struct {
		name  string
		run   func() (any, error)
		want  any
		value string // "" = no key
		msgs  []string
	}{
		{"count of no latch", func() (any, error) { return l.Count(ctx) }, int64(0), "", nil},
		{"await no latch", func() (any, error) { return l.Await(ctx) }, true, "", nil},
		{"try set", func() (any, error) { return l.TrySetCount(ctx, 2) }, true, "2", []string{"1"}},
		{"try set again", func() (any, error) { return l.TrySetCount(ctx, 5) }, false, "2", nil},
		{"count down", func() (any, error) { return nil, l.CountDown(ctx) }, nil, "1", nil},
		{"count", func() (any, error) { return l.Count(ctx) }, int64(1), "1", nil},
		{"await with no time left", func() (any, error) { return l.Await(ctx, latch.WithTimeout(0)) }, false, "1", nil},
		{"count down to zero", func() (any, error) { return nil, l.CountDown(ctx) }, nil, "", []string{"0"}},
		{"count down an open latch", func() (any, error) { return nil, l.CountDown(ctx) }, nil, "", nil},
		{"delete no latch", func() (any, error) { return l.Delete(ctx) }, false, "", nil},
		{"re-arm", func() (any, error) { return l.TrySetCount(ctx, 1) }, true, "1", []string{"1"}},
		{"delete", func() (any, error) { return l.Delete(ctx) }, true, "", []string{"1"}},
	}
	for _, st := range steps {
		got, err := st.run()
		require.NoError(t, err, st.name)
		require.Equal(t, st.want, got, st.name)
		require.Equal(t, st.value, rawValue(t, raw, "gate"), st.name)
		if st.value != "" {
			require.Equal(t, "string", raw.Type(ctx, "gate").Val(), st.name)
			require.Equal(t, time.Duration(-1), raw.PTTL(ctx, "gate").Val(), st.name)
		}
		var msgs []string
		for _, m := range pub.Drain(t) {
			require.Equal(t, keys.LatchChannel("gate"), m.Channel, st.name)
			msgs = append(msgs, m.Payload)
		}
		require.Equal(t, st.msgs, msgs, st.name)
		require.LessOrEqual(t, redistest.DBSize(t, raw), int64(1), st.name)
	}
}

// TestBadInput: a bad name, count or timeout, a cancelled context and a
// closed client are errors of the right kind, and nothing reaches Redis.
// CountDown alone runs with a done context (a deferred count-down must not
// be lost).
func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	closed := redissontest.ClientAt(t, srv.Addr())
	require.NoError(t, closed.Close())
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	calls := func(l *latch.Latch, ctx context.Context) map[string]func() error {
		return map[string]func() error{
			"TrySetCount": func() error { _, err := l.TrySetCount(ctx, 1); return err },
			"CountDown":   func() error { return l.CountDown(ctx) },
			"Count":       func() error { _, err := l.Count(ctx); return err },
			"Await":       func() error { _, err := l.Await(ctx); return err },
			"AwaitFor":    func() error { _, err := l.Await(ctx, latch.WithTimeout(time.Second)); return err },
			"Delete":      func() error { _, err := l.Delete(ctx); return err },
		}
	}
	good := c.CountDownLatch("gate")
	cases := []struct {
		name  string
		calls map[string]func() error
		want  error
		skip  string
	}{
		{"empty name", calls(c.CountDownLatch(""), ctx), redisson.ErrInvalidName, ""},
		{"cancelled context", calls(good, cancelled), context.Canceled, "CountDown"},
		{"closed client", calls(closed.CountDownLatch("gate"), ctx), redisson.ErrClosed, ""},
		{"bad count or timeout", map[string]func() error{
			"zero":             func() error { _, err := good.TrySetCount(ctx, 0); return err },
			"negative":         func() error { _, err := good.TrySetCount(ctx, -1); return err },
			"negative timeout": func() error { _, err := good.Await(ctx, latch.WithTimeout(-time.Millisecond)); return err },
		}, redisson.ErrInvalidArgument, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sent := redistest.Sent(t, srv, raw, func() {
				for name, call := range tc.calls {
					if name == tc.skip {
						continue
					}
					require.ErrorIs(t, call(), tc.want, name)
				}
			})
			require.Empty(t, sent, "nothing may reach Redis")
		})
	}

	ok, err := good.TrySetCount(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, good.CountDown(cancelled), "a count-down does not depend on its context")
	require.Zero(t, redistest.DBSize(t, raw))
}

// TestWrongType: a key of another type, or a string that is not a number,
// gives ErrWrongType saying what the key holds, and stays as it was.
func TestWrongType(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	require.NoError(t, raw.HSet(ctx, "hash", "f", "v").Err())
	require.NoError(t, raw.Set(ctx, "text", "abc", 0).Err())

	for _, tc := range []struct{ key, says string }{
		{"hash", "holds a hash, not a string"},
		{"text", `holds the string "abc", not a count`},
	} {
		l := c.CountDownLatch(tc.key)
		calls := map[string]func() error{
			"TrySetCount": func() error { _, err := l.TrySetCount(ctx, 1); return err },
			"CountDown":   func() error { return l.CountDown(ctx) },
			"Count":       func() error { _, err := l.Count(ctx); return err },
			"Await":       func() error { _, err := l.Await(ctx); return err },
		}
		for name, call := range calls {
			err := call()
			if tc.key == "text" && name == "TrySetCount" {
				// A string is there: Redisson's answer, false.
				require.NoError(t, err)
				continue
			}
			require.ErrorIs(t, err, redisson.ErrWrongType, "%s on %s", name, tc.key)
			require.ErrorContains(t, err, tc.says, "%s on %s", name, tc.key)
		}
	}
	require.Equal(t, map[string]string{"f": "v"}, raw.HGetAll(ctx, "hash").Val())
	require.Equal(t, "abc", rawValue(t, raw, "text"))
}

// TestZeroReleasesEveryWaiter: waiters on three clients all return soon
// after the last count-down, from another client, and leave no
// subscription behind.
func TestZeroReleasesEveryWaiter(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	counter := redissontest.ClientAt(t, srv.Addr())
	const perClient = 50
	ok, err := counter.CountDownLatch("start").TrySetCount(ctx, 3)
	require.NoError(t, err)
	require.True(t, ok)

	type result struct {
		at  time.Time
		err error
	}
	results := make(chan result, 3*perClient)
	var wg sync.WaitGroup
	for i, c := range clients {
		for j := range perClient {
			wg.Go(func() {
				var err error
				var opened bool
				if (i+j)%2 == 0 {
					opened, err = c.CountDownLatch("start").Await(ctx)
				} else {
					opened, err = c.CountDownLatch("start").Await(ctx, latch.WithTimeout(25*time.Second))
				}
				if err == nil && !opened {
					err = context.DeadlineExceeded
				}
				results <- result{time.Now(), err}
			})
		}
	}
	for _, c := range clients {
		redistest.Eventually(t, 10*time.Second, "every waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == perClient })
	}
	require.Equal(t, int64(3), redistest.NumSub(t, raw, keys.LatchChannel("start")), "one subscription per client")
	for range 2 {
		require.NoError(t, counter.CountDownLatch("start").CountDown(ctx))
	}
	require.Len(t, results, 0, "nobody returns before zero")
	require.Equal(t, 3*perClient, clients[0].Stats().PubSub.Waiters+clients[1].Stats().PubSub.Waiters+clients[2].Stats().PubSub.Waiters)
	require.NoError(t, counter.CountDownLatch("start").CountDown(ctx))
	zero := time.Now()
	wg.Wait()
	close(results)
	var latest time.Duration
	for r := range results {
		require.NoError(t, r.err)
		latest = max(latest, r.at.Sub(zero))
	}
	t.Logf("the last of %d waiters returned %v after the last count-down", 3*perClient, latest)
	require.Less(t, latest, 2*time.Second)
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.LatchChannel("start")) == 0
	})
}

// TestAwaitNeverSet: awaiting a latch that was never armed returns at once,
// without subscribing, as Redisson's await does.
func TestAwaitNeverSet(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	sent := redistest.Sent(t, srv, raw, func() {
		ok, err := c.CountDownLatch("never").Await(context.Background())
		require.NoError(t, err)
		require.True(t, ok)
	})
	for _, cmd := range sent {
		require.NotContains(t, cmd.Command, "subscribe")
	}
	require.Equal(t, 0, c.Stats().PubSub.Channels)
}

// TestCancelledAwaitsLeaveNothing: awaits cancelled by their context or
// timed out leave no subscription and no goroutine.
func TestCancelledAwaitsLeaveNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	before := leakcheck.Current()
	c := redissontest.ClientAt(t, srv.Addr())
	l := c.CountDownLatch("stuck")
	ok, err := l.TrySetCount(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)

	const waiters = 500
	wctx, cancel := context.WithCancel(ctx)
	errs := make(chan error, 2*waiters)
	var wg sync.WaitGroup
	for range waiters {
		wg.Go(func() {
			_, err := l.Await(wctx)
			errs <- err
		})
		wg.Go(func() {
			opened, err := l.Await(ctx, latch.WithTimeout(time.Second))
			if err == nil && opened {
				err = context.DeadlineExceeded // must not open
			}
			errs <- err
		})
	}
	redistest.Eventually(t, 10*time.Second, "all waiters subscribed", func() bool { return c.Stats().PubSub.Waiters == 2*waiters })
	cancel()
	wg.Wait()
	close(errs)
	cancelled := 0
	for err := range errs {
		if err != nil {
			require.ErrorIs(t, err, context.Canceled)
			cancelled++
		}
	}
	require.Equal(t, waiters, cancelled)
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.LatchChannel("stuck")) == 0
	})
	require.Equal(t, "1", rawValue(t, raw, "stuck"))
	require.NoError(t, c.Close())
	leakcheck.Verify(t, before,
		"github.com/redis/go-redis/v9/internal/pool.(*ConnPool).reaper",
		"internal/poll.runtime_pollWait")
}

// TestDeleteOpensAtRecheck: Delete publishes "1", which wakes nobody (as in
// Java), but the latch is open: waiters see it at their periodic re-check.
func TestDeleteOpensAtRecheck(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(300*time.Millisecond))
	ctx := context.Background()
	l := c.CountDownLatch("deleted")
	ok, err := l.TrySetCount(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	// Count loads the read script, so that each read below is one command.
	_, err = l.Count(ctx)
	require.NoError(t, err)
	m, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	defer m.Close()
	got := make(chan error, 1)
	go func() {
		_, err := l.Await(ctx)
		got <- err
	}()
	// The second read of the count is the one after subscribing: from
	// then on only a message or the re-check wakes the waiter.
	scriptsOn(t, m, "deleted", 2)
	start := time.Now()
	deleted, err := l.Delete(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
	select {
	case err := <-got:
		require.NoError(t, err)
		require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, `"1" woke the waiter`)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not re-check")
	}
}

// scriptsOn waits until MONITOR has seen n scripts sent by clients with key
// among their arguments.
func scriptsOn(t *testing.T, m *redistest.Monitor, key string, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for n > 0 {
		select {
		case line := <-m.Lines():
			l, ok := redistest.ParseMonitorLine(line)
			if ok && l.TopLevel() && (l.Command == "evalsha" || l.Command == "eval") && slices.Contains(l.Args, key) {
				n--
			}
		case <-timeout:
			t.Fatalf("MONITOR did not see %d more scripts on %q", n, key)
		}
	}
}

// TestCloseEndsAwaits: closing the client ends waiting awaits with
// ErrClosed.
func TestCloseEndsAwaits(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	ok, err := c.CountDownLatch("closing").TrySetCount(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	got := make(chan error, 1)
	go func() {
		_, err := c.CountDownLatch("closing").Await(ctx)
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == 1 })
	require.NoError(t, c.Close())
	select {
	case err := <-got:
		require.ErrorIs(t, err, redisson.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the wait")
	}
	redistest.Eventually(t, 5*time.Second, "the subscription is gone", func() bool {
		return redistest.NumSub(t, raw, keys.LatchChannel("closing")) == 0
	})
}
