package core

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ReplicaSync mirrors Redisson's "synced" lock scripts (checkLockSyncedSlaves):
// after a lock write, WAIT until the master's replicas acknowledged it, so a
// failover right after an acquire does not hand the lock to a second owner.
// The EVALSHA and the WAIT go down one connection in one pipeline, so a
// master without replicas costs nothing and one with replicas costs no extra
// round trip.
type ReplicaSync struct {
	// Enabled turns WAIT on (Redisson default: on).
	Enabled bool
	// Timeout is the WAIT timeout (Redisson's slavesSyncTimeout, 1 s).
	Timeout time.Duration
	// FailOnNoSync makes a write that no replica acknowledged fail with
	// ErrNoSyncedReplicas (Redisson's checkLockSyncedSlaves, default true).
	FailOnNoSync bool

	// c is the per-runtime cache of replica counts; behind a pointer so
	// that the settings can be copied (Config holds them by value).
	c *replicaCache
}

type replicaCache struct {
	mu     sync.Mutex
	counts map[string]replicaCount
	first  map[string]chan struct{} // masters whose count is being read the first time
	// failing holds the masters whose last read failed and was logged: a
	// read an ACL refuses fails on every lock write, and one warning until
	// a read succeeds says it all.
	failing map[string]bool
}

type replicaCount struct {
	n       int
	readAt  time.Time
	loading bool
}

// replicaCountTTL bounds how stale a master's replica count may be; Redisson
// caches it per master until the topology changes.
const replicaCountTTL = 5 * time.Second

// SyncResult tells what the replica sync saw.
type SyncResult struct {
	Replicas int // connected replicas of the key's master
	Acked    int // replicas that acknowledged (WAIT's reply), when Replicas > 0
	// Refused is Redis' error reply to the WAIT (an ACL without +wait):
	// nobody can tell whether a replica has the write.
	Refused error
}

// Failed reports whether the write was not acknowledged by any replica,
// or its WAIT was refused.
func (r SyncResult) Failed() bool { return r.Refused != nil || r.Replicas > 0 && r.Acked == 0 }

// Err is the error of a write that Failed, WAIT having waited timeout:
// "no replica acknowledged the write within 1s (2 replicas connected)".
func (r SyncResult) Err(timeout time.Duration) error {
	if r.Refused != nil {
		// A refusal, not a slow replica: say what Redis answered, and
		// let no wait retry it (ErrNoPermission is not Retryable).
		return Errorf(ErrNoSyncedReplicas, "replica sync is on, but Redis refused its WAIT (allow +wait in the ACL, or turn replica sync off): %w", Permission(r.Refused))
	}
	unit := "replicas"
	if r.Replicas == 1 {
		unit = "replica"
	}
	return fmt.Errorf("%w within %v (%d %s connected)", ErrNoSyncedReplicas, timeout, r.Replicas, unit)
}

// master returns the node client that owns key, or nil when the client type
// offers no per-node access (then no WAIT is sent).
func master(ctx context.Context, rdb redis.UniversalClient, key string) (*redis.Client, error) {
	switch c := rdb.(type) {
	case *redis.Client:
		return c, nil
	case *redis.ClusterClient:
		return c.MasterForKey(ctx, key)
	default:
		return nil, nil
	}
}

// cached is replicas for a master whose count was read before: it never
// waits for INFO. known is false for a master not read yet.
func (rs *ReplicaSync) cached(ctx context.Context, node *redis.Client, log *slog.Logger) (n int, known bool) {
	rs.c.mu.Lock()
	_, known = rs.c.counts[node.Options().Addr]
	rs.c.mu.Unlock()
	if !known {
		return 0, false
	}
	return rs.replicas(ctx, node, log), true
}

