package redisson_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
	"github.com/goredisson/redisson/semaphore"
)

// An option compiles only where it is understood: a lease given to a plain
// semaphore, a wait given to a call that waits until ctx is done, a lock's
// option given to a semaphore are different types. Code that does not
// compile cannot be a test, so this checks what the compiler checks: which
// option constructor's result each call's variadic parameter accepts, for
// every constructor and every call (a call without options accepts none).
// Every variadic method of the objects must be listed, so that a new one
// is looked at here.
func TestOptionsCompileOnlyWhereUnderstood(t *testing.T) {
	ctors := map[string]any{
		"locks.WithLease": locks.WithLease, "locks.WithWait": locks.WithWait, "locks.WithOwner": locks.WithOwner,
		"rlock.WithLease": rlock.WithLease, "rlock.WithWait": rlock.WithWait, "rlock.WithOwner": rlock.WithOwner,
		"fairlock.WithLease": fairlock.WithLease, "fairlock.WithWait": fairlock.WithWait, "fairlock.WithOwner": fairlock.WithOwner,
		"fencedlock.WithLease": fencedlock.WithLease, "fencedlock.WithWait": fencedlock.WithWait, "fencedlock.WithOwner": fencedlock.WithOwner,
		"rwlock.WithLease": rwlock.WithLease, "rwlock.WithWait": rwlock.WithWait, "rwlock.WithOwner": rwlock.WithOwner,
		"multilock.WithLease": multilock.WithLease, "multilock.WithWait": multilock.WithWait, "multilock.WithOwner": multilock.WithOwner,
		"semaphore.WithWait": semaphore.WithWait, "semaphore.WithLease": semaphore.WithLease, "semaphore.WithTTL": semaphore.WithTTL,
		"latch.WithTimeout":       latch.WithTimeout,
		"ratelimit.WithWait":      ratelimit.WithWait,
		"ratelimit.WithKeepAlive": ratelimit.WithKeepAlive,
		"redisson.WithTimeout":    redisson.WithTimeout,
	}
	// The lock kinds share one option set: each of their acquisitions
	// understands every one (Lock refuses WithWait at run time, see
	// TestSharedLockOptionsRefused).
	var lockOpts []string
	for _, pkg := range []string{"locks", "rlock", "fairlock", "fencedlock", "rwlock", "multilock"} {
		lockOpts = append(lockOpts, pkg+".WithLease", pkg+".WithWait", pkg+".WithOwner")
	}
	calls := []struct {
		name    string
		method  any
		accepts []string
	}{
		{"rlock.Lock.Lock", (*rlock.Lock).Lock, lockOpts},
		{"rlock.Lock.TryLock", (*rlock.Lock).TryLock, lockOpts},
		{"fairlock.Lock.Lock", (*fairlock.Lock).Lock, lockOpts},
		{"fairlock.Lock.TryLock", (*fairlock.Lock).TryLock, lockOpts},
		{"fencedlock.Lock.Lock", (*fencedlock.Lock).Lock, lockOpts},
		{"fencedlock.Lock.TryLock", (*fencedlock.Lock).TryLock, lockOpts},
		{"rwlock.Lock.Lock", (*rwlock.Lock).Lock, lockOpts},
		{"rwlock.Lock.TryLock", (*rwlock.Lock).TryLock, lockOpts},
		{"multilock.Lock.Lock", (*multilock.Lock).Lock, lockOpts},
		{"multilock.Lock.TryLock", (*multilock.Lock).TryLock, lockOpts},
		{"multilock.Group.Lock", (*multilock.Group).Lock, lockOpts},
		{"multilock.Group.TryLock", (*multilock.Group).TryLock, lockOpts},
		{"semaphore.Semaphore.TryAcquire", (*semaphore.Semaphore).TryAcquire, []string{"semaphore.WithWait"}},
		{"semaphore.Semaphore.TryAcquirePermits", (*semaphore.Semaphore).TryAcquirePermits, []string{"semaphore.WithWait"}},
		{"semaphore.Semaphore.TrySetPermits", (*semaphore.Semaphore).TrySetPermits, []string{"semaphore.WithTTL"}},
		{"semaphore.Semaphore.Acquire", (*semaphore.Semaphore).Acquire, nil},
		{"semaphore.Semaphore.AcquirePermits", (*semaphore.Semaphore).AcquirePermits, nil},
		{"semaphore.ExpirableSemaphore.Acquire", (*semaphore.ExpirableSemaphore).Acquire, []string{"semaphore.WithLease"}},
		{"semaphore.ExpirableSemaphore.AcquireN", (*semaphore.ExpirableSemaphore).AcquireN, []string{"semaphore.WithLease"}},
		{"semaphore.ExpirableSemaphore.TryAcquire", (*semaphore.ExpirableSemaphore).TryAcquire, []string{"semaphore.WithWait", "semaphore.WithLease"}},
		{"semaphore.ExpirableSemaphore.TryAcquireN", (*semaphore.ExpirableSemaphore).TryAcquireN, []string{"semaphore.WithWait", "semaphore.WithLease"}},
		{"semaphore.ExpirableSemaphore.TrySetPermits", (*semaphore.ExpirableSemaphore).TrySetPermits, nil},
		{"latch.Latch.Await", (*latch.Latch).Await, []string{"latch.WithTimeout"}},
		{"ratelimit.Limiter.TryAcquire", (*ratelimit.Limiter).TryAcquire, []string{"ratelimit.WithWait"}},
		{"ratelimit.Limiter.Acquire", (*ratelimit.Limiter).Acquire, nil},
		{"ratelimit.Limiter.TrySetRate", (*ratelimit.Limiter).TrySetRate, []string{"ratelimit.WithKeepAlive"}},
		{"ratelimit.Limiter.SetRate", (*ratelimit.Limiter).SetRate, []string{"ratelimit.WithKeepAlive"}},
	}
	listed := make(map[string]bool, len(calls))
	for _, c := range calls {
		listed[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			typ := reflect.TypeOf(c.method)
			var param reflect.Type
			if typ.IsVariadic() {
				param = typ.In(typ.NumIn() - 1).Elem()
			}
			want := make(map[string]bool, len(c.accepts))
			for _, name := range c.accepts {
				require.Contains(t, ctors, name)
				want[name] = true
			}
			for name, ctor := range ctors {
				got := param != nil && reflect.TypeOf(ctor).Out(0).AssignableTo(param)
				require.Equal(t, want[name], got, "%s(..., %s(...)) compiles", c.name, name)
			}
		})
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[*rlock.Lock](), reflect.TypeFor[*fairlock.Lock](), reflect.TypeFor[*fencedlock.Lock](),
		reflect.TypeFor[*rwlock.Lock](), reflect.TypeFor[*multilock.Lock](), reflect.TypeFor[*multilock.Group](),
		reflect.TypeFor[*semaphore.Semaphore](), reflect.TypeFor[*semaphore.ExpirableSemaphore](),
		reflect.TypeFor[*latch.Latch](), reflect.TypeFor[*ratelimit.Limiter](),
	} {
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			name := typ.Elem().String() + "." + m.Name
			if m.Type.IsVariadic() {
				require.True(t, listed[name], "%s takes options: list it above", name)
			}
		}
	}
}

