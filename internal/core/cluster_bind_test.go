package core

import (
	"context"
	"fmt"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/redistest"
)

// incrScript counts its runs: a script sent twice shows as a count one too
// high.
var incrScript = NewScript("test.incr", "return redis.call('INCR', KEYS[1])")

// newClusterRuntime returns a runtime over a client of cl whose ReadTimeout
// is a minute: a call under a shorter deadline needs a bound, and one that
// waited for go-redis would visibly wait for a paused server.
func newClusterRuntime(t *testing.T, cl *redistest.Cluster, opts ...func(*redis.ClusterOptions)) (*Runtime, *redis.ClusterClient) {
	t.Helper()
	cc := cl.Client(t, append([]func(*redis.ClusterOptions){func(o *redis.ClusterOptions) { o.ReadTimeout = time.Minute }}, opts...)...)
	rt := New(Config{Redis: cc, Cluster: true, Timeout: time.Second})
	t.Cleanup(rt.Close)
	return rt, cc
}

// boundCtx is a context whose deadline lies before go-redis' ReadTimeout:
// its calls must be bounded.
func boundCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitSlotMap makes bound calls on key until the runtime has read the
// cluster's slot map (the first call has it read in the background) and a
// claimed dedicated connection to key's master is ready.
func waitSlotMap(t *testing.T, rt *Runtime, cc *redis.ClusterClient, key string) *redis.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var node *redis.Client
	redistest.Eventually(t, 10*time.Second, "a bound connection to the master of "+key, func() bool {
		_, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{key}, "warm")
		require.NoError(t, err)
		n, err := cc.MasterForKey(ctx, key)
		require.NoError(t, err)
		node = n
		claimed, _ := claimedConns(rt, n)
		return rt.conns.SlotMapRead() && claimed > 0
	})
	return node
}

// goroutinesCreated reads how many goroutines the process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// keysOnEveryMaster returns one key per master of cc.
func keysOnEveryMaster(t *testing.T, cc *redis.ClusterClient, masters int) []string {
	t.Helper()
	seen := map[string]string{}
	for i := 0; len(seen) < masters; i++ {
		require.Less(t, i, 10000)
		key := "k" + strconv.Itoa(i)
		node, err := cc.MasterForKey(context.Background(), key)
		require.NoError(t, err)
		if _, ok := seen[node.Options().Addr]; !ok {
			seen[node.Options().Addr] = key
		}
	}
	keys := make([]string, 0, masters)
	for _, k := range seen {
		keys = append(keys, k)
	}
	return keys
}

// TestClusterBoundCallsRunInline: on a cluster, a script call whose
// context ends before go-redis' ReadTimeout runs on a dedicated connection
// to its key's master bound by the context, on the caller's goroutine: a
// run of such calls starts (next to) no goroutine, where the same calls
// through Bounded start one each. The runtime is made before the cluster
// client's first command (every node gets the dial hook as it is made) and
// after it (the nodes made before get it when first asked for; the
// connections they dialled before are parked).
func TestClusterBoundCallsRunInline(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	for _, tc := range []struct {
		name   string
		before bool
	}{{"runtime first", false}, {"client used before", true}} {
		t.Run(tc.name, func(t *testing.T) {
			cc := cl.Client(t, func(o *redis.ClusterOptions) { o.ReadTimeout = time.Minute })
			if tc.before {
				require.NoError(t, cc.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
					return m.Ping(ctx).Err()
				}))
			}
			rt := New(Config{Redis: cc, Cluster: true, Timeout: time.Second})
			t.Cleanup(rt.Close)
			keys := keysOnEveryMaster(t, cc, 3)
			stopApp := func() {}
			if tc.before {
				// The application keeps using its client while the nodes
				// get the hook (-race watches AddHook against it).
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						if err := cc.Set(context.Background(), keys[i%len(keys)]+"-app", i, 0).Err(); err != nil {
							t.Error(err)
							return
						}
					}
				}()
				stopApp = func() { close(stop); <-done }
				defer func() { stopApp() }()
			}
			for _, k := range keys {
				waitSlotMap(t, rt, cc, k)
			}
			ctx := boundCtx(t)
			const calls = 300
			run := func() uint64 {
				before := goroutinesCreated()
				for i := range calls {
					k := keys[i%len(keys)]
					v, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{k}, i)
					require.NoError(t, err)
					require.Equal(t, strconv.Itoa(i), v)
				}
				return goroutinesCreated() - before
			}
			require.Less(t, run(), uint64(calls/10), "bound calls run on the caller's goroutine")
			quits := int64(0)
			for _, m := range cl.Masters {
				quits += commandCalls(t, redistest.Client(t, m), "quit")
			}
			if tc.before {
				require.Positive(t, quits, "the connections dialled before the hook are retired")
			} else {
				require.Zero(t, quits)
			}

			// The same calls without the binder take Bounded's goroutine
			// each: the count above would have seen them.
			rt.conns.WithoutBinder(func() {
				require.GreaterOrEqual(t, run(), uint64(calls), "calls through Bounded")
			})

			// Close gives every connection back, parked ones included.
			stopApp()
			stopApp = func() {}
			rt.Close()
			require.Zero(t, rt.conns.Open())
			require.NoError(t, cc.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
				if st := m.PoolStats(); st.TotalConns != st.IdleConns {
					return fmt.Errorf("%s: %+v", m.Options().Addr, st)
				}
				return nil
			}))
		})
	}
}

