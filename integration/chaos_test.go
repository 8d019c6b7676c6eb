package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/redissontest"
)

// chaosDuration is how long each row of TestChaos runs: REDISSON_CHAOS (a
// Go duration) when set, else 6 s in full mode and 3 s otherwise.
func chaosDuration(t *testing.T) time.Duration {
	if v := os.Getenv("REDISSON_CHAOS"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "REDISSON_CHAOS must be a Go duration such as 2m")
		return d
	}
	if full() {
		return 6 * time.Second
	}
	return 3 * time.Second
}

// chaosStats counts what the goroutines of one TestChaos row went through.
type chaosStats struct {
	acquired, lost, acquireErrs, releaseErrs, faults atomic.Int64
}

// TestChaos: three clients reach Redis through fault proxies that stall
// and cut their connections at random (each fault lasting 0.2–2.5 s, past
// the 1 s watchdog lease at times), a fourth reaches it directly, and
// three goroutines per client contend on one object throughout. A holder
// stays in its critical section (a few milliseconds, at times seconds)
// unless its hold signals loss, then leaves at once. The observer, a Redis server of its
// own that no fault touches, counts every overlap the object forbids and
// every fencing token that does not increase: both must stay 0. Permits
// are taken without a lease (a leased permit has no loss signal, so a
// holder cut off past its lease would overlap by design).
func TestChaos(t *testing.T) {
	run := chaosDuration(t)
	for _, row := range contention {
		if !full() && os.Getenv("REDISSON_CHAOS") == "" && row.name != "RLock" && row.name != "Semaphore" {
			continue
		}
		t.Run(row.name, func(t *testing.T) { chaosCase(t, row.name, row.kinds, row.permits, run) })
	}
}

