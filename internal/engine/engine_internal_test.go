package engine

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/localq"
	"github.com/goredisson/redisson/internal/redistest"
)

// The engine is tested here with a minimal object of its own: a reentrant
// hash lock with RLock's replies, its unlock latch and its hand-off, without
// the watchdog (the tests use fixed leases). Objects' own tests go through
// their public API.

var testAcquire = core.NewScript("enginetest.acquire", `
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
return redis.call('pttl', KEYS[1])
`)

// KEYS: [name, channel, latch]. ARGV: [lease ms, field, latch TTL ms,
// next field or "", next lease ms]. Reply: nil, 0 (still held), 1 (handed
// over, or a replay), 1 + the connections the message reached (freed).
var testRelease = core.NewScript("enginetest.release", `
local replay = redis.call('get', KEYS[3])
if replay ~= false then
	return tonumber(replay)
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
	return nil
end
if redis.call('hincrby', KEYS[1], ARGV[2], -1) > 0 then
	redis.call('pexpire', KEYS[1], ARGV[1])
	redis.call('set', KEYS[3], 0, 'px', ARGV[3])
	return 0
end
if ARGV[4] ~= '' then
	redis.call('hdel', KEYS[1], ARGV[2])
	redis.call('hset', KEYS[1], ARGV[4], 1)
	redis.call('pexpire', KEYS[1], ARGV[5])
	redis.call('set', KEYS[3], 1, 'px', ARGV[3])
	return 1
end
redis.call('del', KEYS[1])
local heard = redis.call('publish', KEYS[2], '0')
redis.call('set', KEYS[3], 1, 'px', ARGV[3])
return 1 + heard
`)

var testCount = core.NewScript("enginetest.count", `return redis.call('hget', KEYS[1], ARGV[1])`)

type testScripts struct {
	rt            *core.Runtime
	name, channel string
}

func (s *testScripts) Acquire(ctx context.Context, field string, lease time.Duration) (AcquireReply, error) {
	res, sync, err := s.rt.Run(ctx, testAcquire, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name}, lease.Milliseconds(), field)
	if err != nil || res == nil {
		return AcquireReply{OK: err == nil, Sync: sync}, err
	}
	pttl, _ := res.(int64)
	return AcquireReply{TTL: time.Duration(pttl) * time.Millisecond, Sync: sync}, nil
}

func (s *testScripts) Release(ctx context.Context, field string, lease time.Duration, reqID string, next *Successor) (ReleaseReply, error) {
	r, err := s.release(ctx, field, lease, reqID, next)
	r.Heard = 0
	return r, err
}

func (s *testScripts) ReleaseHeard(ctx context.Context, field string, lease time.Duration, reqID string) (ReleaseReply, error) {
	return s.release(ctx, field, lease, reqID, nil)
}

func (s *testScripts) release(ctx context.Context, field string, lease time.Duration, reqID string, next *Successor) (ReleaseReply, error) {
	nextField, nextLease := "", int64(0)
	if next != nil {
		nextField, nextLease = next.Field, next.Lease.Milliseconds()
	}
	res, sync, err := s.rt.Run(ctx, testRelease, core.RunOpts{Synced: true}, []string{s.name, s.channel, s.name + ":latch:" + reqID},
		lease.Milliseconds(), field, LatchTTL(s.rt).Milliseconds(), nextField, nextLease)
	if err != nil || res == nil {
		return ReleaseReply{Released: NotOwner, Sync: sync}, err
	}
	if n, _ := res.(int64); n >= 1 {
		return ReleaseReply{Released: Freed, Heard: int(n - 1), Sync: sync}, nil
	}
	return ReleaseReply{Released: StillHeld, Sync: sync}, nil
}

func (s *testScripts) Count(ctx context.Context, field string) (int, error) {
	res, _, err := s.rt.Run(ctx, testCount, core.RunOpts{}, []string{s.name}, field)
	if err != nil || res == nil {
		return 0, err
	}
	v, _ := res.(string)
	return strconv.Atoi(v)
}

func newTestEngine(t *testing.T) (*Engine, *core.Runtime) {
	t.Helper()
	return newTestEngineOn(t, redistest.StartServer(t), "cid")
}

