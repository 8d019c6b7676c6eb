package fencedlock_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
)

// errStale is the fenced store's refusal.
var errStale = errors.New("stale fencing token")

// fencedStore is the resource a fenced lock guards: it remembers the
// largest token it has seen and refuses a write with a smaller one.
type fencedStore struct {
	mu       sync.Mutex
	largest  int64
	accepted []int64 // each token the first time it wrote, in order
	refused  []int64
	value    string
}

func (s *fencedStore) write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.largest {
		s.refused = append(s.refused, token)
		return fmt.Errorf("%w: %d < %d", errStale, token, s.largest)
	}
	if token > s.largest {
		s.accepted = append(s.accepted, token)
		s.largest = token
	}
	s.value = value
	return nil
}

// TestFencingTokensUnderContention: 3 clients × 16 goroutines take the lock
// again and again (some re-entering it) and write (token, value) to a store
// that refuses stale tokens. The store refuses no current holder, sees
// strictly increasing tokens, and every acquisition, hand-offs and
// re-entries included, got a token of its own: the counter ends at the
// number of acquisitions, and no token was handed out twice.
func TestFencingTokensUnderContention(t *testing.T) {
	srv := redistest.StartServer(t)
	const (
		clients    = 3
		goroutines = 16
		rounds     = 12
	)
	ctx := context.Background()
	store := &fencedStore{}
	var (
		inside   atomic.Int32
		overlaps atomic.Int32
		mu       sync.Mutex
		tokens   []int64
	)
	record := func(tok int64) {
		mu.Lock()
		tokens = append(tokens, tok)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for ci := range clients {
		lock := redissontest.ClientAt(t, srv.Addr()).FencedLock("contended")
		for g := range goroutines {
			wg.Go(func() {
				for r := range rounds {
					wctx, cancel := context.WithTimeout(ctx, time.Minute)
					h, err := lock.Lock(wctx)
					cancel()
					if err != nil {
						t.Errorf("client %d goroutine %d: %v", ci, g, err)
						return
					}
					record(h.Token())
					if inside.Add(1) != 1 {
						overlaps.Add(1)
					}
					newest := h
					var inner *fencedlock.Hold
					if r%4 == 3 {
						// Re-entry: a newer token, which the writes use.
						inner, err = lock.Lock(ctx, fencedlock.WithOwner(h.Owner()))
						if err != nil {
							t.Errorf("re-entry: %v", err)
						} else {
							record(inner.Token())
							newest = inner
						}
					}
					for i := range 2 {
						if newest.Err() != nil {
							t.Errorf("hold ended while held: %v", newest.Err())
						}
						if err := store.write(newest.Token(), fmt.Sprintf("c%d g%d r%d w%d", ci, g, r, i)); err != nil {
							t.Errorf("a current holder was refused: %v", err)
						}
					}
					inside.Add(-1)
					if inner != nil {
						if err := inner.Unlock(ctx); err != nil {
							t.Errorf("inner unlock: %v", err)
						}
					}
					if err := h.Unlock(ctx); err != nil {
						t.Errorf("unlock: %v", err)
					}
				}
			})
		}
	}
	wg.Wait()
	require.Zero(t, overlaps.Load(), "two holders at once")
	store.mu.Lock()
	defer store.mu.Unlock()
	require.Empty(t, store.refused, "current holders refused")
	require.True(t, slices.IsSorted(store.accepted), "tokens seen by the store increase")
	for i := 1; i < len(store.accepted); i++ {
		require.Less(t, store.accepted[i-1], store.accepted[i])
	}
	slices.Sort(tokens)
	require.Equal(t, len(tokens), len(slices.Compact(slices.Clone(tokens))), "a token handed out twice")
	raw := redistest.Client(t, srv)
	counter, err := raw.Get(ctx, keys.FencedLockToken("contended")).Int64()
	require.NoError(t, err)
	require.Equal(t, int64(len(tokens)), counter, "one token per acquisition")
	require.Equal(t, int64(1), tokens[0])
	require.Equal(t, counter, tokens[len(tokens)-1])
	t.Logf("%d acquisitions (%d writers), %d distinct writing tokens", len(tokens), clients*goroutines, len(store.accepted))
}

// TestStalledHolderIsFenced: a holder's connection to Redis stalls (through
// the fault proxy; or is cut, every reconnect refused), so its watchdog
// cannot renew the lease. Its hold's
// signal fires before the lease can have run out, so before another client
// gets the lock; the other client gets a larger token, and when the stalled
// holder writes with its old token afterwards (as a paused process would),
// the store refuses it.
func TestStalledHolderIsFenced(t *testing.T) {
	srv := redistest.StartServer(t)
	contender := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(time.Second))
	const trials = 3
	for _, fault := range []string{"stall", "cut"} {
		for i := range trials {
			t.Run(fmt.Sprint(fault, i), func(t *testing.T) { stalledTrial(t, srv, contender, fault, i) })
		}
	}
}

func stalledTrial(t *testing.T, srv *redistest.Server, contender *redisson.Client, fault string, i int) {
	ctx := context.Background()
	name := fmt.Sprintf("%s:%d", fault, i)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	defer p.Close()
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	defer rdb.Close()
	holder, err := redisson.New(rdb, redisson.WithWatchdogTimeout(time.Second))
	require.NoError(t, err)
	defer holder.Close()
	store := &fencedStore{}

	h, err := holder.FencedLock(name).Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, store.write(h.Token(), "holder"))

	type acq struct {
		h   *fencedlock.Hold
		at  time.Time
		err error
		// signalled: the holder's signal had fired when the contender's
		// Lock returned. Checked there, not by comparing two timestamps
		// read after wake-ups that a loaded machine delays.
		signalled bool
	}
	got := make(chan acq, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		ch, err := contender.FencedLock(name).Lock(wctx)
		got <- acq{ch, time.Now(), err, h.Err() != nil}
	}()
	redistest.Eventually(t, 5*time.Second, "the contender waits", func() bool {
		return redistest.NumSub(t, redistest.Client(t, srv), keys.LockChannel(name)) >= 1
	})
	if fault == "stall" {
		p.Stall()
	} else {
		p.Cut()
	}
	var a acq
	var doneAt time.Time
	select {
	case <-h.Done():
		doneAt = time.Now()
		a = <-got
	case a = <-got:
		t.Fatalf("the contender acquired before the stalled holder's signal (hold err %v)", h.Err())
	}
	require.NoError(t, a.err)
	defer a.h.Unlock(ctx)
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.True(t, a.signalled, "the holder's signal came first")
	require.Greater(t, a.h.Token(), h.Token())
	require.NoError(t, store.write(a.h.Token(), "contender"))

	// The stalled holder wakes up and writes with its old token.
	err = store.write(h.Token(), "stale holder")
	require.ErrorIs(t, err, errStale)
	require.Equal(t, "contender", store.value)
	p.Resume()
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrLockLost, "a lost hold sends no unlock")
	n, err := contender.FencedLock(name).HoldCount(ctx, a.h.Owner())
	require.NoError(t, err)
	require.Equal(t, 1, n, "the new holder keeps its hold")
	t.Logf("signal %v before the contender's acquisition; tokens %d then %d", a.at.Sub(doneAt), h.Token(), a.h.Token())
}
