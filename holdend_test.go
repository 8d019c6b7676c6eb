package redisson_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/rlock"
)

// holdEnds records the HoldEnd events of a client.
type holdEnds struct {
	mu  sync.Mutex
	evs []observe.HoldEnd
}

func (r *holdEnds) observer() *observe.Observer {
	return &observe.Observer{HoldEnd: func(_ context.Context, e observe.HoldEnd) {
		r.mu.Lock()
		r.evs = append(r.evs, e)
		r.mu.Unlock()
	}}
}

func (r *holdEnds) causes() map[observe.EndCause]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[observe.EndCause]int{}
	for _, e := range r.evs {
		out[e.Cause]++
	}
	return out
}

// A fixed lease that runs out, taken so (TryLock with a lease) or made so
// (Extend of a watchdog hold), ends the hold as asked, for every lock kind:
// its Err and Unlock's error match ErrLeaseExpired, not ErrLockLost; the
// observer says "expired"; the client counts it expired, not lost; and
// nothing is logged. It used to be reported as a lost lock (ErrLockLost,
// the observer's "lost", a "lease lost" warning), so lost-lock alerts
// fired on ordinary TryLock(wait, lease) use.
func TestFixedLeaseEndsExpired(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	for _, k := range extendKinds {
		for _, how := range []string{"fixed", "extended"} {
			t.Run(k.name+"/"+how, func(t *testing.T) {
				ends := &holdEnds{}
				c, err := redisson.New(redistest.Client(t, srv), redisson.WithObserver(ends.observer()),
					redisson.WithLogger(newWarnFail(t)))
				require.NoError(t, err)
				t.Cleanup(func() { _ = c.Close() })
				name := "expire:" + strings.ReplaceAll(k.name, " ", "-") + ":" + how
				const lease = time.Second
				var h extendHold
				var ok bool
				if how == "fixed" {
					h, ok, err = k.take(ctx, c, name, lease)
				} else {
					h, ok, err = k.take(ctx, c, name, 0)
					if err == nil && ok {
						err = h.Extend(ctx, lease)
					}
				}
				require.NoError(t, err)
				require.True(t, ok)
				select {
				case <-h.Done():
				case <-time.After(30 * time.Second):
					t.Fatal("the hold did not end with its lease")
				}
				require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
				require.NotErrorIs(t, h.Err(), redisson.ErrLockLost)
				uerr := h.Unlock(ctx)
				require.ErrorIs(t, uerr, redisson.ErrLeaseExpired)
				require.NotErrorIs(t, uerr, redisson.ErrLockLost)
				st := c.Stats().Renewal
				require.Zero(t, st.Lost)
				require.Positive(t, st.Expired)
				redistest.Eventually(t, 10*time.Second, "the hold's end reported", func() bool {
					return ends.causes()[observe.Expired] > 0
				})
				require.Zero(t, ends.causes()[observe.Lost], "%v", ends.causes())
			})
		}
	}
}

// A watchdog hold whose key is deleted is still lost, not expired.
func TestDeletedWatchdogHoldIsLost(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ends := &holdEnds{}
	c := newObservedClient(t, srv, redisson.WithWatchdogTimeout(300*time.Millisecond), redisson.WithObserver(ends.observer()))
	ctx := context.Background()
	h, err := c.Lock("deleted").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, rdb.Del(ctx, "deleted").Err())
	<-h.Done()
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.NotErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
	redistest.Eventually(t, 10*time.Second, "the loss reported", func() bool { return ends.causes()[observe.Lost] == 1 })
	require.Equal(t, uint64(1), c.Stats().Renewal.Lost)
}