// newTestEngineOn is a client with id on srv: several of them are
// different processes on one Redis.
func newTestEngineOn(t *testing.T, srv *redistest.Server, id string) (*Engine, *core.Runtime) {
	t.Helper()
	rdb := redistest.Client(t, srv)
	rt := core.New(core.Config{Redis: rdb, ID: id, WatchdogTimeout: 30 * time.Second, Timeout: 3 * time.Second})
	t.Cleanup(rt.Close)
	return New(rt), rt
}

func testLock(e *Engine, name string) *Lock {
	channel := "enginetest_channel:{" + name + "}"
	return e.Lock(Config{
		Kind:    "lock",
		Name:    name,
		Channel: channel,
		Policy:  hub.LockPolicy,
		HandOff: true,
		Scripts: &testScripts{rt: e.Runtime(), name: name, channel: channel},
	})
}

// TestAbandonedHandOffWakesLocalWaiter: a waiter that was handed the lock
// but gives up (here: its Subscribe had failed, so it has no subscription
// to pass a wake-up on) releases the lock for real. Its unlock message may
// arrive while the hand-off still counts as pending, when every local
// waiter is passed over; the waiter that is left must still be woken at
// once, not after the holder's 30 s lease.
func TestAbandonedHandOffWakesLocalWaiter(t *testing.T) {
	e, rt := newTestEngine(t)
	l := testLock(e, "abandoned")
	ctx := context.Background()
	const lease = 30 * time.Second
	for round := range 5 {
		var h Hold
		ok, err := l.Acquire(ctx, &h, Request{Owner: 1, Lease: lease, Wait: true})
		require.NoError(t, err)
		require.True(t, ok)

		ref := e.queues.use(l.queueKey, localq.New[*Hold])
		q := ref.value()
		gone := localq.NewWaiter(localq.Waiter[*Hold]{Field: l.Field(3), Lease: lease}, false)
		q.Park(gone)

		got := make(chan error, 1)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		go func() {
			var wh Hold
			ok, err := l.Acquire(wctx, &wh, Request{Owner: 2, Lease: lease, Wait: true})
			if err == nil && ok {
				err = wh.Unlock(ctx)
			} else if err == nil {
				err = context.Cause(wctx)
			}
			got <- err
		}()
		redistest.Eventually(t, 5*time.Second, "the second waiter parked", func() bool {
			s := q.States()
			return len(s) == 2 && s[1] == localq.Parked && rt.Hub().Stats().Waiters == 1
		})

		require.NoError(t, h.Unlock(ctx)) // hands the lock to gone, the oldest
		require.Equal(t, localq.Handed, q.States()[0], "round %d", round)
		q.SetStreak(localq.MaxHandOffStreak) // so that gone's release is a real one
		_, err = l.abandon(ctx, q, gone, context.Canceled)
		require.ErrorIs(t, err, context.Canceled)

		start := time.Now()
		select {
		case err := <-got:
			require.NoError(t, err, "round %d", round)
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the waiter left was not woken (it would sleep out the holder's lease)", round)
		}
		require.Less(t, time.Since(start), 5*time.Second, "round %d", round)
		cancel()
		q.SetStreak(0)
		ref.release()
	}
}

// TestSecondUnlockSendsNothing: the engine refuses a second release of one
// hold before anything reaches Redis, even when the owner holds the lock
// again by another hold.
func TestSecondUnlockSendsNothing(t *testing.T) {
	e, _ := newTestEngine(t)
	l := testLock(e, "twice")
	ctx := context.Background()
	var h1, h2 Hold
	for _, h := range []*Hold{&h1, &h2} {
		ok, err := l.Acquire(ctx, h, Request{Owner: 7, Lease: time.Minute})
		require.NoError(t, err)
		require.True(t, ok)
	}
	require.NoError(t, h1.Unlock(ctx))
	require.ErrorIs(t, h1.Unlock(ctx), core.ErrNotOwner)
	n, err := l.cfg.Scripts.Count(ctx, l.Field(7))
	require.NoError(t, err)
	require.Equal(t, 1, n, "h2's hold is untouched")
	require.NoError(t, h2.Err())
	require.NoError(t, h2.Unlock(ctx))
	require.ErrorIs(t, (&Hold{}).Unlock(ctx), core.ErrNotOwner)
}
