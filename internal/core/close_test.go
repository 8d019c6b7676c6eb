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

// TestCloseWaitOfConfig: the runtime hands the tracker its timeouts and
// replica sync settings.
func TestCloseWaitOfConfig(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.ReadTimeout = time.Minute })
	synced := New(Config{Redis: rdb, Timeout: time.Minute, Sync: ReplicaSync{Enabled: true}})
	require.Equal(t, 2*time.Minute+time.Second, synced.Inflight().CloseWait(), "ReadTimeout, the default WAIT timeout, Timeout")
	synced.Close()
	rt := New(Config{Redis: rdb, Timeout: time.Minute})
	require.Equal(t, 2*time.Minute, rt.Inflight().CloseWait())
	rt.Close()
	_, err := rt.Inflight().Begin()
	require.ErrorIs(t, err, ErrClosed)
}

// TestCloseWaitIsBounded: work that never ends keeps Close no longer than
// CloseWait, and Close logs how much it left behind.
func TestCloseWaitIsBounded(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.ReadTimeout = -1 })
	var logs lockedBuffer
	rt := New(Config{Redis: rdb, Timeout: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.Equal(t, 400*time.Millisecond, rt.Inflight().CloseWait(), "no ReadTimeout: Timeout for the reply, Timeout for the give-back")

	_, err := rt.Inflight().Begin()
	require.NoError(t, err)
	start := time.Now()
	select {
	case <-closeAsync(rt):
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung")
	}
	require.GreaterOrEqual(t, time.Since(start), rt.Inflight().CloseWait())
	require.Error(t, rt.Inflight().Drained().Err())
	require.Contains(t, logs.String(), "Close stopped waiting for acquires in flight")
	require.Contains(t, logs.String(), "inflight=1")
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
