package redistest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// sentinelArgs writes the sentinel's config file (a sentinel rewrites it,
// so it cannot come from the command line) and returns the arguments that
// start redis-server as a sentinel on it.
func (s *Server) sentinelArgs() []string {
	host, port, _ := strings.Cut(s.opts.SentinelOf, ":")
	conf := strings.Join([]string{
		"port " + strconv.Itoa(s.port),
		"bind 127.0.0.1",
		"protected-mode no",
		"daemonize no",
		"dir " + s.dir,
		"logfile " + s.logPath,
		fmt.Sprintf("sentinel monitor %s %s %s 1", SentinelMasterName, host, port),
		"sentinel down-after-milliseconds " + SentinelMasterName + " 1000",
		"sentinel failover-timeout " + SentinelMasterName + " 5000",
		"",
	}, "\n")
	path := filepath.Join(s.dir, "sentinel.conf")
	// A failed write shows up as the sentinel failing to start, with its log.
	_ = os.WriteFile(path, []byte(conf), 0o644)
	return append([]string{path, "--sentinel"}, s.opts.Args...)
}

// StartSentinel starts a Redis Sentinel monitoring master (quorum 1) and
// waits until it reports the master's address.
func StartSentinel(t testing.TB, master *Server) *Server {
	t.Helper()
	s := StartServer(t, Options{SentinelOf: master.Addr()})
	sc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr()})
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		addr, err := sc.GetMasterAddrByName(ctx, SentinelMasterName).Result()
		if err == nil && len(addr) == 2 && addr[0]+":"+addr[1] == master.Addr() {
			return s
		}
		select {
		case <-ctx.Done():
			t.Fatalf("redistest: sentinel %s does not know master %s: %v %v", s.Addr(), master.Addr(), addr, err)
		case <-time.After(pollInterval):
		}
	}
}
