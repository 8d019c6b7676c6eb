package conns

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
)

// writeScript sends a write once, as a lock script goes (never re-sent).
func writeScript(ctx context.Context, c *redis.Conn) error {
	return c.Process(ctx, noRetryCmd{redis.NewCmd(ctx, "eval", "return redis.call('set', KEYS[1], ARGV[1])", 1, "k", "v")})
}

type proto string

func (p proto) Error() string { return string(p) }
func (proto) RedisError()     {}

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
		return writeScript(ctx, c)
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
			var d dedicated
			t.Cleanup(d.close)
			dc := d.get(node)
			require.NotNil(t, dc)
			id, err := dc.conn.ClientID(ctx).Result()
			require.NoError(t, err)
			err = tc.run(ctx, dc.conn)
			require.ErrorContains(t, err, tc.want)
			d.put(dc, err, isReply(err))

			d.mu.Lock()
			free := append([]*Conn(nil), d.nodes[node].free...)
			open := d.nodes[node].open
			d.mu.Unlock()
			listed := func() bool { return clientListed(ctx, admin, id) }
			if !tc.closed {
				require.Equal(t, []*Conn{dc}, free, "kept for the next call")
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
			d.put(next, nil, false)
		})
	}
}

// clientListed reports whether the server has a client with id.
func clientListed(ctx context.Context, admin *redis.Client, id int64) bool {
	s, err := admin.Do(ctx, "CLIENT", "LIST", "ID", id).Text()
	return err == nil && s != ""
}

// TestDedicatedForgetsUnusedNodes: when a node is first asked for, the
// nodes nothing was taken from for dedicatedAge (on a cluster, node
// clients replaced after a failover or a resharding) are forgotten and
// their connections given back to their pools.
func TestDedicatedForgetsUnusedNodes(t *testing.T) {
	srvs := redistest.StartMasters(t, 2)
	a, b := redistest.Client(t, srvs[0]), redistest.Client(t, srvs[1])
	var d dedicated
	ctx := context.Background()
	take := func(node *redis.Client) {
		t.Helper()
		dc := d.get(node)
		require.NotNil(t, dc)
		require.NoError(t, dc.conn.Ping(ctx).Err())
		d.put(dc, nil, false)
	}
	take(a)
	take(b)
	// One of a's connections is parked (see retire): the sweep gives it
	// back too.
	d.nodes[a].max = 2
	first, parked := d.get(a), d.get(a)
	require.NoError(t, first.conn.Ping(ctx).Err())
	require.NoError(t, parked.conn.Ping(ctx).Err())
	d.park(parked)
	d.put(first, nil, false)
	require.EqualValues(t, 2, a.PoolStats().TotalConns)
	d.mu.Lock()
	require.Len(t, d.nodes, 2)
	require.Len(t, d.nodes[a].parked, 1)
	d.nodes[a].last = time.Now().Add(-2 * dedicatedAge)
	d.mu.Unlock()
	take(b)
	d.mu.Lock()
	require.Len(t, d.nodes, 2, "asking for a known node sweeps nothing")
	d.mu.Unlock()

	c := redistest.Client(t, redistest.StartServer(t))
	take(c)
	d.mu.Lock()
	_, kept := d.nodes[a]
	_, keptB := d.nodes[b]
	d.mu.Unlock()
	require.False(t, kept, "the node unused for long is forgotten")
	require.True(t, keptB)
	st := a.PoolStats()
	require.Equal(t, st.TotalConns, st.IdleConns, "its connection is back in its pool: %+v", st)
	d.close()
}
