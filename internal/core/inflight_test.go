package core

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/redistest"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// closeAsync runs rt.Close and returns a channel closed when it returns.
func closeAsync(rt *Runtime) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		rt.Close()
		close(done)
	}()
	return done
}

// TestCloseWaitsForInflight: Close refuses new work at once, waits for
// open work and its forks, and only then stops the background sends.
func TestCloseWaitsForInflight(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.ReadTimeout = time.Minute })
	synced := New(Config{Redis: rdb, Timeout: time.Minute, Sync: ReplicaSync{Enabled: true}})
	require.Equal(t, 2*time.Minute+time.Second, synced.CloseWait(), "ReadTimeout, the default WAIT timeout, Timeout")
	synced.Close()
	rt := New(Config{Redis: rdb, Timeout: time.Minute})
	require.Equal(t, 2*time.Minute, rt.CloseWait())

	w, err := rt.Inflight()
	require.NoError(t, err)
	done := closeAsync(rt)
	redistest.Eventually(t, 10*time.Second, "Close began", func() bool { return rt.Lifetime().Err() != nil })
	redistest.Eventually(t, 10*time.Second, "new work is refused", func() bool {
		w2, err := rt.Inflight()
		if err == nil {
			w2.End()
			return false
		}
		require.ErrorIs(t, err, ErrClosed)
		return true
	})
	fork := w.Fork()
	w.End()
	w.End() // a second End changes nothing
	require.Equal(t, 1, rt.InflightCount())
	select {
	case <-done:
		t.Fatal("Close returned with a fork open")
	default:
	}
	require.NoError(t, rt.Drained().Err(), "undos may still be sent while Close waits")
	uctx, cancel := rt.ForUndo(context.Background())
	defer cancel()
	require.NoError(t, uctx.Err())
	fork.End()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return after the work ended")
	}
	require.Error(t, rt.Drained().Err())
	// The undo context ends through context.AfterFunc, in its own
	// goroutine; what must hold at once is Stopped, which every background
	// send checks.
	select {
	case <-uctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("an undo context did not end after Close stopped waiting")
	}
	require.Zero(t, rt.InflightCount())
}

// TestCloseWaitIsBounded: work that never ends keeps Close no longer than
// CloseWait, and Close logs how much it left behind.
func TestCloseWaitIsBounded(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.ReadTimeout = -1 })
	var logs lockedBuffer
	rt := New(Config{Redis: rdb, Timeout: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.Equal(t, 400*time.Millisecond, rt.CloseWait(), "no ReadTimeout: Timeout for the reply, Timeout for the give-back")

	_, err := rt.Inflight()
	require.NoError(t, err)
	start := time.Now()
	select {
	case <-closeAsync(rt):
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung")
	}
	require.GreaterOrEqual(t, time.Since(start), rt.CloseWait())
	require.Error(t, rt.Drained().Err())
	require.Contains(t, logs.String(), "Close stopped waiting for acquires in flight")
	require.Contains(t, logs.String(), "inflight=1")
}

// TestCloseWithoutInflight: nothing registered, nothing waited for.
func TestCloseWithoutInflight(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	rt := New(Config{Redis: rdb, Timeout: time.Hour})
	w, err := rt.Inflight()
	require.NoError(t, err)
	w.End()
	select {
	case <-closeAsync(rt):
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited with nothing in flight")
	}
	require.Error(t, rt.Drained().Err())
	_, err = rt.Inflight()
	require.ErrorIs(t, err, ErrClosed)
	rt.Close() // a second Close returns at once
}

// TestReadTimeoutOf: go-redis normalises its options in NewClient (its
// default filled in, -1 and -2 turned into 0 and -1, both "wait forever"),
// so the runtime must read 0 as no bound, not as the default.
func TestReadTimeoutOf(t *testing.T) {
	for _, tc := range []struct {
		given, want time.Duration
	}{
		{0, 5 * time.Second}, // go-redis v9.23's default
		{2 * time.Second, 2 * time.Second},
		{-1, 0},
		{-2, 0},
	} {
		rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ReadTimeout: tc.given})
		got := conns.New(conns.Config{Redis: rdb, Lifetime: context.Background()}).ReadTimeout()
		require.Equal(t, tc.want, got, "ReadTimeout %v", tc.given)
		cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, ReadTimeout: tc.given})
		if tc.given != -2 { // the cluster client has no -2
			got = conns.New(conns.Config{Redis: cc, Lifetime: context.Background()}).ReadTimeout()
			require.Equal(t, tc.want, got, "cluster ReadTimeout %v", tc.given)
		}
		_ = rdb.Close()
		_ = cc.Close()
	}
}
