// Package faultproxy is a loopback TCP proxy for tests that puts a network
// fault between a client and a real server: a stall, where connections stay
// up but no byte moves (as a silent partition looks to a client whose TCP
// connection survives), or a cut, where every connection is reset and new
// ones are reset as soon as they are accepted.
//
// What a go-redis client sees: during a stall, a command fails with an i/o
// timeout (a net.Error whose Timeout() is true) once its ReadTimeout has
// passed, and a new connection dials fine but its HELLO times out the same
// way; the request has nonetheless left the client, and the server runs it
// after Resume even if the client gave up. After a cut, an in-flight command
// and the next one fail at once with io.EOF (a raw net.Conn sees
// ECONNRESET); go-redis retries such errors MaxRetries times with backoff,
// so tests that want one attempt set MaxRetries to -1.
//
// Each accepted connection is forwarded byte for byte to the target by two
// goroutines, one per direction, each with its own buffer. A stall does not
// stop reading: each direction reads at most one buffer ahead and holds it
// (then TCP flow control holds the rest in kernel buffers), and every write
// waits at a gate that Stall closes and Resume opens, so held bytes are
// delivered in order once the gate opens. No polling is involved: a waiting
// copier blocks on a channel.
package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// bufSize is one direction's buffer: big enough that a large Redis value
	// crosses in a few writes, small enough to keep a stalled direction from
	// soaking up much more than the kernel would.
	bufSize = 32 << 10
	// dialTimeout bounds the dial to the target, so that a target that does
	// not answer cannot keep a connection's goroutine alive for long.
	dialTimeout = 5 * time.Second
	// acceptBackoff is the pause after an accept error other than a closed
	// listener (such as running out of file descriptors), so that the accept
	// loop does not spin while the condition lasts.
	acceptBackoff = 5 * time.Millisecond
)

// Proxy forwards the connections it accepts on a loopback port to a target
// address and can stall or cut them on demand. Its methods are safe for
// concurrent use.
type Proxy struct {
	target string
	ln     net.Listener
	// ctx is cancelled by Close; every pair's context derives from it, so
	// that Close ends every dial and every wait.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// ctl serializes Stall, Resume, Cut and Close, so that each one sees
	// the effect of the previous one completed.
	ctl sync.Mutex

	// flow is read-held by a copier for the length of one write and
	// write-held by Stall, so that when Stall returns no write is under way
	// and every later write sees stalled.
	flow    sync.RWMutex
	stalled atomic.Bool

	mu     sync.Mutex
	gate   chan struct{}      // closed while bytes may flow; open while stalled
	cut    bool               // new connections are reset until Resume
	closed bool               // Close has run
	pairs  map[*pair]struct{} // the connections being forwarded

	accepted   atomic.Int64
	refused    atomic.Int64
	fromClient atomic.Int64
	fromServer atomic.Int64
	toServer   atomic.Int64
	toClient   atomic.Int64
	closeErr   error
	closedOnce sync.Once
}

// Stats counts what a proxy has done since New, so that a test can tell
// whether a client reconnected or whether bytes got through.
type Stats struct {
	// Accepted counts the connections accepted, refused ones included.
	Accepted int64
	// Refused counts the connections reset at once because the proxy was
	// cut.
	Refused int64
	// Active is the number of connections being forwarded now.
	Active int
	// FromClient and FromServer count the bytes read from each side;
	// ToServer and ToClient count the bytes written to the other. While
	// stalled, FromClient-ToServer and FromServer-ToClient are the bytes the
	// proxy holds (beyond what waits in kernel buffers), so a test can wait
	// until a request has left the client.
	FromClient, FromServer int64
	ToServer, ToClient     int64
}