// TestClusterBoundCallEndsWithItsContext: a bound call to a master that
// does not answer (CLIENT PAUSE) ends at its deadline, with its dedicated
// connection dropped, not when the pause ends (ReadTimeout is a minute);
// the next call gets the reply.
func TestClusterBoundCallEndsWithItsContext(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	rt, cc := newClusterRuntime(t, cl)
	key := "paused"
	node := waitSlotMap(t, rt, cc, key)
	master, err := cl.MasterOf(context.Background(), Slot(key))
	require.NoError(t, err)
	raw := redistest.Client(t, master)

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.NoError(t, raw.Do(context.Background(), "CLIENT", "PAUSE", 3000, "ALL").Err())
	_, _, err = rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{key}, "silent")
	var ab *conns.AbandonedError
	require.ErrorAs(t, err, &ab)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// Through Bounded, the idle connection would still be there.
	_, idle := claimedConns(rt, node)
	require.Zero(t, idle, "the call ran on the bound connection, which was cut and dropped")

	v, _, err := rt.Run(boundCtx(t), echoScript, RunOpts{Synced: true}, []string{key}, "after")
	require.NoError(t, err)
	require.Equal(t, "after", v)
}

// commandCalls reads how many times a node ran command (INFO
// commandstats).
func commandCalls(t *testing.T, raw *redis.Client, command string) int64 {
	t.Helper()
	info, err := raw.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+command+":calls="); ok {
			n, err := strconv.ParseInt(v[:strings.IndexByte(v, ',')], 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	return 0
}

// TestClusterBoundCallAfterSlotMove: the key's slot moves to another
// master while the runtime holds bound connections to the old one, pinned
// (Inline) or not, and its slot map still names the old one. The old
// master refuses with MOVED; the call goes through the cluster client,
// which follows the redirection: every answer is right and no script runs
// twice (a counter script, sent without retries, counts every run). Calls
// are then bound to the new master.
func TestClusterBoundCallAfterSlotMove(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	rt, cc := newClusterRuntime(t, cl)
	ctx := context.Background()
	key := "{moving}counter"
	s := Slot(key)
	node := waitSlotMap(t, rt, cc, key)
	from, err := cl.MasterOf(ctx, s)
	require.NoError(t, err)
	to := cl.Masters[0]
	if to == from {
		to = cl.Masters[1]
	}
	fromRaw := redistest.Client(t, from)

	want := int64(0)
	incr := func(ctx context.Context) {
		t.Helper()
		want++
		v, _, err := rt.Run(ctx, incrScript, RunOpts{Synced: true, NoRetry: true}, []string{key})
		require.NoError(t, err)
		require.Equal(t, want, v)
	}
	incr(boundCtx(t))

	// A pin made before the move, used after it.
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cctx, pin, inline := rt.conns.Inline(pctx, key)
	require.True(t, inline)
	require.NotNil(t, pin, "a bound connection to the old master is pinned")

	moved := redistest.MovedReplies(t, fromRaw)
	require.NoError(t, cl.MoveSlot(ctx, s, from, to))
	incr(cctx)
	pin.Done()
	require.Greater(t, redistest.MovedReplies(t, fromRaw), moved, "the pinned call met MOVED")

	// Unpinned bound calls: the slot map may not have been read again yet.
	for range 20 {
		incr(boundCtx(t))
	}
	toRaw := redistest.Client(t, to)
	n, err := toRaw.Get(ctx, key).Int64()
	require.NoError(t, err)
	require.Equal(t, want, n, "every run counted once, on the new master")

	newNode, err := cc.MasterForKey(ctx, key)
	require.NoError(t, err)
	require.NotSame(t, node, newNode)
	redistest.Eventually(t, 10*time.Second, "bound connections to the new master", func() bool {
		incr(boundCtx(t))
		claimed, _ := claimedConns(rt, newNode)
		return claimed > 0
	})
}

// TestClusterBoundCallAfterFailover: the key's master hands over to its
// replica (CLUSTER FAILOVER) while the runtime holds bound connections to
// it. The demoted master refuses (MOVED); the call goes through the cluster
// client: the answers are right and no script runs twice. Calls are then
// bound to the new master.
func TestClusterBoundCallAfterFailover(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t, 3)
	rt, cc := newClusterRuntime(t, cl)
	ctx := context.Background()
	key := "{failover}counter"
	waitSlotMap(t, rt, cc, key)
	master, err := cl.MasterOf(ctx, Slot(key))
	require.NoError(t, err)
	replica := cl.ReplicaOf(master)
	require.NotNil(t, replica)

	want := int64(0)
	incr := func() {
		t.Helper()
		want++
		v, _, err := rt.Run(boundCtx(t), incrScript, RunOpts{Synced: true, NoRetry: true}, []string{key})
		require.NoError(t, err, "call %d", want)
		require.Equal(t, want, v)
	}
	incr()
	// A manual failover waits for the replica to catch up with its master.
	replicaRaw := redistest.Client(t, replica)
	// A manual failover gives up when the handshake with the master times
	// out (a loaded machine): ask again until the replica is master.
	var asked time.Time
	redistest.Eventually(t, 60*time.Second, "the replica took over", func() bool {
		if redistest.IsMaster(ctx, replica) {
			return true
		}
		if time.Since(asked) > 10*time.Second {
			require.NoError(t, replicaRaw.Do(ctx, "CLUSTER", "FAILOVER").Err())
			asked = time.Now()
		}
		return false
	})
	masterRaw := redistest.Client(t, master)
	redistest.Eventually(t, 30*time.Second, "the old master follows", func() bool { return !redistest.IsMaster(ctx, master) })
	moved := redistest.MovedReplies(t, masterRaw)
	for range 20 {
		incr()
	}
	require.Greater(t, redistest.MovedReplies(t, masterRaw), moved, "calls met the demoted master's MOVED")
	n, err := replicaRaw.Get(ctx, key).Int64()
	require.NoError(t, err)
	require.Equal(t, want, n, "every run counted once, on the new master")
	redistest.Eventually(t, 10*time.Second, "bound connections to the new master", func() bool {
		incr()
		node, err := cc.MasterForKey(ctx, key)
		require.NoError(t, err)
		claimed, _ := claimedConns(rt, node)
		return node.Options().Addr == replica.Addr() && claimed > 0
	})
}

