package integration

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/slot"
	"github.com/goredisson/redisson/keys"
)

// The failover table (full mode): every object but RLock (which has
// tests of its own above) gets one hold, permit or count acknowledged by
// the replica before the master's kill -9, and a waiter of another client
// blocked behind it. One failover serves all rows.

// latchRow is the row name of the count-down latch, which is not in kinds
// (it has no holders): its "hold" is a count of 1 the holder counts down.
const latchRow = "CountDownLatch"

// failoverRows returns the rows of the failover table.
func failoverRows() []string {
	var rows []string
	for _, k := range kinds {
		if k.name != "RLock" {
			rows = append(rows, k.name)
		}
	}
	return append(rows, latchRow)
}

// failoverCase is one row's hold and its waiter, across a failover.
type failoverCase struct {
	row, name string
	// key must exist on the new master: the acknowledged hold's key; when
	// value is not "", it must hold value (a semaphore's 0 permits left, a
	// latch's count of 1).
	key, value string
	// done is the hold's lost signal, nil when the kind has none.
	done    <-chan struct{}
	release func(context.Context) error
	// released is set just before release is sent: a waiter that acquires
	// before it took what the surviving hold still owns.
	released atomic.Bool
	early    atomic.Bool
	acquired chan time.Time
	errc     chan error
	// wait runs the waiter (in its own goroutine).
	wait func()
}

// startFailoverCase takes row's hold with client a (replica sync on: the
// acquire returned after WAIT) and starts a waiter on client b. master is
// the server that will be killed: the latch's count, which no WAIT covers
// (Redisson's latch scripts are not synced either), is acknowledged by a
// write of the test's own to name's slot followed by WAIT there.
func startFailoverCase(ctx context.Context, t *testing.T, a, b *redisson.Client, row, name string, master *redistest.Server) *failoverCase {
	t.Helper()
	fc := &failoverCase{row: row, name: name, key: name, value: "1", acquired: make(chan time.Time, 1), errc: make(chan error, 1)}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel)
	var wait func() (func(context.Context) error, error)
	if row == latchRow {
		ok, err := a.CountDownLatch(name).TrySetCount(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		var acked *redis.Cmd
		_, err = redistest.Client(t, master).Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{"+name+"}:ack", "1", 0)
			acked = p.Do(ctx, "WAIT", 1, 5000)
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, int64(1), acked.Val(), "the replica acknowledged the latch's count")
		fc.release = a.CountDownLatch(name).CountDown
		wait = func() (func(context.Context) error, error) {
			ok, err := b.CountDownLatch(name).Await(wctx)
			if err == nil && !ok {
				err = fmt.Errorf("await returned false")
			}
			return nil, err
		}
	} else {
		k, ok := kindByName(row)
		require.True(t, ok)
		fc.key, fc.value = k.leaseKey(name), ""
		if k.role == "p" {
			fc.value = "0" // one permit set, one taken
		}
		require.NoError(t, k.setup(ctx, a, name, 1))
		h, err := k.acquire(ctx, a, name, 0, 1)
		require.NoError(t, err, "%s: acquire with replica sync", row)
		fc.done, fc.release = h.done(), h.release
		wk := k
		if k.waiter != "" {
			wk, _ = kindByName(k.waiter)
		}
		wait = func() (func(context.Context) error, error) {
			wh, err := wk.acquire(wctx, b, name, 0, 2)
			if err != nil {
				return nil, err
			}
			return wh.release, nil
		}
	}
	fc.wait = func() {
		rel, err := wait()
		if err != nil {
			fc.errc <- err
			return
		}
		if !fc.released.Load() {
			fc.early.Store(true)
		}
		fc.acquired <- time.Now()
		if rel != nil {
			err = rel(ctx)
		}
		fc.errc <- err
	}
	go fc.wait()
	return fc
}

// waiterFate says what became of the waiter's wait across the failover;
// finish fails the test when it did not live through it.
func (fc *failoverCase) waiterFate() string {
	return "the waiter's wait lived through the failover"
}

