package core

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
// and is ended by the sweeper, within softEvery of the bound; a context's
// own deadline still becomes the socket's; the sweeper stops once no bound
// call is under way, or the runtime closed.
func TestSoftBound(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()

	cases := []struct {
		name      string
		ctx       func() (context.Context, context.CancelFunc)
		wantSoft  bool // left to the sweeper
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
			b.soft.done = done
			bc := dialBound(t, b, srv.Addr())
			cctx, cancel := tc.ctx()
			defer cancel()

			start := time.Now()
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
			took := time.Since(start)
			require.True(t, errors.Is(err, os.ErrDeadlineExceeded), "%v", err)
			require.GreaterOrEqual(t, took, 200*time.Millisecond, "cut before its bound")
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
	bc := dialBound(t, b, srv.Addr())

	past := &withinCtx{Context: context.Background(), limit: time.Now().Add(-time.Second)}
	stop := bc.bind(past, false)
	bc.unbind(stop)
	bc.cutPast(time.Now().UnixNano()) // a sweep that comes late
	require.Zero(t, bc.limit.Load(), "the ended call's bound does not reach the next call")

	// The connection still answers.
	require.NoError(t, bc.SetDeadline(time.Now().Add(5*time.Second)))
	_, err := bc.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 16)
	n, err := bc.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", string(buf[:n]))

	require.NoError(t, bc.Close())
	require.Empty(t, b.soft.snapshot(nil), "a closed connection is forgotten")
	// No bound call for softLinger looks: the sweeper stops by itself.
	redistest.Eventually(t, 5*time.Second, "the idle sweeper stopped", func() bool { return !b.soft.on.Load() })
}