// holder is what a test needs of any lock kind's hold.
type holder interface {
	Unlock(ctx context.Context) error
	Owner() int64
}

// lockKind is one lock kind's Lock and TryLock on a name, seen through the
// options every kind shares.
type lockKind struct {
	name string
	// make returns the kind's acquisitions on name, and its rival's: who
	// cannot take the lock while the kind's hold lasts (for the read lock,
	// the write lock).
	make func(c *redisson.Client, name string) (self, rival acquirer)
}

type acquirer struct {
	lock func(ctx context.Context, opts ...locks.Option) (holder, error)
	try  func(ctx context.Context, opts ...locks.Option) (holder, bool, error)
}

// acquirerOf adapts a kind's methods; a hold not taken is a nil holder.
func acquirerOf[H holder](lock func(context.Context, ...locks.Option) (H, error),
	try func(context.Context, ...locks.Option) (H, bool, error)) acquirer {
	return acquirer{
		lock: func(ctx context.Context, opts ...locks.Option) (holder, error) {
			h, err := lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return h, nil
		},
		try: func(ctx context.Context, opts ...locks.Option) (holder, bool, error) {
			h, ok, err := try(ctx, opts...)
			if !ok {
				return nil, false, err
			}
			return h, true, nil
		},
	}
}

// same is a kind whose rival is another acquisition of itself.
func same(mk func(c *redisson.Client, name string) acquirer) func(*redisson.Client, string) (acquirer, acquirer) {
	return func(c *redisson.Client, name string) (acquirer, acquirer) { return mk(c, name), mk(c, name) }
}