// Close with Redis not answering (a stalled network): every hold ends
// with ErrClosed at once, as docs/closing.md says, although Close then
// waits out its timeout deleting the client's registration record. The
// holds used to live on meanwhile and end with "the lease ran out" (a
// watchdog lease shorter than that wait).
func TestCloseWithRedisStalledEndsHoldsClosed(t *testing.T) {
	srv := redistest.StartServer(t)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	ends := &holdEnds{}
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(time.Second), redisson.WithTimeout(3*time.Second),
		redisson.WithObserver(ends.observer()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	watchdog, err := c.Lock("close:watchdog").Lock(ctx)
	require.NoError(t, err)
	fixed, ok, err := c.Lock("close:fixed").TryLock(ctx, rlock.WithLease(1500*time.Millisecond))
	require.NoError(t, err)
	require.True(t, ok)

	p.Stall()
	t.Cleanup(p.Resume)
	require.NoError(t, c.Close())
	for _, h := range []*rlock.Hold{watchdog, fixed} {
		require.ErrorIs(t, h.Err(), redisson.ErrClosed)
		require.NotErrorIs(t, h.Err(), redisson.ErrLockLost)
	}
	require.Equal(t, map[observe.EndCause]int{observe.Closed: 2}, ends.causes())
}

// raceHooks hold back, once armed, the next renewal pipeline of a key
// until told, and the reply of the next single script call on that key
// (the unlock) until told, so a test can make the renewal reach Redis
// after the unlock ran and have its answer applied before the unlock's.
type raceHooks struct {
	key                     string
	renewArmed, unlockArmed atomic.Bool
	renewHeld, unlockRan    chan struct{}
	renewGo, unlockReplyGo  chan struct{}
	renewOnce, unlockOnce   sync.Once
}

func newRaceHooks(key string) *raceHooks {
	return &raceHooks{key: key, renewHeld: make(chan struct{}), unlockRan: make(chan struct{}),
		renewGo: make(chan struct{}), unlockReplyGo: make(chan struct{})}
}

// onKey reports whether cmd is a script call on the hooks' key.
func (r *raceHooks) onKey(cmd redis.Cmder) bool {
	a := cmd.Args()
	if len(a) < 4 {
		return false
	}
	name, _ := a[0].(string)
	key, _ := a[3].(string)
	return (strings.EqualFold(name, "evalsha") || strings.EqualFold(name, "eval")) && key == r.key
}

func (r *raceHooks) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *raceHooks) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !r.onKey(cmd) || !r.unlockArmed.CompareAndSwap(true, false) {
			return next(ctx, cmd)
		}
		err := next(ctx, cmd)
		if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			// Not run: the EVAL that follows is the unlock.
			r.unlockArmed.Store(true)
			return err
		}
		r.unlockOnce.Do(func() { close(r.unlockRan) })
		<-r.unlockReplyGo
		return err
	}
}

func (r *raceHooks) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) == 0 || !r.onKey(cmds[0]) || !r.renewArmed.CompareAndSwap(true, false) {
			return next(ctx, cmds)
		}
		r.renewOnce.Do(func() { close(r.renewHeld) })
		select {
		case <-r.renewGo:
		case <-ctx.Done():
		}
		return next(ctx, cmds)
	}
}

// A renewal that reaches Redis after the holder's own unlock ran, and
// whose answer ("the lock is gone") is applied before the unlock's reply,
// is no loss: Unlock succeeds, the hold ends released, and nothing warns
// "lease lost". Such races logged a "lease lost" warning and reported the
// hold lost in a soak of short-watchdog lock/unlock cycles with no loss.
func TestRenewalRacingUnlockIsNoLoss(t *testing.T) {
	srv := redistest.StartServer(t)
	const key = "race:renew-unlock"
	hooks := newRaceHooks(key)
	rdb := redistest.Client(t, srv)
	rdb.AddHook(hooks)
	ends := &holdEnds{}
	obs := ends.observer()
	rounds := make(chan observe.Renewal, 16)
	obs.Renewal = func(e observe.Renewal) {
		select {
		case rounds <- e:
		default:
		}
	}
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(900*time.Millisecond), redisson.WithObserver(obs),
		redisson.WithLogger(newWarnFail(t)), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()

	h, err := c.Lock(key).Lock(ctx)
	require.NoError(t, err)
	hooks.renewArmed.Store(true)
	recv(t, "the renewal held back", hooks.renewHeld)
	for len(rounds) > 0 {
		<-rounds
	}
	hooks.unlockArmed.Store(true)
	unlocked := make(chan error, 1)
	go func() { unlocked <- h.Unlock(ctx) }()
	recv(t, "the unlock ran in Redis", hooks.unlockRan)
	close(hooks.renewGo)
	r := recvValue(t, "the renewal's answer", rounds)
	require.Equal(t, 1, r.Lost, "the renewal must have found the lock gone: %+v", r)
	close(hooks.unlockReplyGo)
	require.NoError(t, recvValue(t, "Unlock's result", unlocked))
	require.ErrorIs(t, h.Err(), context.Canceled)
	require.False(t, errors.Is(h.Err(), redisson.ErrLockLost))
	redistest.Eventually(t, 10*time.Second, "the hold's end reported", func() bool { return len(ends.causes()) > 0 })
	require.Equal(t, map[observe.EndCause]int{observe.Released: 1}, ends.causes())
}

func recv(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func recvValue[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}
