package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
	"github.com/goredisson/redisson/semaphore"
)

// hold is one acquisition of an object under test, whatever its kind.
type hold interface {
	// release gives it back.
	release(ctx context.Context) error
	// done is closed when the hold was lost without a release; nil for
	// kinds that have no such signal (semaphore permits).
	done() <-chan struct{}
	// field is the owner's hash field "<client id>:<owner>" the kind's
	// scripts carry, "" when it has none.
	field() string
	// token is the hold's fencing token, 0 for kinds without one.
	token() int64
}

// kind is one object of the suite's table: every test that applies to it
// runs it. A new object (multi-lock, RedLock, fenced lock) is one more row
// in kinds.
type kind struct {
	name string
	// role is what a holder counts as in the gauge: "x" (exclusive, also
	// bumps the non-atomic counter), "w" (writer: exclusive with readers
	// too), "r" (reader) or "p" (one of permits).
	role string
	// lease: a dead holder's hold ends with its lease (kill -9 applies).
	lease bool
	// channel returns the pub/sub channel a waiter with owner field field
	// subscribes to, for checks that waiters are subscribed.
	channel func(name, field string) string
	// setup prepares the object before any worker uses it (permits).
	setup func(ctx context.Context, c *redisson.Client, name string, permits int) error
	// acquire waits for the object; lease 0 means the watchdog (locks) or
	// no lease (permits).
	acquire func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error)
	// waiter is the kind whose waiters queue behind a holder of this kind
	// (a writer behind a reader); "" means the same kind.
	waiter string
	// compound: one acquisition runs a script per member, so tries per
	// owner field say nothing about wake-ups.
	compound bool
	// key is the Redis key whose TTL bounds a dead holder's hold (the
	// member whose expiry frees the set, for multi-locks); nil: name.
	key func(name string) string
	// polls: waiters poll instead of subscribing (the spin lock), so the
	// faults of pub/sub do not reach them.
	polls bool
}

// leaseKey returns the key whose TTL bounds a dead holder's hold.
func (k kind) leaseKey(name string) string {
	if k.key != nil {
		return k.key(name)
	}
	return name
}

type lockHold struct {
	unlock func(context.Context) error
	d      <-chan struct{}
	f      string
	tok    int64
}

func (h lockHold) release(ctx context.Context) error { return h.unlock(ctx) }
func (h lockHold) done() <-chan struct{}             { return h.d }
func (h lockHold) field() string                     { return h.f }
func (h lockHold) token() int64                      { return h.tok }

func field(c *redisson.Client, owner int64) string { return fmt.Sprintf("%s:%d", c.ID(), owner) }

func noSetup(context.Context, *redisson.Client, string, int) error { return nil }