func (rs *ReplicaSync) replicas(ctx context.Context, node *redis.Client, log *slog.Logger) int {
	addr := node.Options().Addr
	rs.c.mu.Lock()
	if rs.c.counts == nil {
		rs.c.counts = make(map[string]replicaCount)
	}
	rc, ok := rs.c.counts[addr]
	if ok && time.Since(rc.readAt) < replicaCountTTL {
		rs.c.mu.Unlock()
		return rc.n
	}
	if ok {
		// Stale: answer with what we know and refresh in the background, so
		// the lock path never waits on INFO after the first call.
		if !rc.loading {
			rc.loading = true
			rs.c.counts[addr] = rc
			go func() {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
				defer cancel()
				n := rs.read(cctx, node, log)
				rs.store(addr, n, n >= 0)
			}()
		}
		rs.c.mu.Unlock()
		return rc.n
	}
	// First use of this master: one caller reads, the others wait for it.
	if rs.c.first == nil {
		rs.c.first = make(map[string]chan struct{})
	}
	if ch, busy := rs.c.first[addr]; busy {
		rs.c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0
		}
		rs.c.mu.Lock()
		n := rs.c.counts[addr].n
		rs.c.mu.Unlock()
		return n
	}
	ch := make(chan struct{})
	rs.c.first[addr] = ch
	rs.c.mu.Unlock()
	n := rs.read(ctx, node, log)
	rs.store(addr, n, n >= 0)
	rs.c.mu.Lock()
	delete(rs.c.first, addr)
	rs.c.mu.Unlock()
	close(ch)
	return max(n, 0)
}

func (rs *ReplicaSync) store(addr string, n int, ok bool) {
	rs.c.mu.Lock()
	defer rs.c.mu.Unlock()
	if !ok {
		rc := rs.c.counts[addr]
		rc.loading = false
		rs.c.counts[addr] = rc
		return
	}
	rs.c.counts[addr] = replicaCount{n: n, readAt: time.Now()}
}

// recheck marks addr's cached count stale: the next write answers with it
// once more and reads it again in the background.
func (rs *ReplicaSync) recheck(addr string) {
	rs.c.mu.Lock()
	defer rs.c.mu.Unlock()
	if rc, ok := rs.c.counts[addr]; ok {
		rc.readAt = time.Time{}
		rs.c.counts[addr] = rc
	}
}

// Forget drops cached replica counts (tests, topology changes).
func (rs *ReplicaSync) Forget() {
	rs.c.mu.Lock()
	rs.c.counts = nil
	rs.c.mu.Unlock()
}

// read reads node's replica count, -1 when that fails. The first failure
// of a run of them is a warning, the others Debug: without the count no
// WAIT follows a lock write (replica sync is off for that master), which is
// worth saying once, not on every write.
func (rs *ReplicaSync) read(ctx context.Context, node *redis.Client, log *slog.Logger) int {
	addr := node.Options().Addr
	n, err := readReplicaCount(ctx, node)
	rs.c.mu.Lock()
	wasFailing := rs.c.failing[addr]
	if rs.c.failing == nil {
		rs.c.failing = make(map[string]bool)
	}
	rs.c.failing[addr] = err != nil
	rs.c.mu.Unlock()
	switch {
	case err == nil && wasFailing:
		log.Info("redisson: reading the replica count works again; replica sync is back on", "addr", addr, "replicas", n)
	case err == nil:
	case wasFailing:
		log.Debug("redisson: reading the replica count failed again", "addr", addr, "err", err)
	case strings.HasPrefix(err.Error(), "NOPERM"):
		log.Warn("redisson: reading the replica count failed: the ACL must allow INFO (+info, in @dangerous), "+
			"or turn replica sync off (ReplicaSyncOptions.Disabled); until a read succeeds lock writes are not "+
			"followed by WAIT on this master (logged once)", "addr", addr, "err", err)
	default:
		log.Warn("redisson: reading the replica count failed; until a read succeeds lock writes are not "+
			"followed by WAIT on this master (logged once)", "addr", addr, "err", err)
	}
	if err != nil {
		return -1
	}
	return n
}

// readReplicaCount reads connected_slaves from node's INFO replication.
func readReplicaCount(ctx context.Context, node *redis.Client) (int, error) {
	info, err := node.Info(ctx, "replication").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "connected_slaves:"); ok {
			n, err := strconv.Atoi(v)
			if err == nil {
				return n, nil
			}
		}
	}
	return 0, nil
}
