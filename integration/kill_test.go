package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// leaseEnd bounds when the hold of a killed holder ends in Redis: the
// object's key TTL read now (lo: before the read plus the TTL, hi: after
// plus the TTL), or for a permit-expirable semaphore the latest permit's
// lease end.
func leaseEnd(t *testing.T, raw *redis.Client, k kind, name string) (lo, hi time.Time) {
	t.Helper()
	ctx := context.Background()
	if k.role == "p" {
		zs, err := raw.ZRangeWithScores(ctx, "{"+name+"}:timeout", -1, -1).Result()
		require.NoError(t, err)
		require.Len(t, zs, 1, "one permit held")
		end := time.UnixMilli(int64(zs[0].Score))
		return end, end
	}
	before := time.Now()
	ttl, err := raw.PTTL(ctx, k.leaseKey(name)).Result()
	after := time.Now()
	require.NoError(t, err)
	require.Positive(t, ttl, "the lock has a TTL")
	return before.Add(ttl), after.Add(ttl)
}

// killRows: the kill -9 cases, each a kind and how its holder's lease is
// set: explicit, or the watchdog's.
func killRows() []struct {
	k        kind
	watchdog bool
} {
	var rows []struct {
		k        kind
		watchdog bool
	}
	for _, k := range kinds {
		if !k.lease {
			continue
		}
		rows = append(rows, struct {
			k        kind
			watchdog bool
		}{k, false})
		if k.role != "p" && (full() || k.name == "RLock") {
			rows = append(rows, struct {
				k        kind
				watchdog bool
			}{k, true})
		}
	}
	return rows
}

// TestHolderKilled: a holder process killed with SIGKILL while a waiter
// in another process waits. The waiter gets the object within the lease
// plus 1 s, and never before the lease ran out.
func TestHolderKilled(t *testing.T) {
	const lease = time.Second
	for _, row := range killRows() {
		mode := "lease 1 s"
		if row.watchdog {
			mode = "watchdog 1 s"
		}
		t.Run(row.k.name+"/"+mode, func(t *testing.T) {
			k := row.k
			e := newEnv(t)
			c := redissontest.ClientAt(t, e.srv.Addr())
			name := "killed"
			j := job{Mode: "hold", Addr: e.srv.Addr(), Kinds: []string{k.name}, Name: name, Permits: 1, Lease: lease}
			if row.watchdog {
				j.Lease, j.Watchdog = 0, lease
			}
			holder := startWorker(t, j)
			holder.expect("waiting", 30*time.Second)
			acquired := holder.expect("acquired", 30*time.Second)
			wk := k
			if k.waiter != "" {
				wk, _ = kindByName(k.waiter)
			}
			type result struct {
				at  time.Time
				h   hold
				err error
			}
			got := make(chan result, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				h, err := wk.acquire(ctx, c, name, 0, redisson.NewOwnerID())
				got <- result{time.Now(), h, err}
			}()
			waits := func() bool { return c.Stats().PubSub.Waiters == 1 }
			if wk.polls {
				waits = waiting(t, wk, e.raw, c)
			}
			redistest.Eventually(t, 10*time.Second, "the waiter waits", waits)
			if row.watchdog {
				// Kill after the watchdog renewed the lease: once the
				// first lease would have run out, the key must still be
				// there.
				redistest.Eventually(t, 10*time.Second, "past the first lease", func() bool {
					return time.Since(acquired.at) > lease+200*time.Millisecond
				})
				require.Positive(t, e.raw.PTTL(context.Background(), k.leaseKey(name)).Val(), "the watchdog renewed the lease")
			}
			holder.kill()
			killed := time.Now()
			lo, hi := leaseEnd(t, e.raw, k, name)
			var r result
			select {
			case r = <-got:
			case <-time.After(30 * time.Second):
				t.Fatal("the waiter did not acquire within 30 s of the kill")
			}
			require.NoError(t, r.err)
			defer func() { _ = r.h.release(context.Background()) }()
			violations := 0
			if r.at.Before(lo.Add(-2 * time.Millisecond)) {
				violations++
			}
			late := r.at.Sub(hi)
			if late > time.Second {
				violations++
			}
			waiterKind := ""
			if wk.name != k.name {
				waiterKind = fmt.Sprintf(" (waiter: %s)", wk.name)
			}
			record("holder kill -9", k.name+waiterKind, violations,
				"%s: next holder %d ms after the lease ran out (%d ms after the kill, %d ms into the hold)",
				mode, max(late, 0).Milliseconds(), r.at.Sub(killed).Milliseconds(), killed.Sub(acquired.at).Milliseconds())
			require.False(t, r.at.Before(lo.Add(-2*time.Millisecond)), "acquired %v before the lease ran out", lo.Sub(r.at))
			require.LessOrEqual(t, late, time.Second, "acquired more than 1 s after the lease ran out")
		})
	}
}