// kinds is the table of objects. Rate limiter and latch have tests of
// their own (they have no holders).
var kinds = []kind{
	{
		name: "RLock", role: "x", lease: true, channel: func(name, _ string) string { return keys.LockChannel(name) }, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			opts := []rlock.Option{rlock.WithOwner(owner)}
			if lease > 0 {
				opts = append(opts, rlock.WithLease(lease))
			}
			h, err := c.Lock(name).Lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{h.Unlock, h.Done(), field(c, owner), 0}, nil
		},
	},
	{
		name: "FencedLock", role: "x", lease: true, setup: noSetup,
		channel: func(name, _ string) string { return keys.LockChannel(name) },
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			opts := []fencedlock.Option{fencedlock.WithOwner(owner)}
			if lease > 0 {
				opts = append(opts, fencedlock.WithLease(lease))
			}
			h, err := c.FencedLock(name).Lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{h.Unlock, h.Done(), field(c, owner), h.Token()}, nil
		},
	},
	{
		// Three RLocks of one client taken as one; its waiters wait on
		// the first member, and the last member's expiry frees the set.
		name: "MultiLock", role: "x", lease: true, setup: noSetup, compound: true,
		channel: func(name, _ string) string { return keys.LockChannel(name + ":a") },
		key:     func(name string) string { return name + ":c" },
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return multiAcquire(ctx, multilock.New(members(c, name)...), c, lease, owner)
		},
	},
	{
		// A RedLock over three RLocks (quorum 2) on one server: the
		// algorithm's path, not its independence of servers (package
		// multilock's tests run it over 5 servers with some down). The
		// second member's expiry gives a waiter its quorum.
		name: "RedLock", role: "x", lease: true, setup: noSetup, compound: true,
		key: func(name string) string { return name + ":b" },
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return multiAcquire(ctx, multilock.NewRedLock(members(c, name)...), c, lease, owner)
		},
	},
	{
		// No channel: its waiters poll.
		name: "SpinLock", role: "x", lease: true, setup: noSetup, polls: true,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return rlockAcquire(ctx, c.SpinLock(name), c, lease, owner)
		},
	},
	{
		name: "NonReentrantLock", role: "x", lease: true, channel: func(name, _ string) string { return keys.LockChannel(name) }, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return rlockAcquire(ctx, c.NonReentrantLock(name), c, lease, owner)
		},
	},
	{
		name: "NonReentrantFairLock", role: "x", lease: true, channel: keys.FairLockChannel, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			opts := []fairlock.Option{fairlock.WithOwner(owner)}
			if lease > 0 {
				opts = append(opts, fairlock.WithLease(lease))
			}
			h, err := c.NonReentrantFairLock(name).Lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{h.Unlock, h.Done(), field(c, owner), 0}, nil
		},
	},
	{
		name: "FairLock", role: "x", lease: true, channel: keys.FairLockChannel, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			opts := []fairlock.Option{fairlock.WithOwner(owner)}
			if lease > 0 {
				opts = append(opts, fairlock.WithLease(lease))
			}
			h, err := c.FairLock(name).Lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{h.Unlock, h.Done(), field(c, owner), 0}, nil
		},
	},
	{
		name: "WriteLock", role: "w", lease: true, channel: func(name, _ string) string { return keys.ReadWriteLockChannel(name) }, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return rwAcquire(ctx, c.ReadWriteLock(name).WriteLock(), c, lease, owner)
		},
	},
	{
		name: "ReadLock", role: "r", lease: true, channel: func(name, _ string) string { return keys.ReadWriteLockChannel(name) }, setup: noSetup, waiter: "WriteLock",
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return rwAcquire(ctx, c.ReadWriteLock(name).ReadLock(), c, lease, owner)
		},
	},
	{
		name: "Semaphore", role: "p", channel: func(name, _ string) string { return keys.SemaphoreChannel(name) },
		setup: func(ctx context.Context, c *redisson.Client, name string, permits int) error {
			_, err := c.Semaphore(name).TrySetPermits(ctx, permits)
			return err
		},
		acquire: func(ctx context.Context, c *redisson.Client, name string, _ time.Duration, _ int64) (hold, error) {
			p, err := c.Semaphore(name).AcquirePermits(ctx, 1)
			if err != nil {
				return nil, err
			}
			return lockHold{p.Release, nil, "", 0}, nil
		},
	},
	{
		name: "PermitExpirableSemaphore", role: "p", lease: true, channel: func(name, _ string) string { return keys.SemaphoreChannel(name) },
		setup: func(ctx context.Context, c *redisson.Client, name string, permits int) error {
			_, err := c.PermitExpirableSemaphore(name).TrySetPermits(ctx, permits)
			return err
		},
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, _ int64) (hold, error) {
			s := c.PermitExpirableSemaphore(name)
			var opts []semaphore.ExpirableAcquireOption
			if lease > 0 {
				opts = append(opts, semaphore.WithLease(lease))
			}
			id, err := s.Acquire(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{func(ctx context.Context) error { return s.Release(ctx, id) }, nil, "", 0}, nil
		},
	},
}

// rlockAcquire acquires a lock kind of package rlock.
func rlockAcquire(ctx context.Context, l interface {
	Lock(context.Context, ...rlock.Option) (*rlock.Hold, error)
}, c *redisson.Client, lease time.Duration, owner int64) (hold, error) {
	opts := []rlock.Option{rlock.WithOwner(owner)}
	if lease > 0 {
		opts = append(opts, rlock.WithLease(lease))
	}
	h, err := l.Lock(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return lockHold{h.Unlock, h.Done(), field(c, owner), 0}, nil
}

// waiting returns the condition "the waiters of clients (one each) of
// kind k wait": subscribed, or, for a kind whose waiters poll, polling
// (Redis ran scripts since waiting was called, two per waiter at least)
// with no subscription.
func waiting(t *testing.T, k kind, raw *redis.Client, clients ...*redisson.Client) func() bool {
	n := int64(len(clients))
	if k.polls {
		before := scriptCalls(t, raw)
		return func() bool { return subscriptions(t, raw) == 0 && scriptCalls(t, raw)-before >= 2*n }
	}
	return func() bool {
		var w int64
		for _, c := range clients {
			w += int64(c.Stats().PubSub.Waiters)
		}
		return w == n && subscriptions(t, raw) == n
	}
}

// scriptCalls reads how many scripts Redis ran (INFO commandstats).
func scriptCalls(t *testing.T, raw *redis.Client) int64 {
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

func rwAcquire(ctx context.Context, l *rwlock.Lock, c *redisson.Client, lease time.Duration, owner int64) (hold, error) {
	opts := []rwlock.Option{rwlock.WithOwner(owner)}
	if lease > 0 {
		opts = append(opts, rwlock.WithLease(lease))
	}
	h, err := l.Lock(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return lockHold{h.Unlock, h.Done(), field(c, owner), 0}, nil
}

// members returns the member locks of the multi-lock rows.
func members(c *redisson.Client, name string) []lockable.Lock {
	return []lockable.Lock{c.Lock(name + ":a"), c.Lock(name + ":b"), c.Lock(name + ":c")}
}

func multiAcquire(ctx context.Context, m *multilock.Lock, c *redisson.Client, lease time.Duration, owner int64) (hold, error) {
	opts := []multilock.Option{multilock.WithOwner(owner)}
	if lease > 0 {
		opts = append(opts, multilock.WithLease(lease))
	}
	h, err := m.Lock(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return lockHold{h.Unlock, h.Done(), field(c, owner), 0}, nil
}

// kindByName returns the row called name.
func kindByName(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}
