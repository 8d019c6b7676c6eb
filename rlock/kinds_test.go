package rlock_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// evalCalls reads how many scripts Redis ran so far (INFO commandstats).
func evalCalls(t testing.TB, raw *redis.Client) int64 {
	t.Helper()
	info, err := raw.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	var n int64
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_evalsha:") && !strings.HasPrefix(line, "cmdstat_eval:") {
			continue
		}
		_, rest, _ := strings.Cut(line, "calls=")
		v, _, _ := strings.Cut(rest, ",")
		c, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err)
		n += c
	}
	return n
}

// TestSpinLockPolls: a waiter of another client polls (its tries reach
// Redis while the lock is held) with no subscription, and takes the lock
// after the holder's release, which publishes nothing.
func TestSpinLockPolls(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	msgs := redistest.Capture(t, raw)

	h, err := c1.SpinLock("spin").Lock(ctx)
	require.NoError(t, err)
	before := evalCalls(t, raw)
	got := make(chan *rlock.Hold, 1)
	go func() {
		h2, err := c2.SpinLock("spin").Lock(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h2
	}()
	redistest.Eventually(t, 10*time.Second, "the waiter polled five times", func() bool { return evalCalls(t, raw)-before >= 5 })
	chans, err := raw.PubSubChannels(ctx, "*").Result()
	require.NoError(t, err)
	require.Empty(t, chans, "a spin lock's waiter subscribes to nothing")
	require.NoError(t, h.Unlock(ctx))
	var h2 *rlock.Hold
	select {
	case h2 = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not take the released lock")
	}
	require.NotNil(t, h2)
	require.NoError(t, h2.Unlock(ctx))
	msgs.None(t)
}

// TestSpinLockTryLock: a TryLock of a held spin lock fails at once, or
// after polling for its wait; a force unlock ends the holder's hold as
// lost, and a BackOff that makes no sense fails every acquisition.
func TestSpinLockTryLock(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c1.SpinLock("spin", rlock.WithBackOff(rlock.BackOff{Constant: true, Delay: 5 * time.Millisecond}))
	h, err := lock.Lock(ctx, rlock.WithOwner(7))
	require.NoError(t, err)
	h2, err := lock.Lock(ctx, rlock.WithOwner(7))
	require.NoError(t, err, "the spin lock is re-entrant")
	n, err := lock.HoldCount(ctx, 7)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.NoError(t, h2.Unlock(ctx))

	other := c2.SpinLock("spin")
	for _, opts := range [][]rlock.Option{nil, {rlock.WithWait(50 * time.Millisecond)}} {
		_, ok, err := other.TryLock(ctx, opts...)
		require.NoError(t, err)
		require.False(t, ok)
	}
	deleted, err := other.ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
	_, ok, err := other.TryLock(ctx, rlock.WithLease(time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	// The holder's client notices the loss at its next renewal, or at
	// once for a force unlock through its own client.
	deleted, err = lock.ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
	select {
	case <-h.Done():
		require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	case <-time.After(10 * time.Second):
		t.Fatal("the force-unlocked hold did not end")
	}

	bad := c1.SpinLock("spin", rlock.WithBackOff(rlock.BackOff{MaxDelay: -time.Second}))
	_, err = bad.Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	_, _, err = bad.TryLock(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
}

// TestNonReentrantLock: the holder's second Lock and TryLock fail at once
// with ErrNonReentrant and change nothing; another owner of the same
// client, and of another, cannot take it; after the release it can.
func TestNonReentrantLock(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c1.NonReentrantLock("nr")
	h, err := lock.Lock(ctx, rlock.WithOwner(1))
	require.NoError(t, err)
	want := map[string]string{c1.ID() + ":1": "1"}

	_, err = lock.Lock(ctx, rlock.WithOwner(1))
	require.ErrorIs(t, err, redisson.ErrNonReentrant)
	var oe *redisson.ObjectError
	require.True(t, errors.As(err, &oe))
	require.Equal(t, "non-reentrant lock", oe.Kind)
	for _, opts := range [][]rlock.Option{{rlock.WithOwner(1)}, {rlock.WithOwner(1), rlock.WithWait(time.Second), rlock.WithLease(time.Second)}} {
		_, _, err := lock.TryLock(ctx, opts...)
		require.ErrorIs(t, err, redisson.ErrNonReentrant)
	}
	require.Equal(t, want, raw.HGetAll(ctx, "nr").Val())
	for _, l := range []*rlock.NonReentrantLock{lock, c2.NonReentrantLock("nr")} {
		_, ok, err := l.TryLock(ctx)
		require.NoError(t, err)
		require.False(t, ok)
	}
	require.NoError(t, h.Unlock(ctx))
	h, ok, err := c2.NonReentrantLock("nr").TryLock(ctx, rlock.WithOwner(1))
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, h.Unlock(ctx))
}

// TestKindsInMultiLock: a spin lock and a non-reentrant lock are members
// of a multi-lock like every lock kind.
func TestKindsInMultiLock(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	m := multilock.New(c.SpinLock("m:spin"), c.NonReentrantLock("m:nr"), c.Lock("m:plain"))
	h, err := m.Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(3), raw.Exists(ctx, "m:spin", "m:nr", "m:plain").Val())
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, int64(0), raw.Exists(ctx, "m:spin", "m:nr", "m:plain").Val())
}
