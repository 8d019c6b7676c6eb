package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/redistest"
)

var echoScript = NewScript("test.echo", "return ARGV[1]")

func newTestRuntime(t *testing.T, rdb *redis.Client) *Runtime {
	rt := New(Config{Redis: rdb, Timeout: time.Second})
	t.Cleanup(rt.Close)
	return rt
}

func TestDedicatedConnections(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := srv.NewClient(func(o *redis.Options) { o.PoolSize = 8 })
	t.Cleanup(func() { rdb.Close() })
	rt := newTestRuntime(t, rdb)
	ctx := context.Background()

	// Sequential calls reuse one dedicated connection.
	for i := range 20 {
		v, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, i)
		require.NoError(t, err)
		require.Equal(t, strconv.Itoa(i), v)
	}
	require.Equal(t, 1, rt.conns.Open())

	// Concurrent calls open more, up to a quarter of the pool.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 50 {
				if _, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.LessOrEqual(t, rt.conns.Open(), 2, "8/4")

	// A connection idle for longer than the limit goes back to the pool
	// instead of being used without go-redis' probe.
	rt.conns.SetIdle(time.Nanosecond)
	before := rdb.PoolStats().IdleConns
	_, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, 1)
	require.NoError(t, err)
	require.Equal(t, 1, rt.conns.Open(), "the idle ones were given back, one new one taken")
	require.Greater(t, rdb.PoolStats().IdleConns, before-1)

	rt.Close()
	st := rdb.PoolStats()
	require.Equal(t, 0, rt.conns.Open())
	require.Equal(t, st.TotalConns, st.IdleConns, "all back in the pool: %+v", st)
	_, _, err = rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, 1)
	require.NoError(t, err, "a closed runtime's scripts go through the pool")
	require.Equal(t, 0, rt.conns.Open())
}

func TestErrorClasses(t *testing.T) {
	closedWrite := &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}
	for _, tc := range []struct {
		name                       string
		err                        error
		reply, notSent, peerClosed bool
	}{
		{"reply", redis.Nil, true, false, false},
		{"wrongtype", WrapRedisError("op", proto("WRONGTYPE x")), true, false, false},
		{"eof", io.EOF, false, false, true},
		{"reset on read", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, false, false, true},
		{"closed before write", closedWrite, false, true, true},
		// go-redis sets the read deadline after the write: it may have run.
		{"closed deadline", &net.OpError{Op: "set", Err: net.ErrClosed}, false, false, true},
		{"closed on read", &net.OpError{Op: "read", Err: net.ErrClosed}, false, false, true},
		{"bad sticky conn", fmt.Errorf("rlock.acquire: %w", errors.New("redis: Conn is in a bad state: EOF")), false, true, false},
		// go-redis wraps the reply that made it mark the Conn bad: that
		// reply was to an earlier command, this one was never sent.
		{"bad sticky conn after READONLY", fmt.Errorf("rlock.acquire: %w", badConnErr{proto("READONLY You can't write against a read only replica.")}), false, true, false},
		{"timeout", context.DeadlineExceeded, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.reply, isReply(tc.err), "isReply")
			if !tc.reply {
				require.Equal(t, tc.notSent, NotSent(tc.err), "NotSent")
				require.Equal(t, tc.peerClosed, conns.PeerClosed(tc.err), "PeerClosed")
			}
		})
	}
}

// badConnErr is shaped as go-redis' (internal) BadConnError.
type badConnErr struct{ err error }

func (e badConnErr) Error() string { return "redis: Conn is in a bad state: " + e.err.Error() }
func (e badConnErr) Unwrap() error { return e.err }

type proto string

func (p proto) Error() string { return string(p) }
func (proto) RedisError()     {}
