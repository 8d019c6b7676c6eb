package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/leakcheck"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) {
	leakcheck.Main(m)
}

const (
	// shortTimeout is the ReadTimeout of clients that must fail on a stall;
	// only a stall can make a loopback command take that long.
	shortTimeout = 200 * time.Millisecond
	// waitLimit bounds every wait for a condition; reaching it is a failure.
	waitLimit = 10 * time.Second
	// quiet is how long a test watches for bytes that must not arrive: a
	// negative can only be observed over a window.
	quiet = 150 * time.Millisecond
)

// newProxy starts a proxy to target, closed at cleanup.
func newProxy(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := New(target)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// proxyClient is a go-redis client of p without retries, so that each
// command makes exactly one attempt and its error is the proxy's doing.
func proxyClient(t *testing.T, p *Proxy, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	o := &redis.Options{Addr: p.Addr(), MaxRetries: -1}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func withReadTimeout(o *redis.Options) { o.ReadTimeout = shortTimeout }

// waitFor polls cond until it holds, failing the test with cond's last
// message after waitLimit.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		ok, msg := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %s", what, waitLimit, msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// recv waits for a result from ch, failing the test after waitLimit.
func recv[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("%s: no result within %v", what, waitLimit)
		panic("unreachable")
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isConnError reports whether err is what a client sees from a reset or
// closed connection: go-redis reports a reset as io.EOF, a raw read as
// ECONNRESET, a write as EPIPE or ECONNRESET.
func isConnError(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// blockedClients reads blocked_clients from the server's INFO.
func blockedClients(ctx context.Context, c *redis.Client) (int, error) {
	info, err := c.Info(ctx, "clients").Result()
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(redistest.ParseInfo(info)["blocked_clients"])
}

// connectedClients reads connected_clients from the server's INFO.
func connectedClients(ctx context.Context, c *redis.Client) (int, error) {
	info, err := c.Info(ctx, "clients").Result()
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(redistest.ParseInfo(info)["connected_clients"])
}

func TestForwardsBothWays(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	p := newProxy(t, s.Addr())
	c := proxyClient(t, p)
	ctx := t.Context()

	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("GET = %q, %v; want v", got, err)
	}
	// A value many buffers long checks order and completeness.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	if err := c.Set(ctx, "big", big, 0).Err(); err != nil {
		t.Fatalf("SET big: %v", err)
	}
	if got, err := c.Get(ctx, "big").Bytes(); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("GET big: %d bytes, %v; want %d equal bytes", len(got), err, len(big))
	}
	if got, err := redistest.Client(t, s).Get(ctx, "big").Bytes(); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("direct GET big: %d bytes, %v", len(got), err)
	}
	st := p.Stats()
	if st.Accepted < 1 || st.Refused != 0 || st.Active < 1 || st.ToServer < int64(len(big)) || st.ToClient < int64(len(big)) {
		t.Errorf("Stats = %+v", st)
	}
}

func TestStallHoldsRequestsUntilResume(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	direct := redistest.Client(t, s)
	p := newProxy(t, s.Addr())
	c := proxyClient(t, p, withReadTimeout)
	ctx := t.Context()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}

	p.Stall()
	sent := p.Stats().ToServer
	err := c.Set(ctx, "k", "v", 0).Err()
	if !isTimeout(err) {
		t.Fatalf("SET while stalled: %v; want a timeout", err)
	}
	// A client that connects during the stall is accepted, but its
	// handshake is held as well.
	late := proxyClient(t, p, withReadTimeout)
	if err := late.Ping(ctx).Err(); !isTimeout(err) {
		t.Fatalf("PING of a new client while stalled: %v; want a timeout", err)
	}
	if n, err := direct.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS k directly while stalled = %d, %v; want 0", n, err)
	}
	if st := p.Stats(); st.ToServer != sent {
		t.Fatalf("bytes to server went from %d to %d while stalled", sent, st.ToServer)
	}

	p.Resume()
	// go-redis gave up on the SET and closed its connection, but the
	// request had left the client: the server runs it once the network
	// heals, as it would after a real partition.
	waitFor(t, "held SET reaches the server", func() (bool, string) {
		got, err := direct.Get(ctx, "k").Result()
		return err == nil && got == "v", fmt.Sprintf("GET k = %q, %v", got, err)
	})
	// Both clients work again. Each PING has the 200 ms read timeout, which
	// a loaded test machine can miss once; what matters is that requests
	// flow again, so a PING may be repeated until the wait limit.
	waitFor(t, "PING after Resume", func() (bool, string) {
		err := c.Ping(ctx).Err()
		return err == nil, fmt.Sprintf("PING: %v", err)
	})
	waitFor(t, "PING of the late client after Resume", func() (bool, string) {
		err := late.Ping(ctx).Err()
		return err == nil, fmt.Sprintf("PING: %v", err)
	})
}

