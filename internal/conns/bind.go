package conns

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// A call whose context ends before go-redis' ReadTimeout would end a silent
// call must still return in time (see Bounded). go-redis watches context
// deadlines only with ContextTimeoutEnabled, and its public API offers no
// way to reach a pooled connection's socket, so the bound used to cost a
// goroutine per call, a large share of the lock path's CPU (every unlock
// paid it: its Timeout comes before go-redis' default ReadTimeout).
//
// Instead, the client adds a dial hook to the go-redis client that wraps
// each new connection in a boundConn, whose read and write deadlines a call
// can pull in. A dedicated connection (see dedicated) learns which
// boundConn it runs on by sending ECHO with a random token when it is taken
// (claim); a call bounded through it sets the boundConn's limit to its
// context's deadline, and, when go-redis has no ReadTimeout, a cancellation
// sets the socket's deadline to now (context.AfterFunc, which runs a
// goroutine only when the context ends).
// go-redis sets both deadlines before each write and read, so the limit
// takes effect without our touching the socket. A connection dialled before
// the hook was added (the application's own first commands) cannot be
// claimed: calls on it go through Bounded as before. On a cluster every node
// client gets the hook (see cluster.go).

// claimPrefix starts the ECHO argument of a claim; the token follows as
// claimTokenLen hex digits.
const (
	claimPrefix   = "redisson-go-claim:"
	claimTokenLen = 16
)

// binder is a client's dial hook and the claims under way.
type binder struct {
	pending atomic.Int32 // claims under way: Write looks for tokens
	mu      sync.Mutex
	found   map[string]*boundConn

	// opaque: the dialer made a connection that cannot be wrapped (TLS);
	// a connection without a boundConn then says nothing about when it
	// was dialled.
	opaque atomic.Bool

	// On a cluster (see cluster.go): the cluster client, the node
	// clients given the hook (*redis.Client keys), whether the slot map
	// has been read, and whether a read of it is under way.
	cc      *redis.ClusterClient
	hooked  sync.Map
	ready   atomic.Bool
	reading atomic.Bool

	// soft: the connections and the sweeper that ends calls bound by
	// Within (see soft.go).
	soft softConns
}

func (b *binder) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return c, err
		}
		// Only a socket go-redis can probe through syscall.Conn (its pool
		// health check); anything else stays as it was and is bounded
		// through Bounded.
		sc, ok := c.(syscall.Conn)
		if !ok {
			b.opaque.Store(true)
			return c, nil
		}
		bc := &boundConn{Conn: c, sc: sc, b: b}
		b.soft.add(bc)
		return bc, nil
	}
}

func (b *binder) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (b *binder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// saw records that c wrote a claim token found in p.
func (b *binder) saw(c *boundConn, p []byte) {
	i := bytes.Index(p, []byte(claimPrefix))
	if i < 0 || len(p) < i+len(claimPrefix)+claimTokenLen {
		return
	}
	tok := string(p[i+len(claimPrefix) : i+len(claimPrefix)+claimTokenLen])
	b.mu.Lock()
	if _, want := b.found[tok]; want {
		b.found[tok] = c
	}
	b.mu.Unlock()
}

// claim returns the boundConn conn runs on, nil when it has none (a
// connection dialled before the hook, a TLS connection), or the ECHO's
// failure. It sends one ECHO, bounded by timeout.
func (b *binder) claim(conn *redis.Conn, timeout time.Duration) (*boundConn, error) {
	var raw [claimTokenLen / 2]byte
	_, _ = rand.Read(raw[:])
	tok := hex.EncodeToString(raw[:])
	b.mu.Lock()
	if b.found == nil {
		b.found = make(map[string]*boundConn)
	}
	b.found[tok] = nil
	b.mu.Unlock()
	b.pending.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := conn.Echo(ctx, claimPrefix+tok).Err()
	cancel()
	b.pending.Add(-1)
	b.mu.Lock()
	c := b.found[tok]
	delete(b.found, tok)
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return c, nil
}

// boundConn is a connection whose deadlines a call can pull in (see above).
type boundConn struct {
	net.Conn
	sc syscall.Conn
	b  *binder
	// limit is the bound call's deadline (Unix ns), 0 when there is none:
	// no deadline go-redis sets may lie beyond it.
	limit atomic.Int64
	// soft is the bound (Unix ns) of the call under way when Within set
	// it, 0 when there is none: the sweeper cuts the call once it passes
	// (see soft.go).
	soft atomic.Int64
	// cut: the call under way was cut (a cancellation, the sweeper),
	// which may have left a deadline in the past on the socket. Under mu.
	cut bool
	// gen counts bound calls, so that a cancellation that fires late does
	// not cut the next call short.
	gen atomic.Uint64
	mu  sync.Mutex // serialises a cancellation with the call's end
}

// SyscallConn lets go-redis' pool probe the socket as it would unwrapped.
func (c *boundConn) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }

// Close forgets c, so that the sweeper no longer looks at it.
func (c *boundConn) Close() error {
	c.b.soft.remove(c)
	return c.Conn.Close()
}

func (c *boundConn) Write(p []byte) (int, error) {
	if c.b.pending.Load() > 0 {
		c.b.saw(c, p)
	}
	return c.Conn.Write(p)
}

func (c *boundConn) clamp(t time.Time) time.Time {
	if l := c.limit.Load(); l != 0 && (t.IsZero() || t.UnixNano() > l) {
		return time.Unix(0, l)
	}
	return t
}

func (c *boundConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *boundConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *boundConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

// uncutLocked clears the deadline a cut left on the socket. A cut can come
// after the call read its reply: the call succeeds and the connection is
// kept, and a go-redis client that never sets deadlines (ReadTimeout or
// WriteTimeout -2) would otherwise fail its next command at once. c.mu is
// held.
func (c *boundConn) uncutLocked() {
	if c.cut {
		c.cut = false
		_ = c.Conn.SetDeadline(time.Time{})
	}
}

// cutPast cuts the call under way when its soft bound is not after now
// (softConns.mono), as a cancellation does (see bind).
func (c *boundConn) cutPast(now int64) {
	if s := c.soft.Load(); s == 0 || s > now {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.soft.Load(); s == 0 || s > now {
		return // that call is over
	}
	t := time.Now()
	c.limit.Store(t.UnixNano())
	_ = c.Conn.SetDeadline(t)
	c.cut = true
}