// TestClusterInlineFor: InlineFor pins a bound connection to its key's
// master under a deadline before ReadTimeout; a context without one runs
// inline without a pin; on a cluster Inline, knowing no key, pins none.
func TestClusterInlineFor(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	rt, cc := newClusterRuntime(t, cl)
	key := "pinned"
	node := waitSlotMap(t, rt, cc, key)

	ctx := boundCtx(t)
	_, _, inline := rt.conns.Inline(ctx, "")
	require.False(t, inline, "no key, no pin on a cluster")

	cctx, pin, inline := rt.conns.Inline(ctx, key)
	require.True(t, inline)
	require.NotNil(t, pin)
	require.Same(t, node, pin.Held().Node())
	_, has := cctx.Deadline()
	require.False(t, has, "the call runs without the caller's deadline; only its first script is bound")
	v, _, err := rt.Run(cctx, echoScript, RunOpts{Synced: true}, []string{key}, "pinned")
	require.NoError(t, err)
	require.Equal(t, "pinned", v)
	require.Nil(t, pin.Held(), "the first script took the pinned connection")
	pin.Done()

	// A script of another slot does not use the pin.
	cctx, pin, inline = rt.conns.Inline(ctx, key)
	require.True(t, inline)
	other := "other-" + fmt.Sprint(Slot(key))
	for Slot(other) == Slot(key) {
		other += "x"
	}
	v, _, err = rt.Run(cctx, echoScript, RunOpts{Synced: true}, []string{other}, "other")
	require.NoError(t, err)
	require.Equal(t, "other", v)
	require.Nil(t, pin.Held(), "given back")
	pin.Done()

	cctx, pin, inline = rt.conns.Inline(context.Background(), key)
	require.True(t, inline)
	require.Nil(t, pin)
	require.Equal(t, context.Background(), cctx)
}
