package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/leakcheck"
)

func TestMain(m *testing.M) {
	leakcheck.Main(m)
}

func TestServerPingSetGet(t *testing.T) {
	t.Parallel()
	s := StartServer(t, Options{Args: []string{"--maxmemory", "10mb"}})
	ctx := t.Context()
	c := Client(t, s)

	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("GET = %q, %v; want v", got, err)
	}
	if got := s.Addr(); got != "127.0.0.1:"+strconv.Itoa(s.Port()) {
		t.Errorf("Addr() = %q, Port() = %d", got, s.Port())
	}
	cfg, err := c.ConfigGet(ctx, "maxmemory").Result()
	if err != nil || cfg["maxmemory"] != strconv.Itoa(10<<20) {
		t.Errorf("extra args not applied: CONFIG GET maxmemory = %v, %v", cfg, err)
	}
	cfg, err = c.ConfigGet(ctx, "save").Result()
	if err != nil || cfg["save"] != "" {
		t.Errorf("persistence not off: CONFIG GET save = %v, %v", cfg, err)
	}
	if fi, err := os.Stat(s.Dir()); err != nil || !fi.IsDir() {
		t.Errorf("Dir() %q: %v", s.Dir(), err)
	}
	if tail := s.LogTail(50); !strings.Contains(tail, "Ready to accept connections") {
		t.Errorf("LogTail(50) lacks the ready line:\n%s", tail)
	}
	if n := len(strings.Split(s.LogTail(2), "\n")); n != 2 {
		t.Errorf("LogTail(2) has %d lines", n)
	}
}

func TestKillRestartSamePort(t *testing.T) {
	t.Parallel()
	s := StartServer(t)
	ctx := t.Context()
	port := s.Port()
	c := Client(t, s, func(o *redis.Options) { o.MaxRetries = -1 })
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}

	if err := s.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatal("PING answered after Kill")
	}
	if _, err := os.Stat(s.Dir()); err != nil {
		t.Fatalf("Kill removed the directory: %v", err)
	}
	if err := s.Kill(); err != nil {
		t.Fatalf("second Kill: %v", err)
	}

	if err := s.Restart(ctx); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if s.Port() != port {
		t.Fatalf("Restart moved the server from port %d to %d", port, s.Port())
	}
	c2 := Client(t, s)
	if err := c2.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after Restart: %v", err)
	}
	if n, err := c2.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Errorf("EXISTS k after Restart = %d, %v; want 0 (no persistence)", n, err)
	}
	if err := c2.Set(ctx, "k2", "v2", 0).Err(); err != nil {
		t.Fatalf("SET after Restart: %v", err)
	}

	// Restart of a running server kills and starts it again.
	if err := s.Restart(ctx); err != nil {
		t.Fatalf("Restart of a running server: %v", err)
	}
	if err := Client(t, s).Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after second Restart: %v", err)
	}
}

func TestStopIsIdempotent(t *testing.T) {
	t.Parallel()
	s, err := Start(t.Context(), Options{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stop left %s: %v", s.Dir(), err)
	}
	if err := s.Restart(t.Context()); err == nil {
		t.Error("Restart after Stop succeeded")
	}
	if err := s.Kill(); err == nil {
		t.Error("Kill after Stop succeeded")
	}
	conn, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err == nil {
		conn.Close()
		t.Errorf("something still listens on %s after Stop", s.Addr())
	}
}

func TestStartFailsFastWhenPortTaken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	begin := time.Now()
	s, err := Start(t.Context(), Options{Port: port})
	if err == nil {
		s.Stop()
		t.Fatalf("Start on taken port %d succeeded", port)
	}
	if !strings.Contains(err.Error(), "Address already in use") {
		t.Errorf("error lacks the log tail: %v", err)
	}
	if d := time.Since(begin); d > readyTimeout/2 {
		t.Errorf("Start took %v to notice the server had exited", d)
	}
}

func TestStartMastersDistinctPorts(t *testing.T) {
	t.Parallel()
	servers := StartMasters(t, 3)
	if len(servers) != 3 {
		t.Fatalf("got %d servers", len(servers))
	}
	ports := make(map[int]bool)
	for _, s := range servers {
		if ports[s.Port()] {
			t.Fatalf("port %d used twice", s.Port())
		}
		ports[s.Port()] = true
		if err := Client(t, s).Ping(t.Context()).Err(); err != nil {
			t.Fatalf("PING %s: %v", s, err)
		}
	}
}

