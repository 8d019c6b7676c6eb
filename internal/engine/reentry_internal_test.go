package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/holds"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestReentryRightAfterHandOff: an owner handed the lock by another owner
// of the same client re-enters it at once, while the registry still lists
// the owner that handed it over (its unlock has not processed the reply
// yet, simulated here by a second registered owner). Before the fix the
// re-entry saw "held by another local owner", parked, and nothing woke it
// until a timer ran out, a watchdog period later.
func TestReentryRightAfterHandOff(t *testing.T) {
	e, rt := newTestEngine(t)
	l := testLock(e, "reentry")
	ctx := context.Background()
	var h Hold
	ok, err := l.Acquire(ctx, &h, Request{Owner: 1, Lease: time.Minute, Wait: true})
	require.NoError(t, err)
	require.True(t, ok)
	var lagging holds.Hold
	rt.Holds().Acquired(ctx, &lagging, holds.Acquire{Key: l.cfg.Name, Owner: l.Field(2), TTL: time.Minute, Start: time.Now()})
	require.True(t, rt.Holds().HeldByOther(l.cfg.Name, l.Field(1)))

	for _, r := range []Request{
		{Owner: 1, Lease: time.Minute, Wait: true},                       // Lock
		{Owner: 1, Lease: time.Minute, Wait: true, WaitFor: time.Minute}, // TryLock with a wait
	} {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		start := time.Now()
		var inner Hold
		ok, err := l.Acquire(wctx, &inner, r)
		cancel()
		require.NoError(t, err, "the re-entry waited for the lagging owner")
		require.True(t, ok)
		require.Less(t, time.Since(start), 2*time.Second)
		require.NoError(t, inner.Unlock(ctx))
	}
	rt.Holds().Abandon(l.cfg.Name, l.Field(2), context.Canceled)
	require.NoError(t, h.Unlock(ctx))
}

// TestReentryUnderContention: 3 clients × 16 goroutines take one lock
// again and again, re-entering it every fourth round, so that re-entries
// often follow a hand-off at once. No acquisition may wait long: the lock
// is never held for more than a few commands.
func TestReentryUnderContention(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for ci := range 3 {
		rdb := redistest.Client(t, srv)
		// One connection's handshake first: go-redis 9.23 races with
		// itself when several connections of a fresh client fall back from
		// maintenance notifications at once (a data race under -race).
		require.NoError(t, rdb.Ping(ctx).Err())
		rt := core.New(core.Config{Redis: rdb, ID: fmt.Sprint("cid", ci), WatchdogTimeout: 30 * time.Second, Timeout: 3 * time.Second})
		t.Cleanup(rt.Close)
		l := testLock(New(rt), "contended")
		for g := range 16 {
			owner := int64(ci*100 + g + 1)
			wg.Go(func() {
				for r := range 12 {
					wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					var h, inner Hold
					ok, err := l.Acquire(wctx, &h, Request{Owner: owner, Lease: 30 * time.Second, Wait: true})
					if err == nil && ok && r%4 == 3 {
						ok, err = l.Acquire(wctx, &inner, Request{Owner: owner, Lease: 30 * time.Second, Wait: true})
						if err == nil && ok {
							err = inner.Unlock(ctx)
						}
					}
					cancel()
					if err != nil || !ok {
						t.Errorf("client %d owner %d round %d: %v", ci, owner, r, err)
						return
					}
					if err := h.Unlock(ctx); err != nil {
						t.Errorf("unlock: %v", err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}
