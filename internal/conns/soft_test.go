package conns

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
)

// dialBound dials srv and wraps the connection as the dial hook would.
func dialBound(t *testing.T, b *binder, addr string) *boundConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	bc := &boundConn{Conn: c, sc: c.(syscall.Conn), b: b}
	b.soft.add(bc)
	t.Cleanup(func() { _ = bc.Close() })
	return bc
}

// TestSoftBound: a bound set by Within leaves the socket's deadline alone
// and is ended by the sweeper, not before the bound; a context's own
// deadline still becomes the socket's; the sweeper stops once no bound call
// is under way, or the runtime closed.
func TestSoftBound(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()

	cases := []struct {
		name      string
		ctx       func() (context.Context, context.CancelFunc)
		wantSoft  bool // left to the sweeper (else cut at the ctx's deadline)
		wantLimit bool // pulled into the socket's deadline
	}{
		{"within", func() (context.Context, context.CancelFunc) {
			return &withinCtx{Context: ctx, limit: time.Now().Add(200 * time.Millisecond)}, func() {}
		}, true, false},
		{"within before a later deadline", func() (context.Context, context.CancelFunc) {
			dctx, cancel := context.WithTimeout(ctx, time.Minute)
			return &withinCtx{Context: dctx, limit: time.Now().Add(200 * time.Millisecond)}, cancel
		}, true, false},
		{"deadline before within", func() (context.Context, context.CancelFunc) {
			dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			return &withinCtx{Context: dctx, limit: time.Now().Add(time.Minute)}, cancel
		}, false, true},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 200*time.Millisecond)
		}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &binder{}
			done := make(chan struct{})
			b.soft.done, b.soft.epoch = done, time.Now()
			bc := dialBound(t, b, srv.Addr())
			cctx, cancel := tc.ctx()
			defer cancel()
			bound, _ := limitOf(cctx)

			stop := bc.bind(cctx, false)
			require.Equal(t, tc.wantSoft, bc.soft.Load() != 0, "soft bound")
			require.Equal(t, tc.wantLimit, bc.limit.Load() != 0, "socket limit")
			require.Equal(t, tc.wantSoft, b.soft.on.Load(), "a sweeper runs only for soft bounds")

			// go-redis sets its own deadline before reading, far away;
			// the server sends nothing unasked.
			require.NoError(t, bc.SetReadDeadline(time.Now().Add(time.Minute)))
			read := make(chan error, 1)
			go func() {
				_, err := bc.Read(make([]byte, 16))
				read <- err
			}()
			var err error
			select {
			case err = <-read:
			case <-time.After(10 * time.Second):
				t.Fatal("the read was not cut at its bound")
			}
			require.True(t, errors.Is(err, os.ErrDeadlineExceeded), "%v", err)
			require.False(t, time.Now().Before(bound), "cut before its bound")
			bc.unbind(stop)
			require.Zero(t, bc.soft.Load())
			require.Zero(t, bc.limit.Load())
			require.Zero(t, b.soft.calls.Load())

			if tc.wantSoft {
				// Idle for softLinger looks, or closed: the sweeper stops.
				close(done)
				redistest.Eventually(t, 5*time.Second, "the sweeper stopped", func() bool { return !b.soft.on.Load() })
			}
		})
	}
}

// TestSoftBoundCutsOnlyItsCall: a sweep that finds a call past its bound
// after the call ended does not cut the connection's next call, and a
// closed connection is no longer swept.
func TestSoftBoundCutsOnlyItsCall(t *testing.T) {
	srv := redistest.StartServer(t)
	b := &binder{}
	b.soft.epoch = time.Now()
	bc := dialBound(t, b, srv.Addr())
	past := func() context.Context {
		return &withinCtx{Context: context.Background(), limit: time.Now().Add(-time.Second)}
	}
	// ping sends PING and reads the reply, setting no deadline, as go-redis
	// does with ReadTimeout and WriteTimeout -2.
	ping := func() {
		t.Helper()
		_, err := bc.Write([]byte("PING\r\n"))
		require.NoError(t, err)
		buf := make([]byte, 16)
		n, err := bc.Read(buf)
		require.NoError(t, err)
		require.Equal(t, "+PONG\r\n", string(buf[:n]))
	}

	// A sweep that comes after the call ended cuts nothing.
	stop := bc.bind(past(), false)
	bc.unbind(stop)
	bc.cutPast(b.soft.mono(time.Now()))
	require.Zero(t, bc.limit.Load(), "the ended call's bound does not reach the next call")
	ping()

	// A sweep that comes after the call read its reply, before it ended:
	// the call is over, and its cut must not fail the next one.
	stop = bc.bind(past(), false)
	ping()
	bc.cutPast(b.soft.mono(time.Now()))
	bc.unbind(stop)
	ping()

	// Many times over, with the sweep racing calls bound by a deadline.
	sweeping := make(chan struct{})
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		for {
			select {
			case <-sweeping:
				return
			default:
				bc.cutPast(b.soft.mono(time.Now()))
			}
		}
	}()
	for range 500 {
		stop := bc.bind(past(), false)
		bc.unbind(stop)
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		stop = bc.bind(dctx, false)
		ping()
		bc.unbind(stop)
		cancel()
	}
	close(sweeping)
	<-swept

	require.NoError(t, bc.Close())
	require.Empty(t, b.soft.snapshot(nil), "a closed connection is forgotten")
	// No bound call for softLinger looks: the sweeper stops by itself.
	redistest.Eventually(t, 5*time.Second, "the idle sweeper stopped", func() bool { return !b.soft.on.Load() })
}
