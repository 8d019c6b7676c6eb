package redistest

import (
	"strconv"
	"strings"
	"testing"
)

// StartReplicaVia starts a redis-server replicating master whose
// replication link goes to link (host:port) instead of master's own
// address, e.g. a fault proxy in front of master, so that a test can stall
// or cut replication alone. It waits until the link is up and master counts
// the replica online (the replica announces its own port), and is stopped
// at cleanup.
func StartReplicaVia(t testing.TB, master *Server, link string) *Server {
	t.Helper()
	host, port, ok := strings.Cut(link, ":")
	if _, err := strconv.Atoi(port); !ok || err != nil {
		t.Fatalf("redistest: replica link %q is not host:port", link)
	}
	r := StartServer(t, Options{Args: []string{"--replicaof", host, port}})
	if err := waitReplica(t.Context(), master, r); err != nil {
		t.Fatalf("%v", err)
	}
	return r
}
