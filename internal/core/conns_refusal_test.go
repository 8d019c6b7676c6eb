package core

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
)

var writeScript = NewScript("test.write", "return redis.call('set', KEYS[1], ARGV[1])")

// TestDedicatedConnClosedAfterRefusal: a dedicated connection whose node
// said it cannot serve writes now (READONLY, MASTERDOWN, LOADING) or that
// go-redis marked bad is closed, on the server too, and not used again;
// one that got any other reply is kept.
func TestDedicatedConnClosedAfterRefusal(t *testing.T) {
	master := redistest.StartServer(t)
	replica := redistest.StartReplica(t, master)
	// A replica that never reaches its master (nothing listens on port 1)
	// and serves no stale data answers MASTERDOWN.
	cut := redistest.StartServer(t)
	cutAdmin := redistest.Client(t, cut)
	require.NoError(t, cutAdmin.ConfigSet(context.Background(), "replica-serve-stale-data", "no").Err())
	require.NoError(t, cutAdmin.Do(context.Background(), "REPLICAOF", "127.0.0.1", "1").Err())
	write := func(ctx context.Context, c *redis.Conn) error {
		_, err := writeScript.run(ctx, c, nil, false, []string{"k"}, []any{"v"})
		return err
	}
	for _, tc := range []struct {
		name   string
		srv    *redistest.Server
		run    func(context.Context, *redis.Conn) error
		want   string // in the error
		closed bool
	}{
		{"READONLY", replica, write, "READONLY", true},
		{"MASTERDOWN", cut, write, "MASTERDOWN", true},
		{"LOADING", master, func(context.Context, *redis.Conn) error {
			// Redis answers LOADING only while it reads its data set.
			return fmt.Errorf("script x: %w", proto("LOADING Redis is loading the dataset in memory"))
		}, "LOADING", true},
		{"marked bad by go-redis", replica, func(ctx context.Context, c *redis.Conn) error {
			if err := write(ctx, c); !redis.HasErrorPrefix(err, "READONLY") {
				return fmt.Errorf("not READONLY: %w", err)
			}
			return write(ctx, c)
		}, "Conn is in a bad state", true},
		{"other reply", master, func(ctx context.Context, c *redis.Conn) error {
			return c.Do(ctx, "eval", "return redis.error_reply('ERR boom')", 0).Err()
		}, "ERR boom", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			node, admin := redistest.Client(t, tc.srv), redistest.Client(t, tc.srv)
			var d dedicatedConns
			t.Cleanup(d.close)
			dc := d.get(node)
			require.NotNil(t, dc)
			id, err := dc.conn.ClientID(ctx).Result()
			require.NoError(t, err)
			err = tc.run(ctx, dc.conn)
			require.ErrorContains(t, err, tc.want)
			d.put(dc, err)

			d.mu.Lock()
			free := append([]*dedicatedConn(nil), d.nodes[node].free...)
			open := d.nodes[node].open
			d.mu.Unlock()
			listed := func() bool { return clientListed(ctx, admin, id) }
			if !tc.closed {
				require.Equal(t, []*dedicatedConn{dc}, free, "kept for the next call")
				require.True(t, listed(), "still open")
				return
			}
			require.Empty(t, free, "not kept")
			require.Zero(t, open)
			redistest.Eventually(t, 10*time.Second, "the server saw it closed", func() bool { return !listed() })
			next := d.get(node)
			require.NotNil(t, next)
			nid, err := next.conn.ClientID(ctx).Result()
			require.NoError(t, err)
			require.NotEqual(t, id, nid, "the next call has another connection")
			d.put(next, nil)
		})
	}
}

// clientListed reports whether the server has a client with id.
func clientListed(ctx context.Context, admin *redis.Client, id int64) bool {
	s, err := admin.Do(ctx, "CLIENT", "LIST", "ID", id).Text()
	return err == nil && s != ""
}