// label names fc's row in the summary; the latch's writes are not synced
// (as in Redisson): the test acknowledges its count with WAIT itself.
func (fc *failoverCase) label(synced string) string {
	if fc.row == latchRow {
		return fc.row + " (count acknowledged by the test's own WAIT)"
	}
	return fc.row + synced
}

// channel returns the channel row's waiter subscribes to, "" when the
// table has none for it.
func (fc *failoverCase) channel(b *redisson.Client) string {
	if fc.row == latchRow {
		return keys.LatchChannel(fc.name)
	}
	k, _ := kindByName(fc.row)
	if k.waiter != "" {
		k, _ = kindByName(k.waiter)
	}
	if k.channel == nil {
		return ""
	}
	return k.channel(fc.name, field(b, 2))
}

// waitSubscribed waits until fc's waiter is subscribed on one of servers.
func (fc *failoverCase) waitSubscribed(ctx context.Context, t *testing.T, b *redisson.Client, servers []*redistest.Server) {
	t.Helper()
	ch := fc.channel(b)
	if ch == "" {
		return
	}
	cmd := "NUMSUB"
	if b.Sharded() {
		cmd = "SHARDNUMSUB"
	}
	raws := make([]*redis.Client, len(servers))
	for i, s := range servers {
		raws[i] = redistest.Client(t, s)
	}
	redistest.Eventually(t, 20*time.Second, fc.row+": the waiter subscribed", func() bool {
		for _, r := range raws {
			n, err := r.Do(ctx, "PUBSUB", cmd, ch).Slice()
			if err == nil && len(n) == 2 && n[1] == int64(1) {
				return true
			}
		}
		return false
	})
}

// finish checks fc's hold on the new master (raw), releases it with the
// holder's client once follow says that client reaches the new master, and
// waits for the waiter; it returns the waiter's acquisition after the
// release and the violations (waiter acquired before the release).
func (fc *failoverCase) finish(ctx context.Context, t *testing.T, raw *redis.Client, follow func(key string)) (time.Duration, int) {
	t.Helper()
	require.Equal(t, int64(1), raw.Exists(ctx, fc.key).Val(), "%s: the acknowledged hold survived the failover", fc.row)
	if fc.value != "" {
		require.Equal(t, fc.value, raw.Get(ctx, fc.key).Val(), "%s: the acknowledged count survived the failover", fc.row)
	}
	if fc.done != nil {
		select {
		case <-fc.done:
			t.Fatalf("%s: the holder was told it lost its hold", fc.row)
		default:
		}
	}
	select {
	case err := <-fc.errc:
		// A try that meets the outage is retried after a back-off
		// (Options.Retry): the wait must live through the failover.
		t.Fatalf("%s: the waiter's wait ended during the failover: %v", fc.row, err)
	default:
	}
	follow(fc.key)
	fc.released.Store(true)
	released := time.Now()
	require.NoError(t, fc.release(ctx), "%s: the holder releases on the new master", fc.row)
	var at time.Time
	released2 := false
	select {
	case at = <-fc.acquired:
	case err := <-fc.errc:
		if err != nil {
			t.Fatalf("%s: the waiter failed: %v", fc.row, err)
		}
		// Both channels are buffered: the waiter sends its acquisition,
		// then its release's nil (a latch has nothing to release), and the
		// select may see the second first.
		at, released2 = <-fc.acquired, true
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the waiter did not acquire within 30 s of the release", fc.row)
	}
	if !released2 {
		require.NoError(t, <-fc.errc, "%s: the waiter's release", fc.row)
	}
	violations := 0
	if fc.early.Load() {
		violations++
	}
	return at.Sub(released), violations
}

