package rlock_test

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

// replyDropper is a loopback TCP proxy that, when armed, cuts a connection
// right after the server answered on it: the command ran, its reply is lost.
type replyDropper struct {
	ln    net.Listener
	armed atomic.Bool
	// delay, when set with armed, holds the next reply back that long
	// instead of cutting the connection.
	delay atomic.Int64
	wg    sync.WaitGroup
}

func newReplyDropper(t *testing.T, target string) *replyDropper {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &replyDropper{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() {
				buf := make([]byte, 64<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 && p.armed.CompareAndSwap(true, false) {
						if d := time.Duration(p.delay.Load()); d > 0 {
							time.Sleep(d)
						} else {
							c.Close()
							s.Close()
							return
						}
					}
					if n > 0 {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

// TestLostAcquireReplyIsNotRetried: go-redis retries commands whose reply
// was lost; an acquire script run twice would count two holds for one Lock.
// The acquire is sent without client retries. When the connection was cut,
// Redis is asked whether the script ran (then the lock is ours, once); when
// the reply timed out, the outcome is undone and the error reported.
func TestLostAcquireReplyIsNotRetried(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	proxy := newReplyDropper(t, srv.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: proxy.ln.Addr().String(), MaxRetries: 3, ReadTimeout: 300 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	lock := c.Lock("fragile")
	h, err := lock.Lock(ctx) // warm-up: script cached, replica count read
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	owner := rlock.WithOwner(77)
	field := c.ID() + ":77"

	// Connection cut after the script ran: the lock is ours, held once.
	proxy.armed.Store(true)
	h, err = lock.Lock(ctx, owner)
	require.NoError(t, err, "the cut connection is resolved from Redis")
	require.False(t, proxy.armed.Load(), "the reply was dropped")
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "fragile").Val(), "held once, not twice")
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, int64(0), raw.Exists(ctx, "fragile").Val())

	// Reply held back past the read timeout: a single try reports it,
	// undone.
	proxy.delay.Store(int64(time.Second))
	proxy.armed.Store(true)
	_, ok, err := lock.TryLock(ctx, owner)
	require.Error(t, err, "the lost reply is reported, not retried")
	require.False(t, ok)
	require.False(t, proxy.armed.Load(), "the reply was held back")
	// The acquire ran once and was undone: no hold, certainly not two.
	require.Equal(t, int64(0), raw.Exists(ctx, "fragile").Val(), "fields: %v", raw.HGetAll(ctx, "fragile").Val())

	// A waiting Lock rides it out (Options.Retry): the try is undone, and
	// the next one, after a back-off, takes the lock once.
	proxy.armed.Store(true)
	h, err = lock.Lock(ctx, owner)
	require.NoError(t, err, "the wait retries a try whose reply was lost")
	require.False(t, proxy.armed.Load(), "the reply was held back")
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "fragile").Val(), "held once, not twice")
	require.NoError(t, h.Unlock(ctx))
	proxy.delay.Store(0)

	h, err = lock.Lock(ctx, owner)
	require.NoError(t, err)
	n, err := lock.HoldCount(ctx, 77)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, int64(0), raw.Exists(ctx, "fragile").Val())
}