// pair is one client connection and its connection to the target.
type pair struct {
	p      *Proxy
	client *net.TCPConn
	server *net.TCPConn // guarded by p.mu; nil until the dial has succeeded
	// ctx is cancelled by abort: it ends the dial and both copiers' waits.
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

// New starts a proxy listening on a free port of 127.0.0.1 that forwards
// every connection to target, a "host:port" on loopback. The target is not
// dialed until a client connects, so it may be started after New.
func New(target string) (*Proxy, error) {
	if _, _, err := net.SplitHostPort(target); err != nil {
		return nil, fmt.Errorf("faultproxy: target %q: %w", target, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	open := make(chan struct{})
	close(open)
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		target: target,
		ln:     ln,
		ctx:    ctx,
		cancel: cancel,
		gate:   open,
		pairs:  make(map[*pair]struct{}),
	}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr returns the address clients dial instead of the target,
// "127.0.0.1:PORT". It stays the same for the proxy's life, across Stall,
// Cut and Resume.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Stall stops every byte in both directions, on existing connections and on
// those accepted later, until Resume. Connections stay open and nothing is
// dropped: bytes read before or during the stall are held and delivered in
// order by Resume; a half-close (FIN) or a reset from either side is held too,
// as a partition would. When Stall returns, no write is under way: a write
// blocked by a peer that does not read is interrupted, the bytes it had not
// written yet are held.
func (p *Proxy) Stall() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	if p.closed || p.stalled.Load() {
		p.mu.Unlock()
		return
	}
	// The order matters: stalled first, so that any write that starts from
	// now on waits; then the deadlines, to interrupt the writes that had
	// already started; then the lock, to wait for those to end.
	p.stalled.Store(true)
	p.gate = make(chan struct{})
	var conns []*net.TCPConn
	for pr := range p.pairs {
		conns = append(conns, pr.client)
		if pr.server != nil {
			conns = append(conns, pr.server)
		}
	}
	p.mu.Unlock()
	past := time.Unix(1, 0)
	for _, c := range conns {
		_ = c.SetWriteDeadline(past)
	}
	// An empty critical section on purpose: taking the lock waits for the
	// writes in flight, each of which holds it for reading.
	p.flow.Lock()
	//lint:ignore SA2001 the Lock above is the point: it waits for the writes in flight
	p.flow.Unlock()
}

// Resume ends a stall and a cut: held bytes are delivered in order, and new
// connections are forwarded again. Connections closed by Cut stay closed.
// Resume without a stall or cut does nothing.
func (p *Proxy) Resume() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
	if p.stalled.Load() {
		p.stalled.Store(false)
		close(p.gate)
	}
}

// Cut resets every current connection on both sides (closed with SO_LINGER 0,
// so each peer gets an RST, not a FIN) and, until Resume, resets every new
// connection as soon as it is accepted. The listener stays open: a client's
// dial succeeds (the kernel completes the handshake) and its first read or
// write fails with ECONNRESET, EPIPE or EOF (go-redis reports io.EOF).
// That is as quick as a refused dial, but unlike one it does not feed a
// client's dial-failure circuit breaker (go-redis retries a refused dial five
// times, 100ms apart, and after PoolSize failed dials re-probes only once a
// second), so a client recovers at once after Resume. A cut does not lift a
// stall.
func (p *Proxy) Cut() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.cut = true
	pairs := p.takePairs()
	p.mu.Unlock()
	for _, pr := range pairs {
		pr.abort()
	}
}

// Close stops listening, resets every connection and waits until all of the
// proxy's goroutines have returned. Calling it again returns the first
// result.
func (p *Proxy) Close() error {
	p.closedOnce.Do(func() {
		p.ctl.Lock()
		defer p.ctl.Unlock()
		p.mu.Lock()
		p.closed = true
		pairs := p.takePairs()
		p.mu.Unlock()
		p.cancel()
		err := p.ln.Close()
		if err != nil && !errors.Is(err, net.ErrClosed) {
			p.closeErr = fmt.Errorf("faultproxy: %w", err)
		}
		for _, pr := range pairs {
			pr.abort()
		}
		p.wg.Wait()
	})
	return p.closeErr
}

// Stats returns the counters as of now.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	active := len(p.pairs)
	p.mu.Unlock()
	return Stats{
		Accepted:   p.accepted.Load(),
		Refused:    p.refused.Load(),
		Active:     active,
		FromClient: p.fromClient.Load(),
		FromServer: p.fromServer.Load(),
		ToServer:   p.toServer.Load(),
		ToClient:   p.toClient.Load(),
	}
}

// takePairs empties the registry and returns what it held; p.mu is held.
func (p *Proxy) takePairs() []*pair {
	pairs := make([]*pair, 0, len(p.pairs))
	for pr := range p.pairs {
		pairs = append(pairs, pr)
	}
	clear(p.pairs)
	return pairs
}

// acceptLoop accepts until Close and hands each connection to its own
// goroutine, so that a slow dial to the target holds up no other client.
func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			t := time.NewTimer(acceptBackoff)
			select {
			case <-p.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		p.accepted.Add(1)
		tc := c.(*net.TCPConn)
		pr := &pair{p: p, client: tc}
		pr.ctx, pr.cancel = context.WithCancel(p.ctx)
		if !p.register(pr) {
			p.refused.Add(1)
			reset(tc)
			continue
		}
		p.wg.Add(1)
		go p.serve(pr)
	}
}

