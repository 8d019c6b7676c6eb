package rlock_test

import (
	"bytes"
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestLateTryIsUndone: a try whose reply never comes is undone, and its
// undo, on another connection, can reach Redis first; the try then takes
// the lock for nobody when it lands. The try here is held back on its way
// (600 ms) past go-redis' ReadTimeout (200 ms), and the undo goes out at
// once: the lock is taken after the undo, and a look the client's Timeout
// later finds it and undoes it again, long before its 30 s lease.
func TestLateTryIsUndone(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	lag := &lagFirst{}
	rdb := redistest.Client(t, srv, func(o *redis.Options) {
		o.ReadTimeout = 200 * time.Millisecond
		o.MaxRetries = -1
	})
	rdb.AddHook(lag)
	c, err := redisson.New(rdb, redisson.WithTimeout(2*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	l := c.Lock("late")
	// Load the scripts: a NOSCRIPT answer would be sent again with EVAL.
	h, err := l.Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	lag.marker.Store([]byte(c.ID() + ":"))
	_, _, err = l.TryLock(ctx)
	require.Error(t, err, "the try's reply is held back past ReadTimeout")
	redistest.Eventually(t, 5*time.Second, "the held-back try lands and takes the lock for nobody", func() bool {
		n, err := raw.Exists(ctx, "late").Result()
		require.NoError(t, err)
		return n == 1
	})
	redistest.Eventually(t, 10*time.Second, "the late look undoes it", func() bool {
		n, err := raw.Exists(ctx, "late").Result()
		require.NoError(t, err)
		return n == 0
	})
	h, ok, err := c.Lock("late").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, h.Unlock(ctx))
}

// lagFirst holds back the first write that contains marker by 600 ms, off
// the caller's goroutine, as a network would: the write returns at once,
// and the connection's Close waits for the held-back bytes in the
// background, so Redis runs them even after the client gave up.
type lagFirst struct {
	marker atomic.Value // []byte; nil: nothing held back
	once   sync.Once
}

func (d *lagFirst) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &lagConn{Conn: c, d: d}, nil
	}
}
func (d *lagFirst) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (d *lagFirst) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

type lagConn struct {
	net.Conn
	d       *lagFirst
	pending sync.WaitGroup
}

func (c *lagConn) Write(b []byte) (int, error) {
	m, _ := c.d.marker.Load().([]byte)
	held := false
	if m != nil && bytes.Contains(b, m) {
		c.d.once.Do(func() { held = true })
	}
	if !held {
		return c.Conn.Write(b)
	}
	buf := bytes.Clone(b)
	c.pending.Go(func() {
		time.Sleep(600 * time.Millisecond) // the bytes' time on the way, not a wait for a result
		// The bytes left the client when Write returned: no deadline
		// go-redis set since then applies to them.
		_ = c.Conn.SetWriteDeadline(time.Time{})
		_, _ = c.Conn.Write(buf)
	})
	return len(b), nil
}

func (c *lagConn) Close() error {
	go func() {
		c.pending.Wait()
		_ = c.Conn.Close()
	}()
	return nil
}