var lockKinds = []lockKind{
	{"lock", same(func(c *redisson.Client, name string) acquirer {
		l := c.Lock(name)
		return acquirerOf(l.Lock, l.TryLock)
	})},
	{"fair lock", same(func(c *redisson.Client, name string) acquirer {
		l := c.FairLock(name)
		return acquirerOf(l.Lock, l.TryLock)
	})},
	{"fenced lock", same(func(c *redisson.Client, name string) acquirer {
		l := c.FencedLock(name)
		return acquirerOf(l.Lock, l.TryLock)
	})},
	{"read lock", func(c *redisson.Client, name string) (acquirer, acquirer) {
		r, w := c.ReadWriteLock(name).ReadLock(), c.ReadWriteLock(name).WriteLock()
		return acquirerOf(r.Lock, r.TryLock), acquirerOf(w.Lock, w.TryLock)
	}},
	{"write lock", same(func(c *redisson.Client, name string) acquirer {
		l := c.ReadWriteLock(name).WriteLock()
		return acquirerOf(l.Lock, l.TryLock)
	})},
	{"multi-lock", same(func(c *redisson.Client, name string) acquirer {
		l := multilock.New(c.Lock(name))
		return acquirerOf(l.Lock, l.TryLock)
	})},
	{"RedLock", same(func(c *redisson.Client, name string) acquirer {
		l := multilock.NewRedLock(c.Lock(name))
		return acquirerOf(l.Lock, l.TryLock)
	})},
	{"group multi-lock", same(func(c *redisson.Client, name string) acquirer {
		l := c.MultiLockGroup(name, "v")
		return acquirerOf(l.Lock, l.TryLock)
	})},
}

// The shared options are checked once for every kind: a value a call
// cannot use, WithWait on Lock above all (Lock waits until ctx is done),
// is refused with ErrInvalidArgument before anything is sent.
func TestSharedLockOptionsRefused(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	c := newRaceClient(t, srv)
	ctx := context.Background()
	refused := []struct {
		name string
		try  bool
		opts []locks.Option
	}{
		{"Lock WithWait", false, []locks.Option{locks.WithWait(time.Second)}},
		{"Lock WithWait 0", false, []locks.Option{rlock.WithWait(0)}},
		{"Lock zero lease", false, []locks.Option{locks.WithLease(0)}},
		{"TryLock lease below 1ms", true, []locks.Option{locks.WithLease(time.Microsecond)}},
		{"TryLock negative wait", true, []locks.Option{locks.WithWait(-time.Millisecond)}},
		{"Lock zero owner", false, []locks.Option{locks.WithOwner(0)}},
		{"TryLock negative owner", true, []locks.Option{locks.WithOwner(-5)}},
	}
	for _, k := range lockKinds {
		for _, r := range refused {
			t.Run(k.name+"/"+r.name, func(t *testing.T) {
				self, _ := k.make(c, "refused")
				sent := redistest.Sent(t, srv, rdb, func() {
					var err error
					if r.try {
						_, _, err = self.try(ctx, r.opts...)
					} else {
						_, err = self.lock(ctx, r.opts...)
					}
					require.ErrorIs(t, err, redisson.ErrInvalidArgument)
				})
				require.Empty(t, sent, "nothing is sent")
			})
		}
	}
}

// Every kind honours every shared option: the owner is the hold's, the
// lease is the key's TTL (not the watchdog's 30 s), and a rival's TryLock
// waits as long as WithWait says before it reports false.
func TestSharedLockOptionsHonoured(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	c := newRaceClient(t, srv)
	ctx := context.Background()
	const lease, wait = 42 * time.Second, 100 * time.Millisecond
	for i, k := range lockKinds {
		t.Run(k.name, func(t *testing.T) {
			name := fmt.Sprintf("honoured-%d", i)
			self, rival := k.make(c, name)
			owner := redisson.NewOwnerID()
			h, ok, err := self.try(ctx, locks.WithOwner(owner), locks.WithLease(lease))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, owner, h.Owner())
			ttl, err := rdb.PTTL(ctx, name).Result()
			require.NoError(t, err)
			require.Greater(t, ttl, c.Options().WatchdogTimeout, "the lease, not the watchdog's")
			require.LessOrEqual(t, ttl, lease)

			start := time.Now()
			_, ok, err = rival.try(ctx, locks.WithWait(wait))
			require.NoError(t, err)
			require.False(t, ok)
			require.GreaterOrEqual(t, time.Since(start), wait, "the rival waited")
			require.NoError(t, h.Unlock(ctx))
		})
	}
}
