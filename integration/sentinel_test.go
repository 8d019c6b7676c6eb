package integration

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/rlock"
)

// sentinelSetup is a master, one replica replicating through a fault proxy
// (so that replication alone can be stalled) and a Sentinel.
type sentinelSetup struct {
	master, replica, sentinel *redistest.Server
	link                      *faultproxy.Proxy
	sc                        *redis.SentinelClient
}

func startSentinelSetup(t *testing.T) sentinelSetup {
	t.Helper()
	var s sentinelSetup
	s.master = redistest.StartServer(t)
	var err error
	s.link, err = faultproxy.New(s.master.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.link.Close() })
	s.replica = redistest.StartReplicaVia(t, s.master, s.link.Addr())
	s.sentinel = redistest.StartSentinel(t, s.master)
	s.sc = redis.NewSentinelClient(&redis.Options{Addr: s.sentinel.Addr()})
	t.Cleanup(func() { _ = s.sc.Close() })
	redistest.Eventually(t, 30*time.Second, "the sentinel knows the replica", func() bool {
		rs, err := s.sc.Replicas(context.Background(), redistest.SentinelMasterName).Result()
		return err == nil && len(rs) == 1
	})
	return s
}

// client returns a Client over a Sentinel failover client.
func (s sentinelSetup) client(t *testing.T, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    redistest.SentinelMasterName,
		SentinelAddrs: []string{s.sentinel.Addr()},
	})
	t.Cleanup(func() { _ = rdb.Close() })
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// killMasterAndFailOver kills the master with SIGKILL and waits until
// Sentinel has promoted the replica; it returns how long that took.
func (s sentinelSetup) killMasterAndFailOver(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	require.NoError(t, s.master.Kill())
	ctx := context.Background()
	newMaster := redistest.Client(t, s.replica)
	redistest.Eventually(t, 60*time.Second, "Sentinel promoted the replica", func() bool {
		role, err := newMaster.Do(ctx, "ROLE").Slice()
		if err != nil || len(role) == 0 || role[0] != "master" {
			return false
		}
		addr, err := s.sc.GetMasterAddrByName(ctx, redistest.SentinelMasterName).Result()
		return err == nil && len(addr) == 2 && addr[0]+":"+addr[1] == s.replica.Addr()
	})
	return time.Since(start)
}

// TestSentinelFailoverKeepsSyncedLocks: with replica sync on (the default)
// a lock's acquire returns only once the replica acknowledged it (WAIT), so
// when the master dies right after, the promoted replica has the lock:
// another client cannot take it, and its holder unlocks it normally.
func TestSentinelFailoverKeepsSyncedLocks(t *testing.T) {
	s := startSentinelSetup(t)
	ctx := context.Background()
	a, b := s.client(t), s.client(t)
	h, err := a.Lock("synced").Lock(ctx)
	require.NoError(t, err)
	took := s.killMasterAndFailOver(t)
	newMaster := redistest.Client(t, s.replica)
	require.Equal(t, int64(1), newMaster.Exists(ctx, "synced").Val(), "the acknowledged lock survived the failover")
	var ok bool
	redistest.Eventually(t, 30*time.Second, "the other client reaches the new master", func() bool {
		var err error
		_, ok, err = b.Lock("synced").TryLock(ctx)
		return err == nil
	})
	require.False(t, ok, "another client took a lock that survived the failover")
	select {
	case <-h.Done():
		t.Fatalf("the holder was told it lost the lock: %v", h.Err())
	default:
	}
	redistest.Eventually(t, 30*time.Second, "the holder unlocks on the new master", func() bool {
		return h.Unlock(ctx) == nil || errors.Is(h.Err(), context.Canceled)
	})
	h2, ok, err := b.Lock("synced").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, h2.Unlock(ctx))
	record("Sentinel failover (master kill -9)", "RLock, replica sync on", 0,
		"failover in %.1f s; the lock acquired before the kill is on the new master, another client's TryLock is refused, the holder's hold lives on and unlocks", took.Seconds())
}

// TestSentinelUnsyncedAcquireFails: with replica sync on and replication
// stalled, an acquire that no replica acknowledges is undone and fails with
// ErrNoSyncedReplicas instead of returning a hold a failover could lose. (A
// TryLock: Lock retries it, as Redisson does, and a master that drops the
// stalled replica's link then takes the lock without one.)
func TestSentinelUnsyncedAcquireFails(t *testing.T) {
	s := startSentinelSetup(t)
	ctx := context.Background()
	a := s.client(t)
	s.link.Stall()
	defer s.link.Resume()
	start := time.Now()
	_, ok, err := a.Lock("unsynced").TryLock(ctx)
	require.False(t, ok)
	require.ErrorIs(t, err, redisson.ErrNoSyncedReplicas)
	took := time.Since(start)
	require.Equal(t, int64(0), redistest.Client(t, s.master).Exists(ctx, "unsynced").Val(), "the unsynced acquire was undone")
	record("Sentinel, replication stalled", "RLock, replica sync on", 0,
		"acquire failed with ErrNoSyncedReplicas after %d ms (WAIT's 1 s timeout) and was undone on the master", took.Milliseconds())
}