func TestStartReplica(t *testing.T) {
	t.Parallel()
	m := StartServer(t)
	r := StartReplica(t, m)
	ctx := t.Context()
	mc := Client(t, m)
	rc := Client(t, r)

	if err := mc.Set(ctx, "replicated", "yes", 0).Err(); err != nil {
		t.Fatalf("SET on master: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := rc.Get(ctx, "replicated").Result()
		if err == nil && got == "yes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica GET = %q, %v; want yes", got, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := rc.Set(ctx, "k", "v", 0).Err(); err == nil || !strings.Contains(err.Error(), "READONLY") {
		t.Errorf("SET on replica: %v, want READONLY", err)
	}
}

func TestStartCluster(t *testing.T) {
	t.Parallel()
	cl := StartCluster(t, 3)
	ctx := t.Context()
	if len(cl.Masters) != 3 || len(cl.Addrs()) != 3 {
		t.Fatalf("cluster has %d masters, %d addrs", len(cl.Masters), len(cl.Addrs()))
	}
	cc := cl.Client(t)

	const keys = 100
	for i := range keys {
		k := fmt.Sprintf("key:%d", i)
		if err := cc.Set(ctx, k, i, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	for i := range keys {
		k := fmt.Sprintf("key:%d", i)
		if got, err := cc.Get(ctx, k).Int(); err != nil || got != i {
			t.Fatalf("GET %s = %d, %v; want %d", k, got, err, i)
		}
	}

	// Every key lives on the master whose slot range holds CLUSTER KEYSLOT
	// of the key, and the keys are spread over all masters.
	direct := make([]*redis.Client, len(cl.Masters))
	for i, s := range cl.Masters {
		direct[i] = Client(t, s)
	}
	ranges := cl.ranges()
	perMaster := make([]int, len(cl.Masters))
	for i := range keys {
		k := fmt.Sprintf("key:%d", i)
		slot, err := direct[0].ClusterKeySlot(ctx, k).Result()
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT %s: %v", k, err)
		}
		owner := -1
		for j, r := range ranges {
			if int(slot) >= r.start && int(slot) <= r.end {
				owner = j
			}
		}
		if owner < 0 {
			t.Fatalf("slot %d of %s in no range %v", slot, k, ranges)
		}
		if got, err := direct[owner].Get(ctx, k).Int(); err != nil || got != i {
			t.Fatalf("GET %s on owner %s (slot %d) = %d, %v", k, cl.Masters[owner], slot, got, err)
		}
		perMaster[owner]++
	}
	for j, n := range perMaster {
		if n == 0 {
			t.Errorf("no key on master %s: %v", cl.Masters[j], perMaster)
		}
		if size, err := direct[j].DBSize(ctx).Result(); err != nil || size != int64(n) {
			t.Errorf("DBSIZE on %s = %d, %v; want %d", cl.Masters[j], size, err, n)
		}
	}
}

func TestNewClusterRejectsBadSize(t *testing.T) {
	t.Parallel()
	if c, err := NewCluster(t.Context(), 0); err == nil {
		c.Stop()
		t.Fatal("NewCluster(0) succeeded")
	}
}

func TestBinaryMissing(t *testing.T) {
	t.Setenv("REDIS_SERVER", "/nonexistent")
	_, err := Binary()
	if err == nil {
		t.Fatal("Binary() with REDIS_SERVER=/nonexistent succeeded")
	}
	for _, want := range []string{
		"redis-server not found",
		`run "make test"`,
		"sudo apt-get install -y redis-server",
		"brew install redis",
		"set REDIS_SERVER",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Binary() error %q lacks %q", err, want)
		}
	}
	if _, err := Start(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), "redis-server not found") {
		t.Errorf("Start with a missing binary: %v", err)
	}
}

func TestBinaryFromEnv(t *testing.T) {
	path, err := Binary()
	if err != nil {
		t.Fatalf("Binary(): %v", err)
	}
	t.Setenv("REDIS_SERVER", path)
	got, err := Binary()
	if err != nil || got != path {
		t.Fatalf("Binary() with REDIS_SERVER=%s = %q, %v", path, got, err)
	}
}

func TestParseInfo(t *testing.T) {
	t.Parallel()
	f := ParseInfo("# Replication\r\nrole:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=1,state=online\r\n\r\n")
	if f["role"] != "master" || f["connected_slaves"] != "1" || f["slave0"] != "ip=127.0.0.1,port=1,state=online" || len(f) != 3 {
		t.Errorf("ParseInfo = %v", f)
	}
}

func TestMonitor(t *testing.T) {
	srv := StartServer(t)
	rdb := Client(t, srv)
	m, err := StartMonitor(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if err := rdb.Eval(ctx, `return redis.call('set', KEYS[1], ARGV[1])`, []string{"k"}, `a "q"`).Err(); err != nil {
		t.Fatal(err)
	}
	var got []MonitorLine
	for len(got) < 2 {
		select {
		case line := <-m.Lines():
			if l, ok := ParseMonitorLine(line); ok && l.Command != "hello" && l.Command != "client" {
				got = append(got, l)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("monitor saw only %v", got)
		}
	}
	if got[0].Command != "eval" || !got[0].TopLevel() || got[1].Command != "set" || got[1].TopLevel() {
		t.Fatalf("unexpected lines %+v", got)
	}
	if got[1].Args[1] != `a "q"` {
		t.Fatalf("unquoting: %q", got[1].Args[1])
	}
}

func TestClusterWithReplicas(t *testing.T) {
	c := StartClusterWithReplicas(t, 3)
	if len(c.Replicas) != 3 {
		t.Fatalf("%d replicas", len(c.Replicas))
	}
	ctx := context.Background()
	for i, r := range c.Replicas {
		if IsMaster(ctx, r) || !IsMaster(ctx, c.Masters[i]) {
			t.Fatalf("roles of pair %d wrong", i)
		}
		if c.ReplicaOf(c.Masters[i]) != r {
			t.Fatalf("ReplicaOf(master %d)", i)
		}
	}
	cl := c.Client(t)
	if err := cl.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v := cl.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("got %q", v)
	}
}

// TestSplitQuotedEscapes: MONITOR's escapes read back as the bytes sent.
func TestSplitQuotedEscapes(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`"hset" "k" "a\"b"`, []string{"hset", "k", `a"b`}},
		{`"publish" "c" "\x01\x00\xff" "x\\y"`, []string{"publish", "c", "\x01\x00\xff", `x\y`}},
		{`"set" "k" "\n\r\t\a\b"`, []string{"set", "k", "\n\r\t\a\b"}},
		{`"set" "k" "x01"`, []string{"set", "k", "x01"}},
	} {
		got := splitQuoted(tc.line)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: got %q", tc.line, got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: arg %d is %q, want %q", tc.line, i, got[i], tc.want[i])
			}
		}
	}
}
