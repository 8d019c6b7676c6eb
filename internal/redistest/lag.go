package redistest

import (
	"bytes"
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Lag is a go-redis hook that holds back, by its delay, the first write
// containing a marker (set with Arm), off the caller's goroutine, as a slow
// network would: the write returns at once, go-redis' read deadline runs
// out without a reply, and the connection's Close waits for the held-back
// bytes in the background, so Redis still runs the command after the client
// gave up on it, and after whatever the client sent next on another
// connection. Add it to a client with AddHook before the client dials.
type Lag struct {
	delay  time.Duration
	marker atomic.Value // []byte
	once   sync.Once
	landed chan struct{}
}

// NewLag returns a Lag that holds a write back by delay.
func NewLag(delay time.Duration) *Lag {
	return &Lag{delay: delay, landed: make(chan struct{})}
}

// Arm makes the next write that contains marker the one held back.
func (d *Lag) Arm(marker string) { d.marker.Store([]byte(marker)) }

// Landed is closed once the held-back write has been written.
func (d *Lag) Landed() <-chan struct{} { return d.landed }

// DialHook wraps every connection the client dials.
func (d *Lag) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &lagConn{Conn: c, d: d}, nil
	}
}

// ProcessHook passes commands through.
func (d *Lag) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

// ProcessPipelineHook passes pipelines through.
func (d *Lag) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

type lagConn struct {
	net.Conn
	d       *Lag
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
		defer close(c.d.landed)
		time.Sleep(c.d.delay) // the bytes' time on the way, not a wait for a result
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
