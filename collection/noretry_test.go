package collection_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

// lossyConn loses the reply to the next command that contains target: the
// command reaches Redis and runs (the reply is read off the socket), then
// the client sees the connection end, as after a reset.
type lossyConn struct {
	net.Conn
	target *atomic.Value // []byte; nil: pass everything
	armed  atomic.Bool
}

func (c *lossyConn) Write(b []byte) (int, error) {
	if t, _ := c.target.Load().([]byte); t != nil && bytes.Contains(bytes.ToLower(b), t) {
		c.target.Store([]byte(nil))
		c.armed.Store(true)
	}
	return c.Conn.Write(b)
}

func (c *lossyConn) Read(b []byte) (int, error) {
	if c.armed.CompareAndSwap(true, false) {
		if _, err := c.Conn.Read(b); err != nil { // the reply: the command ran
			return 0, err
		}
		_ = c.Conn.Close()
		return 0, io.EOF
	}
	return c.Conn.Read(b)
}

// A write whose reply is lost is not sent again: go-redis would re-send a
// plain RPUSH and store the element twice (shown first, so the test proves
// its point); a List.Add stores it once and returns the error, and so does
// an AddAndGet (no double increment).
func TestWritesAtMostOnce(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	target := &atomic.Value{}
	rdb := srv.NewClient(func(o *redis.Options) {
		o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &lossyConn{Conn: conn, target: target}, nil
		}
	})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := t.Context()

	target.Store([]byte("rpush"))
	require.NoError(t, rdb.RPush(ctx, "plain", "x").Err(), "go-redis re-sent it and got a reply")
	require.Equal(t, []string{"x", "x"}, raw.LRange(ctx, "plain", 0, -1).Val(), "the hazard: stored twice")

	c, err := redisson.New(rdb)
	require.NoError(t, err)
	defer c.Close()
	l := redisson.NewList[string](c, "l", codec.String())
	target.Store([]byte("rpush"))
	require.Error(t, l.Add(ctx, "x"), "the reply was lost")
	require.Equal(t, []string{"x"}, raw.LRange(ctx, "l", 0, -1).Val(), "stored once")

	m := redisson.NewMap[string, int64](c, "m", codec.String())
	target.Store([]byte("hincrbyfloat"))
	_, err = m.AddAndGet(ctx, "n", 1)
	require.Error(t, err, "the reply was lost")
	require.Equal(t, "1", raw.HGet(ctx, "m", "n").Val(), "added once")

	v, err := m.AddAndGet(ctx, "n", 1)
	require.NoError(t, err, "the next call works")
	require.Equal(t, int64(2), v)
}