func TestStallHoldsReplies(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	direct := redistest.Client(t, s)
	p := newProxy(t, s.Addr())
	c := proxyClient(t, p)
	ctx := t.Context()

	type result struct {
		v   []string
		err error
	}
	res := make(chan result, 1)
	go func() {
		v, err := c.BLPop(ctx, 0, "q").Result()
		res <- result{v, err}
	}()
	waitFor(t, "BLPOP blocks", func() (bool, string) {
		n, err := blockedClients(ctx, direct)
		return n == 1, fmt.Sprintf("blocked_clients = %d, %v", n, err)
	})

	p.Stall()
	received := p.Stats().ToClient
	if err := direct.LPush(ctx, "q", "x").Err(); err != nil {
		t.Fatalf("LPUSH: %v", err)
	}
	// The server has answered the BLPOP (the list is empty again and no
	// client is blocked), but the reply is held.
	waitFor(t, "server pops for the BLPOP", func() (bool, string) {
		n, err := direct.LLen(ctx, "q").Result()
		b, berr := blockedClients(ctx, direct)
		return n == 0 && b == 0, fmt.Sprintf("LLEN q = %d, %v; blocked_clients = %d, %v", n, err, b, berr)
	})
	select {
	case r := <-res:
		t.Fatalf("BLPOP returned while stalled: %v, %v", r.v, r.err)
	case <-time.After(quiet):
	}
	if got := p.Stats().ToClient; got != received {
		t.Fatalf("bytes to client went from %d to %d while stalled", received, got)
	}

	p.Resume()
	r := recv(t, "BLPOP after Resume", res)
	if r.err != nil || len(r.v) != 2 || r.v[1] != "x" {
		t.Fatalf("BLPOP = %v, %v; want [q x]", r.v, r.err)
	}
}

// TestStallInterruptsBlockedWrite stalls while the proxy is blocked writing
// a large reply to a client that does not read, and checks that Stall returns
// and that the rest of the reply arrives intact only after Resume.
func TestStallInterruptsBlockedWrite(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	direct := redistest.Client(t, s)
	p := newProxy(t, s.Addr())
	ctx := t.Context()

	// Bigger than the loopback socket buffers on both hops, so that the
	// proxy's write to the client blocks.
	big := bytes.Repeat([]byte("fault-proxy-test"), 2<<20) // 32 MiB
	if err := direct.Set(ctx, "big", big, 0).Err(); err != nil {
		t.Fatalf("SET big: %v", err)
	}
	conn, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("dial proxy: %v", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET big\r\n")); err != nil {
		t.Fatalf("write GET: %v", err)
	}
	waitFor(t, "reply starts flowing", func() (bool, string) {
		st := p.Stats()
		return st.ToClient > 0, fmt.Sprintf("Stats = %+v", st)
	})

	stalled := make(chan struct{})
	go func() {
		p.Stall()
		close(stalled)
	}()
	recv(t, "Stall with a write blocked", stalled)
	delivered := p.Stats().ToClient
	want := append([]byte("$"+strconv.Itoa(len(big))+"\r\n"), big...)
	want = append(want, "\r\n"...)
	if delivered >= int64(len(want)) {
		t.Fatalf("the whole reply (%d bytes) was delivered before Stall; make it bigger", delivered)
	}

	// What was delivered before Stall returned can be read; nothing more.
	rd := bufio.NewReaderSize(conn, 1<<20)
	got := make([]byte, len(want))
	_ = conn.SetReadDeadline(time.Now().Add(waitLimit))
	if _, err := io.ReadFull(rd, got[:delivered]); err != nil {
		t.Fatalf("read the %d bytes delivered before Stall: %v", delivered, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(quiet))
	if n, err := rd.Read(got[delivered:]); n != 0 || !isTimeout(err) {
		t.Fatalf("read while stalled: %d bytes, %v; want none and a timeout", n, err)
	}
	if now := p.Stats().ToClient; now != delivered {
		t.Fatalf("bytes to client went from %d to %d while stalled", delivered, now)
	}

	p.Resume()
	_ = conn.SetReadDeadline(time.Now().Add(waitLimit))
	if _, err := io.ReadFull(rd, got[delivered:]); err != nil {
		t.Fatalf("read the rest after Resume: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the reply read through the proxy differs from the value")
	}
}

func TestCutResetsAndRefusesUntilResume(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	direct := redistest.Client(t, s)
	p := newProxy(t, s.Addr())
	c := proxyClient(t, p)
	ctx := t.Context()
	if err := c.Ping(ctx).Err(); err != nil { // an idle pooled connection
		t.Fatalf("PING: %v", err)
	}
	inFlight := make(chan error, 1)
	go func() { inFlight <- c.BLPop(ctx, 0, "q").Err() }()
	waitFor(t, "BLPOP blocks", func() (bool, string) {
		n, err := blockedClients(ctx, direct)
		return n == 1, fmt.Sprintf("blocked_clients = %d, %v", n, err)
	})

	p.Cut()
	if err := recv(t, "in-flight BLPOP after Cut", inFlight); !isConnError(err) {
		t.Fatalf("in-flight BLPOP after Cut: %v; want a connection error", err)
	}
	// The server's side is reset too: only the direct client is left.
	waitFor(t, "server drops the proxied connections", func() (bool, string) {
		n, err := connectedClients(ctx, direct)
		return n == 1, fmt.Sprintf("connected_clients = %d, %v", n, err)
	})
	// The idle connection is found dead, the new one is reset at once.
	start := time.Now()
	err := c.Ping(ctx).Err()
	if !isConnError(err) {
		t.Fatalf("PING after Cut: %v; want a connection error", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("PING after Cut took %v to fail", d)
	}
	if st := p.Stats(); st.Refused < 1 || st.Active != 0 {
		t.Errorf("Stats after Cut = %+v; want Refused >= 1, Active 0", st)
	}

	p.Resume()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after Resume: %v", err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET after Resume: %v", err)
	}
}

