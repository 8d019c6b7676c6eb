package integration

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
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
}

type lockHold struct {
	unlock func(context.Context) error
	d      <-chan struct{}
	f      string
}

func (h lockHold) release(ctx context.Context) error { return h.unlock(ctx) }
func (h lockHold) done() <-chan struct{}             { return h.d }
func (h lockHold) field() string                     { return h.f }

func field(c *redisson.Client, owner int64) string { return fmt.Sprintf("%s:%d", c.ID(), owner) }

func noSetup(context.Context, *redisson.Client, string, int) error { return nil }

// kinds is the table of objects. Rate limiter and latch have tests of
// their own (they have no holders).
var kinds = []kind{
	{
		name: "RLock", role: "x", lease: true, channel: func(name, _ string) string { return rlock.ChannelName(name) }, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			opts := []rlock.Option{rlock.WithOwner(owner)}
			if lease > 0 {
				opts = append(opts, rlock.WithLease(lease))
			}
			h, err := c.Lock(name).Lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{h.Unlock, h.Done(), field(c, owner)}, nil
		},
	},
	{
		name: "FairLock", role: "x", lease: true, channel: fairlock.ChannelName, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			opts := []fairlock.Option{fairlock.WithOwner(owner)}
			if lease > 0 {
				opts = append(opts, fairlock.WithLease(lease))
			}
			h, err := c.FairLock(name).Lock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{h.Unlock, h.Done(), field(c, owner)}, nil
		},
	},
	{
		name: "WriteLock", role: "w", lease: true, channel: func(name, _ string) string { return rwlock.ChannelName(name) }, setup: noSetup,
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return rwAcquire(ctx, c.ReadWriteLock(name).WriteLock(), c, lease, owner)
		},
	},
	{
		name: "ReadLock", role: "r", lease: true, channel: func(name, _ string) string { return rwlock.ChannelName(name) }, setup: noSetup, waiter: "WriteLock",
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, owner int64) (hold, error) {
			return rwAcquire(ctx, c.ReadWriteLock(name).ReadLock(), c, lease, owner)
		},
	},
	{
		name: "Semaphore", role: "p", channel: func(name, _ string) string { return semaphore.ChannelName(name) },
		setup: func(ctx context.Context, c *redisson.Client, name string, permits int) error {
			_, err := c.Semaphore(name).TrySetPermits(ctx, permits)
			return err
		},
		acquire: func(ctx context.Context, c *redisson.Client, name string, _ time.Duration, _ int64) (hold, error) {
			p, err := c.Semaphore(name).AcquirePermits(ctx, 1)
			if err != nil {
				return nil, err
			}
			return lockHold{p.Release, nil, ""}, nil
		},
	},
	{
		name: "PermitExpirableSemaphore", role: "p", lease: true, channel: func(name, _ string) string { return semaphore.ChannelName(name) },
		setup: func(ctx context.Context, c *redisson.Client, name string, permits int) error {
			_, err := c.PermitExpirableSemaphore(name).TrySetPermits(ctx, permits)
			return err
		},
		acquire: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration, _ int64) (hold, error) {
			s := c.PermitExpirableSemaphore(name)
			var opts []semaphore.Option
			if lease > 0 {
				opts = append(opts, semaphore.WithLease(lease))
			}
			id, err := s.Acquire(ctx, opts...)
			if err != nil {
				return nil, err
			}
			return lockHold{func(ctx context.Context) error { return s.Release(ctx, id) }, nil, ""}, nil
		},
	},
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
	return lockHold{h.Unlock, h.Done(), field(c, owner)}, nil
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
