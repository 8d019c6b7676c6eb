// Package replicas caches how many replicas each Redis master has, so that
// a lock write is followed by WAIT only where a replica can acknowledge it.
package replicas

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// New returns an empty cache that logs failed reads to log.
func New(log *slog.Logger) *Counts { return &Counts{log: log} }

// Counts caches the replica count of each master, read with INFO
// replication, for one client. The zero value is not usable: use New.
type Counts struct {
	log    *slog.Logger
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

// Cached is Count for a master whose count was read before: it never
// waits for INFO. known is false for a master not read yet.
func (rs *Counts) Cached(ctx context.Context, node *redis.Client) (n int, known bool) {
	rs.mu.Lock()
	_, known = rs.counts[node.Options().Addr]
	rs.mu.Unlock()
	if !known {
		return 0, false
	}
	return rs.Count(ctx, node), true
}

// Count returns the number of replicas connected to node, read again in the
// background once the count is older than replicaCountTTL; 0 when it
// cannot be read.
func (rs *Counts) Count(ctx context.Context, node *redis.Client) int {
	addr := node.Options().Addr
	rs.mu.Lock()
	if rs.counts == nil {
		rs.counts = make(map[string]replicaCount)
	}
	rc, ok := rs.counts[addr]
	if ok && time.Since(rc.readAt) < replicaCountTTL {
		rs.mu.Unlock()
		return rc.n
	}
	if ok {
		// Stale: answer with what we know and refresh in the background, so
		// the lock path never waits on INFO after the first call.
		if !rc.loading {
			rc.loading = true
			rs.counts[addr] = rc
			go func() {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
				defer cancel()
				n := rs.read(cctx, node)
				rs.store(addr, n, n >= 0)
			}()
		}
		rs.mu.Unlock()
		return rc.n
	}
	// First use of this master: one caller reads, the others wait for it.
	if rs.first == nil {
		rs.first = make(map[string]chan struct{})
	}
	if ch, busy := rs.first[addr]; busy {
		rs.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0
		}
		rs.mu.Lock()
		n := rs.counts[addr].n
		rs.mu.Unlock()
		return n
	}
	ch := make(chan struct{})
	rs.first[addr] = ch
	rs.mu.Unlock()
	n := rs.read(ctx, node)
	rs.store(addr, n, n >= 0)
	rs.mu.Lock()
	delete(rs.first, addr)
	rs.mu.Unlock()
	close(ch)
	return max(n, 0)
}

func (rs *Counts) store(addr string, n int, ok bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !ok {
		rc := rs.counts[addr]
		rc.loading = false
		rs.counts[addr] = rc
		return
	}
	rs.counts[addr] = replicaCount{n: n, readAt: time.Now()}
}

// Recheck marks addr's cached count stale: the next write answers with it
// once more and reads it again in the background.
func (rs *Counts) Recheck(addr string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rc, ok := rs.counts[addr]; ok {
		rc.readAt = time.Time{}
		rs.counts[addr] = rc
	}
}

// Forget drops cached replica counts (tests, topology changes).
func (rs *Counts) Forget() {
	rs.mu.Lock()
	rs.counts = nil
	rs.mu.Unlock()
}

// read reads node's replica count, -1 when that fails. The first failure
// of a run of them is a warning, the others Debug: without the count no
// WAIT follows a lock write (replica sync is off for that master), which is
// worth saying once, not on every write.
func (rs *Counts) read(ctx context.Context, node *redis.Client) int {
	log := rs.log
	addr := node.Options().Addr
	n, err := readReplicaCount(ctx, node)
	rs.mu.Lock()
	wasFailing := rs.failing[addr]
	if rs.failing == nil {
		rs.failing = make(map[string]bool)
	}
	rs.failing[addr] = err != nil
	rs.mu.Unlock()
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
