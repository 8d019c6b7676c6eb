package redisson_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/multilock"
)

// holdAPI is what every lock kind's hold offers.
type holdAPI interface {
	Unlock(context.Context) error
	Extend(context.Context, time.Duration) error
	Done() <-chan struct{}
	Err() error
	Context() context.Context
	Owner() int64
}

// TestLockNilArguments: every lock kind's calls given a nil context, and
// every method of a nil or zero hold, return an error (ErrInvalidArgument,
// ErrNotOwner for a hold that was never acquired) instead of panicking,
// and a nil context given to Unlock leaves the hold releasable.
func TestLockNilArguments(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithWatchdogTimeout(time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	var nilCtx context.Context
	ctx := context.Background()

	type kind struct {
		name    string
		lock    func(context.Context) (holdAPI, error)
		tryLock func(context.Context) (holdAPI, error)
		calls   map[string]func(context.Context) error
	}
	asHold := func(h holdAPI, err error) (holdAPI, error) { return h, err }
	rl, fl, rw, fe := c.Lock("nil:r"), c.FairLock("nil:f"), c.ReadWriteLock("nil:rw"), c.FencedLock("nil:fe")
	sl, nr, nf := c.SpinLock("nil:s"), c.NonReentrantLock("nil:nr"), c.NonReentrantFairLock("nil:nf")
	ml := multilock.New(c.Lock("nil:m1"), c.Lock("nil:m2"))
	gr := c.MultiLockGroup("nil:g", "a", "b")
	kinds := []kind{
		{"lock", func(ctx context.Context) (holdAPI, error) { return asHold(rl.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := rl.TryLock(ctx); return h, err },
			map[string]func(context.Context) error{
				"ForceUnlock": func(ctx context.Context) error { _, err := rl.ForceUnlock(ctx); return err },
				"IsLocked":    func(ctx context.Context) error { _, err := rl.IsLocked(ctx); return err },
				"HoldCount":   func(ctx context.Context) error { _, err := rl.HoldCount(ctx, 1); return err },
				"RemainTTL":   func(ctx context.Context) error { _, err := rl.RemainTTL(ctx); return err },
			}},
		{"fair lock", func(ctx context.Context) (holdAPI, error) { return asHold(fl.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := fl.TryLock(ctx); return h, err },
			map[string]func(context.Context) error{
				"ForceUnlock": func(ctx context.Context) error { _, err := fl.ForceUnlock(ctx); return err },
				"IsLocked":    func(ctx context.Context) error { _, err := fl.IsLocked(ctx); return err },
			}},
		{"read lock", func(ctx context.Context) (holdAPI, error) { return asHold(rw.ReadLock().Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := rw.ReadLock().TryLock(ctx); return h, err },
			nil},
		{"write lock", func(ctx context.Context) (holdAPI, error) { return asHold(rw.WriteLock().Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := rw.WriteLock().TryLock(ctx); return h, err },
			nil},
		{"fenced lock", func(ctx context.Context) (holdAPI, error) { return asHold(fe.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := fe.TryLock(ctx); return h, err },
			map[string]func(context.Context) error{
				"Token":  func(ctx context.Context) error { _, err := fe.Token(ctx); return err },
				"Delete": func(ctx context.Context) error { _, err := fe.Delete(ctx); return err },
			}},
		{"spin lock", func(ctx context.Context) (holdAPI, error) { return asHold(sl.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := sl.TryLock(ctx); return h, err },
			map[string]func(context.Context) error{
				"ForceUnlock": func(ctx context.Context) error { _, err := sl.ForceUnlock(ctx); return err },
				"IsLocked":    func(ctx context.Context) error { _, err := sl.IsLocked(ctx); return err },
			}},
		{"non-reentrant lock", func(ctx context.Context) (holdAPI, error) { return asHold(nr.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := nr.TryLock(ctx); return h, err },
			map[string]func(context.Context) error{
				"IsHeldByOwner": func(ctx context.Context) error { _, err := nr.IsHeldByOwner(ctx, 1); return err },
			}},
		{"non-reentrant fair lock", func(ctx context.Context) (holdAPI, error) { return asHold(nf.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := nf.TryLock(ctx); return h, err },
			nil},
		{"multi-lock", func(ctx context.Context) (holdAPI, error) { return asHold(ml.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := ml.TryLock(ctx); return h, err },
			nil},
		{"group multi-lock", func(ctx context.Context) (holdAPI, error) { return asHold(gr.Lock(ctx)) },
			func(ctx context.Context) (holdAPI, error) { h, _, err := gr.TryLock(ctx); return h, err },
			nil},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			_, err := k.lock(nilCtx)
			require.ErrorIs(t, err, redisson.ErrInvalidArgument, "Lock(nil)")
			_, err = k.tryLock(nilCtx)
			require.ErrorIs(t, err, redisson.ErrInvalidArgument, "TryLock(nil)")
			for name, call := range k.calls {
				require.ErrorIs(t, call(nilCtx), redisson.ErrInvalidArgument, "%s(nil)", name)
			}
			h, err := k.lock(ctx)
			require.NoError(t, err)
			require.ErrorIs(t, h.Unlock(nilCtx), redisson.ErrInvalidArgument, "Unlock(nil)")
			require.ErrorIs(t, h.Extend(nilCtx, time.Second), redisson.ErrInvalidArgument, "Extend(nil)")
			require.NoError(t, h.Err(), "a refused Unlock(nil) leaves the hold alive")
			require.NoError(t, h.Unlock(ctx), "and releasable")
			if k.calls["IsLocked"] != nil {
				require.NoError(t, k.calls["IsLocked"](ctx))
			}
		})
	}

	var zeroLocks locks.Hold
	var zeroMulti multilock.Hold
	var zeroFenced fencedlock.Hold
	holds := map[string]holdAPI{
		"nil locks.Hold":      (*locks.Hold)(nil),
		"zero locks.Hold":     &zeroLocks,
		"nil fencedlock.Hold": (*fencedlock.Hold)(nil),
		"zero fencedlock":     &zeroFenced,
		"nil multilock.Hold":  (*multilock.Hold)(nil),
		"zero multilock.Hold": &zeroMulti,
	}
	for name, h := range holds {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, h.Unlock(ctx), redisson.ErrNotOwner)
			require.ErrorIs(t, h.Extend(ctx, time.Second), redisson.ErrNotOwner)
			require.ErrorIs(t, h.Err(), redisson.ErrNotOwner)
			require.Zero(t, h.Owner())
			select {
			case <-h.Done():
			default:
				t.Fatal("the Done of a hold never acquired must be closed")
			}
			require.ErrorIs(t, context.Cause(h.Context()), redisson.ErrNotOwner)
			require.ErrorIs(t, h.Unlock(nilCtx), redisson.ErrNotOwner, "a hold never acquired, with a nil context")
		})
	}
}