// register adds pr to the registry unless the proxy is cut or closed, in
// which case the caller resets the connection.
func (p *Proxy) register(pr *pair) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut || p.closed {
		return false
	}
	p.pairs[pr] = struct{}{}
	return true
}

// unregister removes pr from the registry once its goroutines are done.
func (p *Proxy) unregister(pr *pair) {
	p.mu.Lock()
	delete(p.pairs, pr)
	p.mu.Unlock()
}

// serve dials the target for pr and forwards both directions until both
// have ended or the pair is aborted.
func (p *Proxy) serve(pr *pair) {
	defer p.wg.Done()
	defer p.unregister(pr)
	defer pr.abort()

	// pr.ctx ends the dial early when the pair is cut or the proxy closed.
	ctx, cancel := context.WithTimeout(pr.ctx, dialTimeout)
	var d net.Dialer
	sc, err := d.DialContext(ctx, "tcp", p.target)
	cancel()
	if err != nil {
		// The target is down: the client sees a reset, as it would from a
		// server that is not there.
		return
	}
	server := sc.(*net.TCPConn)
	p.mu.Lock()
	if _, ok := p.pairs[pr]; !ok {
		// Cut or Close took the pair while dialing.
		p.mu.Unlock()
		reset(server)
		return
	}
	pr.server = server
	p.mu.Unlock()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.pipe(pr, pr.server, pr.client, &p.fromServer, &p.toClient)
	}()
	p.pipe(pr, pr.client, pr.server, &p.fromClient, &p.toServer)
	wg.Wait()
}

// pipe copies src to dst until src ends, passing the end on: a FIN as a
// half-close of dst, anything else (a reset, a write failure) as an abort of
// the pair. Every write, the half-close and the abort wait at the gate.
func (p *Proxy) pipe(pr *pair, src, dst *net.TCPConn, read, written *atomic.Int64) {
	buf := make([]byte, bufSize)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			read.Add(int64(n))
			if !p.write(pr, dst, buf[:n], written) {
				pr.abort()
				return
			}
		}
		if rerr == nil {
			continue
		}
		if !p.waitFlow(pr) {
			return
		}
		if errors.Is(rerr, io.EOF) {
			_ = dst.CloseWrite()
			return
		}
		pr.abort()
		return
	}
}

// write writes b to dst, waiting at the gate before each attempt, and reports
// whether all of b was written.
func (p *Proxy) write(pr *pair, dst *net.TCPConn, b []byte, count *atomic.Int64) bool {
	for len(b) > 0 {
		p.flow.RLock()
		if p.stalled.Load() {
			p.flow.RUnlock()
			if !p.waitFlow(pr) {
				return false
			}
			continue
		}
		n, err := dst.Write(b)
		// Counted before unlocking, so that Stats read after Stall
		// returns includes every byte written before it.
		count.Add(int64(n))
		p.flow.RUnlock()
		b = b[n:]
		if err == nil {
			continue
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return false
		}
		// Stall interrupted the write (no other code sets a write deadline):
		// clear the deadline and go back to the gate, which holds the rest.
		// Stall set stalled before the deadline, so the next check sees it
		// whenever this clear comes after Stall's deadline.
		_ = dst.SetWriteDeadline(time.Time{})
	}
	return true
}

// waitFlow waits until bytes may flow and reports false if the pair was
// aborted or the proxy closed meanwhile.
func (p *Proxy) waitFlow(pr *pair) bool {
	p.mu.Lock()
	g := p.gate
	p.mu.Unlock()
	select {
	case <-g:
		return true
	case <-pr.ctx.Done():
		// pr.ctx derives from p.ctx, so this covers Close too.
		return false
	}
}

// abort resets both connections of pr and ends its copiers' waits.
func (pr *pair) abort() {
	pr.once.Do(func() {
		pr.cancel()
		reset(pr.client)
		pr.p.mu.Lock()
		s := pr.server
		pr.p.mu.Unlock()
		if s != nil {
			reset(s)
		}
	})
}

// reset closes c so that its peer gets an RST rather than a FIN, as a
// crashed host or a middlebox dropping the connection would cause.
func reset(c *net.TCPConn) {
	_ = c.SetLinger(0)
	_ = c.Close()
}