// TestSentinelFailoverKeepsSyncedObjects is TestSentinelFailoverKeepsSyncedLocks
// for every other object, all across one failover.
func TestSentinelFailoverKeepsSyncedObjects(t *testing.T) {
	if !full() {
		t.Skip("full mode only (REDISSON_INTEGRATION=full); RLock's case runs by default")
	}
	s := startSentinelSetup(t)
	ctx := context.Background()
	a, b := s.client(t), s.client(t)
	var cases []*failoverCase
	for _, row := range failoverRows() {
		name := "fo-" + row
		if k, ok := kindByName(row); ok && k.compound {
			name = "{" + name + "}"
		}
		fc := startFailoverCase(ctx, t, a, b, row, name, s.master)
		fc.waitSubscribed(ctx, t, b, []*redistest.Server{s.master})
		cases = append(cases, fc)
	}
	took := s.killMasterAndFailOver(t)
	raw := redistest.Client(t, s.replica)
	// The promoted master gets a replica of its own, as the old master's
	// sibling replicas would be re-pointed in a real deployment: the
	// releases are synced writes too, and the client's replica count of
	// "the master" (cached per client address, which a failover client
	// keeps) still says 1 for up to 5 s after the failover.
	redistest.StartReplica(t, s.replica)
	follow := func(string) {
		redistest.Eventually(t, 30*time.Second, "the holder's client reaches the new master", func() bool {
			role, err := a.Redis().Do(ctx, "ROLE").Slice()
			return err == nil && len(role) > 0 && role[0] == "master"
		})
	}
	for _, fc := range cases {
		wake, violations := fc.finish(ctx, t, raw, follow)
		record("Sentinel failover (master kill -9)", fc.label(", replica sync on"), violations,
			"failover in %.1f s (one failover for all rows); the hold acknowledged before the kill is on the new master and lived on; the holder released it; %s; the other client's waiter acquired %d ms after the release",
			took.Seconds(), fc.waiterFate(), wake.Milliseconds())
		require.Zero(t, violations, "%s: the waiter acquired before the release", fc.row)
	}
}

// TestClusterMasterFailoverObjects is TestClusterMasterFailover for every
// other object: all rows' keys live on the killed master's slots.
func TestClusterMasterFailoverObjects(t *testing.T) {
	if !full() {
		t.Skip("full mode only (REDISSON_INTEGRATION=full); RLock's case runs by default")
	}
	cl := redistest.StartClusterWithReplicas(t, 3)
	ctx := context.Background()
	newCC := func() *redisson.Client {
		c, err := redisson.New(cl.Client(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a, b := newCC(), newCC()
	master := cl.Masters[0]
	replica := cl.ReplicaOf(master)
	var cases []*failoverCase
	for _, row := range failoverRows() {
		// A name whose slot the killed master serves (members of a
		// multi-lock share it through the hash tag).
		var name string
		for i := 0; ; i++ {
			require.Less(t, i, 1000, "no name on the master")
			cand := fmt.Sprintf("fo-%s-%d", row, i)
			m, err := cl.MasterOf(ctx, slot.Of(cand))
			require.NoError(t, err)
			if m == master {
				name = cand
				break
			}
		}
		if k, ok := kindByName(row); ok && k.compound {
			name = "{" + name + "}"
		}
		fc := startFailoverCase(ctx, t, a, b, row, name, master)
		fc.waitSubscribed(ctx, t, b, cl.Masters)
		cases = append(cases, fc)
	}
	killed := time.Now()
	require.NoError(t, master.Kill())
	redistest.Eventually(t, 60*time.Second, "the replica took over", func() bool { return redistest.IsMaster(ctx, replica) })
	promoted := time.Since(killed)
	raw := redistest.Client(t, replica)
	// As in TestClusterMasterFailover: the holder's client follows the
	// failover before it releases.
	acc := a.Redis().(*redis.ClusterClient)
	follow := func(key string) {
		redistest.Eventually(t, 30*time.Second, "the holder's client follows the failover", func() bool {
			acc.ReloadState(ctx)
			node, err := acc.MasterForKey(ctx, key)
			return err == nil && node.Options().Addr == replica.Addr()
		})
	}
	for _, fc := range cases {
		wake, violations := fc.finish(ctx, t, raw, follow)
		record("Cluster master failover (kill -9)", fc.label(" (sharded pub/sub, replica sync on)"), violations,
			"replica promoted %.1f s after the kill (one failover for all rows); the acknowledged hold survived and lived on; the holder's client followed and released; %s; the other client's waiter acquired %d ms after the release",
			promoted.Seconds(), fc.waiterFate(), wake.Milliseconds())
		require.Zero(t, violations, "%s: the waiter acquired before the release", fc.row)
	}
}