func TestCutWhileStalled(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	direct := redistest.Client(t, s)
	p := newProxy(t, s.Addr())
	c := proxyClient(t, p)
	ctx := t.Context()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}

	p.Stall()
	held := make(chan error, 1)
	go func() { held <- c.Set(ctx, "k", "v", 0).Err() }()
	waitFor(t, "SET held by the proxy", func() (bool, string) {
		st := p.Stats()
		return st.FromClient > st.ToServer, fmt.Sprintf("Stats = %+v", st)
	})
	p.Cut()
	if err := recv(t, "held SET after Cut", held); !isConnError(err) {
		t.Fatalf("held SET after Cut: %v; want a connection error", err)
	}
	p.Resume()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after Resume: %v", err)
	}
	// Cut dropped the held bytes with their connection.
	if n, err := direct.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS k = %d, %v; want 0", n, err)
	}
}

func TestTargetDownLooksLikeReset(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := newProxy(t, addr)
	c := proxyClient(t, p)
	if err := c.Ping(t.Context()).Err(); !isConnError(err) {
		t.Fatalf("PING with the target down: %v; want a connection error", err)
	}
}

func TestNewRejectsBadTarget(t *testing.T) {
	t.Parallel()
	if p, err := New("no-port"); err == nil {
		p.Close()
		t.Fatal("New(no-port) succeeded")
	}
}

// TestCloseLeavesNothing closes a proxy with stalled, held and idle
// connections and checks that every goroutine it started is gone. It is not
// parallel, so that the goroutine snapshot is its own.
func TestCloseLeavesNothing(t *testing.T) {
	s := redistest.StartServer(t)
	direct := redistest.Client(t, s)
	ctx := t.Context()
	if err := direct.Ping(ctx).Err(); err != nil {
		t.Fatalf("direct PING: %v", err)
	}
	before := leakcheck.Current()

	p, err := New(s.Addr())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	p.Stall()
	held := make(chan error, 1)
	go func() { held <- c.Set(ctx, "k", strings.Repeat("x", 1<<20), 0).Err() }()
	waitFor(t, "SET held by the proxy", func() (bool, string) {
		st := p.Stats()
		return st.FromClient > st.ToServer, fmt.Sprintf("Stats = %+v", st)
	})

	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := recv(t, "held SET after Close", held); !isConnError(err) {
		t.Fatalf("held SET after Close: %v; want a connection error", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	p.Stall()
	p.Cut()
	p.Resume()
	if conn, err := net.Dial("tcp", p.Addr()); err == nil {
		conn.Close()
		t.Fatal("dial after Close succeeded")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("client Close: %v", err)
	}
	leakcheck.Verify(t, before)
}