func chaosCase(t *testing.T, name string, kindNames []string, permits int, run time.Duration) {
	e := newEnv(t)
	ctx := context.Background()
	const lease = time.Second
	// The loss signal comes LeaseMargin (plus 1% and a wheel tick) before
	// the lease ends; 100 ms leaves a holder on a loaded test machine time
	// to leave the observer's gauge before a waiter can get in, so that a
	// violation means two holders, not a slow goroutine.
	opts := []redisson.Option{redisson.WithWatchdogTimeout(lease), redisson.WithFairLockWaitTimeout(2 * time.Second),
		redisson.WithLeaseMargin(100 * time.Millisecond)}
	var proxies []*faultproxy.Proxy
	var clients []*redisson.Client
	for range 3 {
		p, err := faultproxy.New(e.srv.Addr())
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		proxies = append(proxies, p)
		clients = append(clients, proxiedClient(t, p, opts...))
	}
	clients = append(clients, redissontest.ClientAt(t, e.srv.Addr(), opts...))
	first, ok := kindByName(kindNames[0])
	require.True(t, ok)
	require.NoError(t, first.setup(ctx, clients[3], name, permits))

	var st chaosStats
	end := time.Now().Add(run)
	chaosCtx, stopChaos := context.WithDeadline(ctx, end)
	defer stopChaos()
	var chaos sync.WaitGroup
	for _, p := range proxies {
		chaos.Go(func() {
			defer p.Resume()
			for {
				select {
				case <-chaosCtx.Done():
					return
				case <-time.After(time.Duration(300+rand.IntN(1200)) * time.Millisecond):
				}
				if rand.IntN(2) == 0 {
					p.Stall()
				} else {
					p.Cut()
				}
				st.faults.Add(1)
				select {
				case <-chaosCtx.Done():
				case <-time.After(time.Duration(200+rand.IntN(2300)) * time.Millisecond):
				}
				p.Resume()
			}
		})
	}

	var wg sync.WaitGroup
	var obsErr atomic.Pointer[error]
	i := 0
	for _, c := range clients {
		for range 3 {
			k, ok := kindByName(kindNames[i%len(kindNames)])
			require.True(t, ok)
			i++
			wg.Go(func() {
				for time.Now().Before(end) {
					if err := chaosRound(ctx, e, c, k, name, permits, &st); err != nil {
						obsErr.CompareAndSwap(nil, &err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	stopChaos()
	chaos.Wait()
	if p := obsErr.Load(); p != nil {
		t.Fatalf("a goroutine stopped: %v", *p)
	}

	g, err := gaugeStats(ctx, e.obs, name)
	require.NoError(t, err)
	record("Random stalls and cuts (3 of 4 clients behind fault proxies, watchdog 1 s)", name,
		int(g["violations"]+g["token_violations"]),
		"%v: %d faults, %d acquisitions (%d holds signalled lost first), %d acquire and %d release errors; most inside at once %s",
		run, st.faults.Load(), st.acquired.Load(), st.lost.Load(), st.acquireErrs.Load(), st.releaseErrs.Load(), maxInside(g))
	t.Logf("%s, %v: %d faults; %d acquisitions, %d holds lost, %d acquire errors, %d release errors; gauge %v",
		name, run, st.faults.Load(), st.acquired.Load(), st.lost.Load(), st.acquireErrs.Load(), st.releaseErrs.Load(), g)
	require.Zero(t, g["violations"], "overlapping holders")
	require.Zero(t, g["token_violations"], "fencing tokens that did not increase")
	require.Positive(t, st.acquired.Load(), "no acquisition in %v", run)
	for _, role := range []string{"x", "w", "r", "p"} {
		require.Zero(t, g[role], "holders of role %s still counted inside", role)
	}
}

// chaosRound is one acquisition of k by a fresh owner: enter the gauge,
// stay a few milliseconds unless the hold signals loss, leave, release.
// Failures of the object's calls are counted (faults make them expected);
// only an observer failure or a closed client is returned.
func chaosRound(ctx context.Context, e env, c *redisson.Client, k kind, name string, permits int, st *chaosStats) error {
	actx, cancel := context.WithTimeout(ctx, 4*time.Second)
	h, err := k.acquire(actx, c, name, 0, redisson.NewOwnerID())
	cancel()
	if err != nil {
		st.acquireErrs.Add(1)
		if errors.Is(err, redisson.ErrClosed) {
			return fmt.Errorf("%s acquire: %w", k.name, err)
		}
		return nil
	}
	st.acquired.Add(1)
	lost := false
	select {
	case <-h.done(): // lost before the caller could use it
		lost = true
	default:
	}
	if lost {
		st.lost.Add(1)
		rctx, cancel := context.WithTimeout(ctx, 4*time.Second)
		defer cancel()
		_ = h.release(rctx)
		return nil
	}
	if err := enter(ctx, e.obs, name, k.role, permits); err != nil {
		return err
	}
	if tok := h.token(); tok != 0 {
		if err := fence(ctx, e.obs, name, tok); err != nil {
			return err
		}
	}
	// Mostly a few milliseconds; one round in ten lasts 0.3–2.5 s, so that
	// holds span renewals and faults (and lose the lock to them).
	stay := time.Duration(1+rand.IntN(10)) * time.Millisecond
	if rand.IntN(10) == 0 {
		stay = time.Duration(300+rand.IntN(2200)) * time.Millisecond
	}
	select {
	case <-h.done(): // nil for permits: never
		st.lost.Add(1)
	case <-time.After(stay):
	}
	if err := leave(ctx, e.obs, name, k.role); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	if err := h.release(rctx); err != nil {
		st.releaseErrs.Add(1)
	}
	return nil
}

// maxInside lists the most holders of each role the gauge saw at once.
func maxInside(g map[string]int64) string {
	var parts []string
	for _, r := range []struct{ role, what string }{{"x", "exclusive"}, {"w", "writers"}, {"r", "readers"}, {"p", "permits"}} {
		if n, ok := g["max_"+r.role]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", r.what, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
