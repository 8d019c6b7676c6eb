package redissontest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// within bounds every wait for a condition: a hang guard, not a timing
// assertion.
const within = 10 * time.Second

// TestServer: a lock of the Client shows in the server the go-redis client
// reads, and is gone once released.
func TestServer(t *testing.T) {
	srv := redissontest.NewServer(t)
	require.True(t, strings.HasPrefix(srv.Addr(), "127.0.0.1:"), srv.Addr())
	require.Equal(t, srv.Addr(), srv.String())
	raw := srv.Redis(t)
	h, err := srv.Client(t).Lock("l").Lock(t.Context())
	require.NoError(t, err)
	require.Equal(t, "hash", raw.Type(t.Context(), "l").Val())
	require.NoError(t, h.Unlock(t.Context()))
	require.Zero(t, raw.Exists(t.Context(), "l").Val())
}

// TestWithArgs: the arguments reach redis-server.
func TestWithArgs(t *testing.T) {
	srv := redissontest.NewServer(t, redissontest.WithArgs("--maxmemory", "10mb"))
	got := srv.Redis(t).ConfigGet(t.Context(), "maxmemory").Val()
	require.Equal(t, "10485760", got["maxmemory"])
}

// TestKillRestart: a killed server refuses the Client's calls; restarted,
// it serves them again on the same address, empty.
func TestKillRestart(t *testing.T) {
	srv := redissontest.NewServer(t)
	c := srv.Client(t, redisson.WithTimeout(time.Second))
	n := c.AtomicLong("n")
	_, err := n.IncrementAndGet(t.Context())
	require.NoError(t, err)
	addr := srv.Addr()
	srv.Kill(t)
	_, err = n.IncrementAndGet(t.Context())
	require.Error(t, err)
	srv.Restart(t)
	require.Equal(t, addr, srv.Addr())
	redistest.Eventually(t, within, "the client reaches the restarted server", func() bool {
		v, err := n.Get(t.Context())
		return err == nil && v == 0
	})
}

// TestCluster: three masters, and a Client whose keys land on all of them.
func TestCluster(t *testing.T) {
	cl := redissontest.NewCluster(t)
	require.Len(t, cl.Addrs(), 3)
	c := cl.Client(t)
	names := strings.Split("abcdefghijklmnopqrstuvwxyz", "")
	for _, name := range names {
		_, err := c.AtomicLong(name).IncrementAndGet(t.Context())
		require.NoError(t, err)
	}
	total := int64(0)
	for i, m := range cl.Masters() {
		require.Equal(t, cl.Addrs()[i], m.Addr())
		raw := m.Redis(t)
		n := int64(0)
		for _, name := range names {
			if slot := cl.Redis(t).ClusterKeySlot(t.Context(), name).Val(); slot >= int64(i)*16384/3 && slot < int64(i+1)*16384/3 {
				require.EqualValues(t, 1, raw.Exists(t.Context(), name).Val(), "key %s on master %d", name, i)
				n++
			}
		}
		require.Positive(t, n, "master %d serves none of the keys", i)
		total += n
	}
	require.EqualValues(t, 26, total)
}

// TestReplicated: a lock taken through the primary is on every replica, and
// the Client waited for one of them to acknowledge it.
func TestReplicated(t *testing.T) {
	r := redissontest.NewReplicated(t, 2)
	require.Len(t, r.Replicas(), 2)
	require.Equal(t, r.Primary().Addr(), r.Addr())
	h, err := r.Client(t).Lock("l").Lock(t.Context())
	require.NoError(t, err)
	defer func() { require.NoError(t, h.Unlock(context.WithoutCancel(t.Context()))) }()
	require.EqualValues(t, 1, r.Redis(t).Exists(t.Context(), "l").Val())
	for i, rep := range r.Replicas() {
		raw := rep.Redis(t)
		redistest.Eventually(t, within, "the lock reaches replica "+rep.Addr(), func() bool {
			return raw.Exists(t.Context(), "l").Val() == 1
		})
		info := redistest.ParseInfo(raw.Info(t.Context(), "replication").Val())
		require.Equal(t, "slave", info["role"], "replica %d", i)
	}
}

// TestClientAt: a Client of an address, and NewClient over a go-redis client
// the test owns.
func TestClientAt(t *testing.T) {
	srv := redissontest.NewServer(t)
	m := redisson.NewMap[string, string](redissontest.ClientAt(t, srv.Addr()), "m", codec.String())
	_, _, err := m.Put(t.Context(), "k", "v")
	require.NoError(t, err)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	m2 := redisson.NewMap[string, string](redissontest.NewClient(t, rdb), "m", codec.String())
	v, ok, err := m2.Get(t.Context(), "k")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "v", v)
}

// TestExampleLocker: the production Locker of Example_fakeLock holds a real
// lock while the transfer runs and releases it.
func TestExampleLocker(t *testing.T) {
	srv := redissontest.NewServer(t)
	raw := srv.Redis(t)
	l := RedissonLocker{Client: srv.Client(t)}
	balances := map[string]int{"alice": 100}
	err := l.WithLock(t.Context(), "account:alice", func(ctx context.Context) error {
		require.EqualValues(t, 1, raw.Exists(ctx, "account:alice").Val())
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, raw.Exists(t.Context(), "account:alice").Val())
	require.NoError(t, Transfer(t.Context(), l, balances, "alice", "bob", 30))
	require.Equal(t, map[string]int{"alice": 70, "bob": 30}, balances)
	require.Zero(t, raw.Exists(t.Context(), "account:alice").Val())
	require.Error(t, Transfer(t.Context(), l, balances, "bob", "alice", 50))
	require.Zero(t, raw.Exists(t.Context(), "account:bob").Val())
}

// missingEnv marks the child process of TestMissingRedisServer and names
// the constructor it calls.
const missingEnv = "REDISSONTEST_MISSING_CHILD"

// TestMissingRedisServer: without redis-server every constructor fails the
// test, saying how to install it; none skips.
func TestMissingRedisServer(t *testing.T) {
	starts := map[string]func(testing.TB){
		"NewServer":     func(t testing.TB) { redissontest.NewServer(t) },
		"NewCluster":    func(t testing.TB) { redissontest.NewCluster(t) },
		"NewReplicated": func(t testing.TB) { redissontest.NewReplicated(t, 1) },
	}
	if name := os.Getenv(missingEnv); name != "" {
		starts[name](t)
		t.Log("CHILD CONTINUED")
		return
	}
	for name := range starts {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMissingRedisServer$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), missingEnv+"="+name, "REDIS_SERVER=/nonexistent/redis-server")
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "%s", out)
			require.Contains(t, string(out), "--- FAIL: TestMissingRedisServer")
			require.Contains(t, string(out), "redis-server not found")
			require.Contains(t, string(out), "apt-get install -y redis-server")
			require.NotContains(t, string(out), "SKIP")
			require.NotContains(t, string(out), "CHILD CONTINUED")
		})
	}
}
