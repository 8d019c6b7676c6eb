package redistest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// replicaTimeout bounds the wait for a replica to be in sync with its master.
const replicaTimeout = 15 * time.Second

// StartServer starts a redis-server for the test, with opts[0] when given
// (at most one Options may be passed), and stops it and removes its directory
// at cleanup. It fails the test, saying how to install redis-server, when
// redis-server is missing.
func StartServer(t testing.TB, opts ...Options) *Server {
	t.Helper()
	var o Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		t.Fatalf("redistest.StartServer: at most one Options, got %d", len(opts))
	}
	requireBinary(t)
	s, err := Start(t.Context(), o)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { stopServer(t, s) })
	return s
}

// Client returns a client of s with opts applied to its options, closed at
// cleanup.
func Client(t testing.TB, s *Server, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	c := s.NewClient(opts...)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// StartMasters starts n independent redis-servers concurrently, each on its
// own port, and stops them all at cleanup.
func StartMasters(t testing.TB, n int) []*Server {
	t.Helper()
	requireBinary(t)
	servers, err := startAll(t.Context(), n, Options{})
	if err != nil {
		t.Fatalf("%v", err)
	}
	for _, s := range servers {
		t.Cleanup(func() { stopServer(t, s) })
	}
	return servers
}

// StartReplica starts a redis-server replicating master and waits until the
// replica's link to the master is up and the master counts it as an online
// replica. It is stopped at cleanup, before master when master was started
// earlier in the same test.
func StartReplica(t testing.TB, master *Server) *Server {
	t.Helper()
	r := StartServer(t, Options{Args: []string{"--replicaof", "127.0.0.1", strconv.Itoa(master.Port())}})
	if err := waitReplica(t.Context(), master, r); err != nil {
		t.Fatalf("%v", err)
	}
	return r
}

// StartCluster starts a cluster of masters cluster-enabled servers as
// NewCluster does and stops it at cleanup.
func StartCluster(t testing.TB, masters int) *Cluster {
	t.Helper()
	requireBinary(t)
	c, err := NewCluster(t.Context(), masters)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("redistest: stop cluster: %v", err)
		}
	})
	return c
}

// Client returns a cluster client seeded with all masters, with opts applied
// to its options, closed at cleanup.
func (c *Cluster) Client(t testing.TB, opts ...func(*redis.ClusterOptions)) *redis.ClusterClient {
	t.Helper()
	cl := c.NewClient(opts...)
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// requireBinary fails the test with the install hint when redis-server is
// missing.
func requireBinary(t testing.TB) {
	t.Helper()
	if _, err := Binary(); err != nil {
		t.Fatalf("%v", err)
	}
}

// stopServer stops s and reports a failure to t.
func stopServer(t testing.TB, s *Server) {
	if err := s.Stop(); err != nil {
		t.Errorf("redistest: stop %s: %v", s, err)
	}
}

// waitReplica waits until replica reports master_link_status:up and master
// lists replica as an online replica.
func waitReplica(ctx context.Context, master, replica *Server) error {
	ctx, cancel := context.WithTimeout(ctx, replicaTimeout)
	defer cancel()
	mc := master.NewClient(probeOptions)
	defer mc.Close()
	rc := replica.NewClient(probeOptions)
	defer rc.Close()
	online := fmt.Sprintf("port=%d,state=online", replica.Port())
	var last error
	for {
		last = replicaInSync(ctx, mc, rc, online)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: replica %s of %s not in sync: %w (last: %v); replica log:\n%s",
				replica, master, context.Cause(ctx), last, replica.LogTail(20))
		case <-time.After(pollInterval):
		}
	}
}

// replicaInSync checks the INFO replication of both sides once.
func replicaInSync(ctx context.Context, mc, rc *redis.Client, online string) error {
	info, err := rc.Info(ctx, "replication").Result()
	if err != nil {
		return err
	}
	if st := ParseInfo(info)["master_link_status"]; st != "up" {
		return fmt.Errorf("replica master_link_status:%s", st)
	}
	info, err = mc.Info(ctx, "replication").Result()
	if err != nil {
		return err
	}
	f := ParseInfo(info)
	if n, _ := strconv.Atoi(f["connected_slaves"]); n < 1 {
		return fmt.Errorf("master connected_slaves:%s", f["connected_slaves"])
	}
	for i := range len(f) {
		if strings.Contains(f["slave"+strconv.Itoa(i)], online) {
			return nil
		}
	}
	return fmt.Errorf("master does not list the replica as online")
}

// Main runs a package's tests with servers private redis-servers started
// for it (at least 1): the first one's address goes in REDIS_ADDR and, with
// more than one, all of them comma-separated in REDLOCK_ADDRS, where the
// package's Examples find them as a user's program would. Tests that need
// servers of their own still start them. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(redistest.Main(m, 1)) }
func Main(m *testing.M, servers int) int {
	var started []*Server
	defer func() {
		for _, s := range started {
			if err := s.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "redistest.Main:", err)
			}
		}
	}()
	addrs := make([]string, 0, servers)
	for range max(servers, 1) {
		s, err := Start(context.Background(), Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "redistest.Main:", err)
			return 1
		}
		started = append(started, s)
		addrs = append(addrs, s.Addr())
	}
	env := map[string]string{"REDIS_ADDR": addrs[0]}
	if len(addrs) > 1 {
		env["REDLOCK_ADDRS"] = strings.Join(addrs, ",")
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, "redistest.Main:", err)
			return 1
		}
	}
	return m.Run()
}
