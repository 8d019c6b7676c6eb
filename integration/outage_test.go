package integration

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// retrySignal is a slog.Handler that reports the waits' retries (the
// runtime's "trying again" warning) on a channel, so that a test can act
// once a try has met the fault, without guessing when that happens.
type retrySignal chan string

func (retrySignal) Enabled(context.Context, slog.Level) bool { return true }
func (s retrySignal) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "trying again") {
		var err string
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "err" {
				err = a.Value.String()
			}
			return true
		})
		select {
		case s <- err:
		default:
		}
	}
	return nil
}
func (s retrySignal) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s retrySignal) WithGroup(string) slog.Handler      { return s }

// outageRows are the rows of TestWaitRidesOutOutage: every object whose
// own wait loop retries (a multi-lock's loop retries its members until ctx
// ends: TestNetworkFault), and the latch. The short subset keeps one row
// per wait loop: the engine's, the semaphore's, the expirable semaphore's
// and the latch's.
func outageRows() []string {
	var rows []string
	for _, k := range kinds {
		if k.compound {
			continue
		}
		switch k.name {
		case "RLock", "Semaphore", "PermitExpirableSemaphore":
		default:
			if !full() {
				continue
			}
		}
		rows = append(rows, k.name)
	}
	return append(rows, latchRow)
}

// TestWaitRidesOutOutage: a waiter whose client loses Redis for a moment
// (a cut: every connection reset, new ones refused, as a restarting or
// failing-over server looks) keeps waiting. Its try that meets the cut is
// retried after a back-off (Options.Retry); once the connection is back it
// acquires after the holder's release, and nothing is left behind: no
// second hold counted by a lost acquire, no permit missing.
func TestWaitRidesOutOutage(t *testing.T) {
	for _, row := range outageRows() {
		t.Run("during/"+row, func(t *testing.T) { outageCase(t, row, false) })
	}
	for _, row := range outageRows() {
		t.Run("from start/"+row, func(t *testing.T) { outageCase(t, row, true) })
	}
}

// outageCase cuts the waiter's connection while it waits, subscribed, or,
// fromStart, before its wait begins (its first try and its subscription
// meet the cut).
func outageCase(t *testing.T, row string, fromStart bool) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := faultproxy.New(e.srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	// Short periods make the waiter try during the cut: it re-checks a
	// lock at the holder's TTL (the holder's watchdog lease) and a
	// semaphore or latch every WatchdogTimeout.
	period := redisson.WithWatchdogTimeout(600 * time.Millisecond)
	retries := make(retrySignal, 16)
	waiterC := proxiedClient(t, p, period, redisson.WithLogger(slog.New(retries)),
		redisson.WithRetry(redisson.RetryOptions{Attempts: 4, Delay: 400 * time.Millisecond}))
	holderC := redissontest.ClientAt(t, e.srv.Addr(), period)
	name := "outage"

	var release, waiterRelease func(context.Context) error
	var wait func(ctx context.Context) (func(context.Context) error, error)
	var clean func() // checks that the waiter's release left nothing behind
	if row == latchRow {
		ok, err := holderC.CountDownLatch(name).TrySetCount(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		release = holderC.CountDownLatch(name).CountDown
		wait = func(ctx context.Context) (func(context.Context) error, error) {
			ok, err := waiterC.CountDownLatch(name).Await(ctx)
			if err == nil && !ok {
				err = errors.New("await returned false")
			}
			return nil, err
		}
		clean = func() { require.Zero(t, e.raw.Exists(ctx, name).Val(), "the latch is open") }
	} else {
		k, ok := kindByName(row)
		require.True(t, ok)
		require.NoError(t, k.setup(ctx, holderC, name, 1))
		h, err := k.acquire(ctx, holderC, name, 0, 1)
		require.NoError(t, err)
		release = h.release
		wk := k
		if k.waiter != "" {
			wk, _ = kindByName(k.waiter)
		}
		wait = func(ctx context.Context) (func(context.Context) error, error) {
			wh, err := wk.acquire(ctx, waiterC, name, 0, 2)
			if err != nil {
				return nil, err
			}
			return wh.release, nil
		}
		clean = func() {
			if k.role == "p" {
				require.Equal(t, "1", e.raw.Get(ctx, name).Val(), "the semaphore has its one permit back")
				return
			}
			// A lost acquire that ran and was not undone would have left
			// the waiter's field (a second count) in the hash.
			require.Zero(t, e.raw.Exists(ctx, name).Val(), "the lock is free: no count left by a lost acquire")
		}
	}

	type result struct {
		at  time.Time
		err error
	}
	var released, early atomic.Bool
	got := make(chan result, 1)
	cut := time.Now()
	if fromStart {
		p.Cut()
	}
	go func() {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		rel, err := wait(wctx)
		if err == nil && !released.Load() {
			early.Store(true)
		}
		waiterRelease = rel
		got <- result{time.Now(), err}
	}()
	subscribed := func() {
		wk, _ := kindByName(row) // the latch is no row: it subscribes
		if wk.waiter != "" {
			wk, _ = kindByName(wk.waiter)
		}
		redistest.Eventually(t, 20*time.Second, "the waiter waits, subscribed", waiting(t, wk, e.raw, waiterC))
	}
	if !fromStart {
		subscribed()
		cut = time.Now()
		p.Cut()
	}
	var firstErr string
	select {
	case firstErr = <-retries:
	case r := <-got:
		t.Fatalf("the wait ended during the cut: %v", r.err)
	case <-time.After(20 * time.Second):
		t.Fatal("no try of the waiter met the cut within 20 s")
	}
	met := time.Since(cut)
	p.Resume()
	if fromStart {
		subscribed()
	}
	released.Store(true)
	relAt := time.Now()
	require.NoError(t, release(ctx), "the holder (direct) releases")

	var r result
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter did not acquire within 30 s of the release")
	}
	require.NoError(t, r.err, "the waiter rode out the cut")
	violations := 0
	if early.Load() {
		violations++
	}
	if waiterRelease != nil {
		require.NoError(t, waiterRelease(ctx))
	}
	clean()
	fault := "connection cut during a wait (retried)"
	if fromStart {
		fault = "connection cut as a wait begins (retried)"
	}
	record(fault, row, violations,
		"a try met the cut %d ms after it began (%s), was retried after a back-off; the cut ended then, and the waiter acquired %d ms after the release; nothing left behind",
		met.Milliseconds(), firstErr, r.at.Sub(relAt).Milliseconds())
	require.False(t, early.Load(), "the waiter acquired before the release")
}