// TestSentinelFailoverLosesUnsyncedLock shows docs/failures.md's warning true:
// with replica sync off, a lock written to a master whose replica has not
// received it yet is lost by a failover, and another client takes it while
// its first holder still holds it.
func TestSentinelFailoverLosesUnsyncedLock(t *testing.T) {
	s := startSentinelSetup(t)
	ctx := context.Background()
	off := redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Disabled: true})
	a, b := s.client(t, off), s.client(t, off)
	s.link.Stall()
	h, err := a.Lock("unsynced").Lock(ctx, rlock.WithLease(time.Minute))
	require.NoError(t, err, "without replica sync the acquire does not wait for the replica")
	took := s.killMasterAndFailOver(t)
	s.link.Resume()
	var h2 *rlock.Hold
	redistest.Eventually(t, 30*time.Second, "the other client takes the lock on the new master", func() bool {
		var ok bool
		var err error
		h2, ok, err = b.Lock("unsynced").TryLock(ctx)
		return err == nil && ok
	})
	twoHolders := false
	select {
	case <-h.Done():
	default:
		twoHolders = true
	}
	require.True(t, twoHolders, "the first hold was still live when the other client took the lock")
	require.NoError(t, h2.Unlock(ctx))
	record("Sentinel failover (master kill -9)", "RLock, replica sync off", 0,
		"failover in %.1f s; the lock written while replication was stalled is gone on the new master and another client took it while the first hold (fixed 1 min lease, no renewal to find out) was live: two holders, as docs/failures.md warns", took.Seconds())
}

// TestSentinelForcedFailoverReadOnly: SENTINEL FAILOVER promotes the
// replica while the master lives on and demotes it to a replica, so that a
// client which has not followed yet gets READONLY for its writes. The lock
// held across it (acknowledged by WAIT) survives, a waiter's tries that
// meet the demoted master are retried (Options.Retry), the holder unlocks
// on the new master, and the waiter acquires after that release.
func TestSentinelForcedFailoverReadOnly(t *testing.T) {
	s := startSentinelSetup(t)
	ctx := context.Background()
	retries := make(retrySignal, 16)
	a := s.client(t)
	b := s.client(t, redisson.WithLogger(slog.New(retries)))
	h, err := a.Lock("forced").Lock(ctx)
	require.NoError(t, err)
	var released atomic.Bool
	type result struct {
		at  time.Time
		err error
	}
	got := make(chan result, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		wh, err := b.Lock("forced").Lock(wctx)
		if err == nil && !released.Load() {
			err = errors.New("the waiter acquired before the release")
		}
		at := time.Now()
		if err == nil {
			err = wh.Unlock(ctx)
		}
		got <- result{at, err}
	}()
	oldRaw := redistest.Client(t, s.master)
	redistest.Eventually(t, 10*time.Second, "the waiter subscribed", func() bool {
		return b.Stats().PubSub.Waiters == 1 && redistest.NumSub(t, oldRaw, keys.LockChannel("forced")) == 1
	})
	start := time.Now()
	// Sentinel refuses (NOGOODSLAVE) until it has INFO from the replica.
	redistest.Eventually(t, 30*time.Second, "Sentinel starts the failover", func() bool {
		err := s.sc.Failover(ctx, redistest.SentinelMasterName).Err()
		if err != nil && !strings.Contains(err.Error(), "NOGOODSLAVE") {
			t.Fatalf("SENTINEL FAILOVER: %v", err)
		}
		return err == nil
	})
	newRaw := redistest.Client(t, s.replica)
	redistest.Eventually(t, 60*time.Second, "the replica is master and the old master its replica", func() bool {
		nr, err1 := newRaw.Do(ctx, "ROLE").Slice()
		or, err2 := oldRaw.Do(ctx, "ROLE").Slice()
		return err1 == nil && err2 == nil && len(nr) > 0 && len(or) > 0 && nr[0] == "master" && or[0] == "slave"
	})
	took := time.Since(start)
	require.Equal(t, int64(1), newRaw.Exists(ctx, "forced").Val(), "the acknowledged lock is on the new master")
	readOnly := oldRaw.Set(ctx, "probe", "1", 0).Err()
	require.ErrorContains(t, readOnly, "READONLY", "the demoted master refuses writes")
	select {
	case r := <-got:
		t.Fatalf("the waiter's wait ended during the failover: %v", r.err)
	case <-h.Done():
		t.Fatalf("the holder was told it lost the lock: %v", h.Err())
	default:
	}
	released.Store(true)
	relAt := time.Now()
	require.NoError(t, h.Unlock(ctx), "the holder unlocks (on the new master)")
	var r result
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter did not acquire within 30 s of the release")
	}
	require.NoError(t, r.err)
	var retried []string
	for len(retries) > 0 {
		retried = append(retried, <-retries)
	}
	record("Sentinel forced failover (SENTINEL FAILOVER, old master demoted)", "RLock, replica sync on", 0,
		"roles switched %.1f s after the command; the demoted master answers READONLY; the lock survived, the holder unlocked on the new master, the waiter (%d tries retried: %s) acquired %d ms after the release",
		took.Seconds(), len(retried), strings.Join(retried, "; "), r.at.Sub(relAt).Milliseconds())
}
