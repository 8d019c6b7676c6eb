package core

// TODO(issue 34): remove after the engine moves to Run.
//
// The engine (internal/engine) still calls the Runtime as it was before
// the split; these shims keep its names working until it is converted.
// Nothing else may use them.

import (
	"context"
	"time"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/holds"
	"github.com/goredisson/redisson/internal/retry"
)

type (
	// Hold is holds.Hold (engine compat).
	Hold = holds.Hold
	// Acquire is holds.Acquire (engine compat).
	Acquire = holds.Acquire
	// Extension is holds.Extension (engine compat).
	Extension = holds.Extension
	// Acq is events.Acq (engine compat).
	Acq = events.Acq
	// Retry is retry.Retry (engine compat).
	Retry = retry.Retry
	// StaleConnError is conns.StaleConnError (engine compat).
	StaleConnError = conns.StaleConnError
)

// Extend outcomes (engine compat).
const (
	ExtendApplied    = holds.ExtendApplied
	ExtendNotApplied = holds.ExtendNotApplied
	ExtendUnknown    = holds.ExtendUnknown
)

// Bounded is conns.Bounded (engine compat).
func Bounded[T any](ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	return conns.Bounded(ctx, call)
}

// Eval is Run with RunOpts{} (engine compat).
func (rt *Runtime) Eval(ctx context.Context, s *Script, keys []string, args ...any) (any, error) {
	v, _, err := rt.Run(ctx, s, RunOpts{}, keys, args...)
	return v, err
}

// EvalSynced is Run with RunOpts{Synced: true} (engine compat).
func (rt *Runtime) EvalSynced(ctx context.Context, s *Script, keys []string, args ...any) (any, SyncResult, error) {
	return rt.Run(ctx, s, RunOpts{Synced: true}, keys, args...)
}

// EvalSyncedNoRetry is Run with RunOpts{Synced: true, NoRetry: true}
// (engine compat).
func (rt *Runtime) EvalSyncedNoRetry(ctx context.Context, s *Script, keys []string, args ...any) (any, SyncResult, error) {
	return rt.Run(ctx, s, RunOpts{Synced: true, NoRetry: true}, keys, args...)
}

// Done is Lifetime (engine compat).
func (rt *Runtime) Done() context.Context { return rt.done }

// Stopped is Drained (engine compat).
func (rt *Runtime) Stopped() context.Context { return rt.Drained() }

// Detached is ForRelease (engine compat).
func (rt *Runtime) Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return rt.ForRelease(ctx)
}

// Undoing is ForUndo (engine compat).
func (rt *Runtime) Undoing(ctx context.Context) (context.Context, context.CancelFunc) {
	return rt.ForUndo(ctx)
}

// Begin is Inflight (engine compat).
func (rt *Runtime) Begin() (*Inflight, error) { return rt.Inflight() }

// Within is Conns().Within (engine compat).
func (rt *Runtime) Within(ctx context.Context, d time.Duration) context.Context {
	return rt.conns.Within(ctx, d)
}

// InlineFor is Conns().Inline (engine compat).
func (rt *Runtime) InlineFor(ctx context.Context, key string) (context.Context, *conns.Pin, bool) {
	return rt.conns.Inline(ctx, key)
}

// Retries is Retry().On (engine compat).
func (rt *Runtime) Retries() bool { return rt.retry.On() }

// RetryOf is Retry().Budget (engine compat).
func (rt *Runtime) RetryOf(kind, name string) Retry { return rt.retry.Budget(kind, name) }

// StartAcquire is Events().StartAcquire (engine compat).
func (rt *Runtime) StartAcquire(ctx context.Context, kind, name string, wait bool, permits int64) (context.Context, Acq) {
	return rt.events.StartAcquire(ctx, kind, name, wait, permits)
}

// StartRelease is Events().StartRelease (engine compat).
func (rt *Runtime) StartRelease(ctx context.Context, kind, name string) (context.Context, events.Rel) {
	return rt.events.StartRelease(ctx, kind, name)
}

// Acquired is Holds().Acquired (engine compat).
func (rt *Runtime) Acquired(parent context.Context, h *Hold, a Acquire) {
	rt.holds.Acquired(parent, h, a)
}

// Released is Holds().Released (engine compat).
func (rt *Runtime) Released(h *Hold, full bool, start time.Time) { rt.holds.Released(h, full, start) }

// ReleasedShared is Holds().ReleasedShared (engine compat).
func (rt *Runtime) ReleasedShared(h *Hold, start time.Time) { rt.holds.ReleasedShared(h, start) }

// PassOn is Holds().PassOn (engine compat).
func (rt *Runtime) PassOn(parent context.Context, from, to *Hold, ttl time.Duration) bool {
	return rt.holds.PassOn(parent, from, to, ttl)
}

// Taken is Holds().Taken (engine compat).
func (rt *Runtime) Taken(parent context.Context, h *Hold, object string) {
	rt.holds.Taken(parent, h, object)
}

// Abandon is Holds().Abandon (engine compat).
func (rt *Runtime) Abandon(key, owner string, cause error) { rt.holds.Abandon(key, owner, cause) }

// Lost is Holds().Lost (engine compat).
func (rt *Runtime) Lost(key string, cause error) { rt.holds.Lost(key, cause) }

// LeaseOf is Holds().LeaseOf (engine compat).
func (rt *Runtime) LeaseOf(key, owner string, def time.Duration) time.Duration {
	return rt.holds.LeaseOf(key, owner, def)
}

// HoldDepth is Holds().HoldDepth (engine compat).
func (rt *Runtime) HoldDepth(key, owner string) int { return rt.holds.HoldDepth(key, owner) }

// HeldLocally is Holds().HeldLocally (engine compat).
func (rt *Runtime) HeldLocally(key string) bool { return rt.holds.HeldLocally(key) }

// Holding is Holds().Holding (engine compat).
func (rt *Runtime) Holding(key, owner string) bool { return rt.holds.Holding(key, owner) }

// HeldByOther is Holds().HeldByOther (engine compat).
func (rt *Runtime) HeldByOther(key, owner string) bool { return rt.holds.HeldByOther(key, owner) }

// HoldCount is Holds().HoldCount (engine compat).
func (rt *Runtime) HoldCount() int { return rt.holds.HoldCount() }

// FixLease is Holds().FixLease (engine compat).
func (rt *Runtime) FixLease(h *Hold) (<-chan struct{}, bool) { return rt.holds.FixLease(h) }

// Extending is Holds().Extending (engine compat).
func (rt *Runtime) Extending(h *Hold, start time.Time, ttl time.Duration) (*Extension, bool) {
	return rt.holds.Extending(h, start, ttl)
}

// ExtendSettled is Holds().ExtendSettled (engine compat).
func (rt *Runtime) ExtendSettled(x *Extension, out holds.ExtendOutcome) bool {
	return rt.holds.ExtendSettled(x, out)
}

// ExtendLost is Holds().ExtendLost (engine compat).
func (rt *Runtime) ExtendLost(x *Extension, cause error) { rt.holds.ExtendLost(x, cause) }
