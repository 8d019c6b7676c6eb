// Package engine is the lock engine every lock-like object of a client runs
// on: the wait loop (try, subscribe, try again, sleep until a release
// message, the holder's TTL or the caller's context), the release with its
// unlock latch and retries, recovery after a lost reply, registration of
// holds with the renewal wheel, and the local wait queue with direct
// hand-off. An object is its scripts (Scripts) and a thin public type; what
// else varies per object is named in Config.
package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/holds"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/localq"
	"github.com/goredisson/redisson/internal/renewal"
)

// Engine is one client's lock engine: its runtime and the local wait queues
// of every lock the client waits for.
type Engine struct {
	rt     *core.Runtime
	queues registry[*localq.Queue[*Hold]]

	undoMu sync.Mutex
	undos  map[undoKey]chan struct{} // background undos pending, closed when done

	claimMu sync.Mutex
	claims  map[undoKey]struct{} // owner fields acquiring a non-reentrant kind (claim)

	standBackFor time.Duration // localq.StandBackFor; a constant but in tests
	// beforePass, in tests, runs while a release passes its hold on, after
	// it picked the waiter (Lock.passOn).
	beforePass func()
}

// undoKey names an owner field of one object.
type undoKey struct{ object, field string }

// New returns the engine of rt.
func New(rt *core.Runtime) *Engine { return &Engine{rt: rt, standBackFor: localq.StandBackFor} }

// Runtime returns the engine's runtime.
func (e *Engine) Runtime() *core.Runtime { return e.rt }

// Scripts is what one object runs in Redis. Each method sends its script
// once per call; retries and recovery are the engine's.
type Scripts interface {
	// Acquire runs the acquire script for owner field with lease. It must
	// be sent at most once (core.Runtime.EvalSyncedNoRetry): a second run
	// would count a second hold.
	Acquire(ctx context.Context, field string, lease time.Duration) (AcquireReply, error)
	// Release runs the release script for field, whose hold was taken with
	// lease, as request reqID: a repeat with the same reqID must give the
	// first answer (the unlock latch). With next set, a final release hands
	// the lock straight to next instead of freeing it. Its reply's Heard
	// stays 0.
	Release(ctx context.Context, field string, lease time.Duration, reqID string, next *Successor) (ReleaseReply, error)
	// Count reads field's hold count on the master: 0 when it holds nothing.
	Count(ctx context.Context, field string) (int, error)
}

// QueueScripts is implemented by the Scripts of an object whose waiters
// line up in Redis (the fair lock's queue list and timeout zset). A waiting
// acquisition (Lock, TryLock with a wait) sends AcquireQueued for every
// attempt, the first one included, instead of Acquire, which stays the
// try-once variant; when such an acquisition gives up without the lock
// (ctx done, wait elapsed, client closed, an error) the engine sends
// AcquireFailed, so that it leaves no queue or timeout entry behind.
type QueueScripts interface {
	// AcquireQueued runs the waiting variant of the acquire script: take
	// (or re-enter) the lock, or else queue field once and report how long
	// to sleep (negative: until a message only). wait is the caller's bound
	// on the wait, 0 for an unbounded one; the object turns it into the
	// queue's stale interval. Like Acquire it must be sent at most once.
	AcquireQueued(ctx context.Context, field string, lease, wait time.Duration) (AcquireReply, error)
	// AcquireFailed takes field out of the queue, wait being the bound
	// given to AcquireQueued. It must be safe to send more than once and
	// for a field that is not queued.
	AcquireFailed(ctx context.Context, field string, wait time.Duration) error
}

// ValueScripts is implemented by the Scripts of an object whose acquire
// script gives every acquisition a value of its own (the fenced lock's
// token: AcquireReply.Value), which the engine puts on the hold
// (Hold.Value). Such an object's hand-off release (see Successor.Value)
// gives the new holder its value too. It is not combined with QueueScripts.
type ValueScripts interface {
	// CountValue reads, in one step on the master, field's hold count and
	// the value of the lock's latest acquisition. The engine asks it when
	// the reply of an acquire or hand-off for field was lost and the count
	// shows that it ran: while field holds the lock nobody else can
	// acquire it, so the latest value is that acquisition's.
	CountValue(ctx context.Context, field string) (count int, value int64, err error)
}

// HeardScripts is implemented by the Scripts of a hand-off object whose
// freeing release can tell how many connections its unlock message reached
// (PUBLISH's reply). When a hand-off streak ends, the engine asks it: a
// message heard by a connection other than this client's own means waiters
// elsewhere, and this client's goroutines then stand back for them (see
// yield).
type HeardScripts interface {
	// ReleaseHeard is Release without a successor whose reply also says
	// how many connections the message of a freeing release reached
	// (ReleaseReply.Heard).
	ReleaseHeard(ctx context.Context, field string, lease time.Duration, reqID string) (ReleaseReply, error)
}

// AcquireReply is an acquire script's answer.
type AcquireReply struct {
	// OK: the field holds the lock now.
	OK bool
	// TTL is, when not OK, the holder's remaining TTL (negative: no TTL),
	// how long a waiter may sleep before it tries again.
	TTL time.Duration
	// Value is, when OK, the acquisition's value, a positive number, for an
	// object with ValueScripts; 0 for others.
	Value int64
	// Sync is the replica acknowledgement of the script's write.
	Sync core.SyncResult
}

// ReleaseReply is a release script's answer.
type ReleaseReply struct {
	Released Released
	// Heard is, for ReleaseHeard, how many connections the message of a
	// freeing release reached (0 when nothing was published or it is not
	// known: a replayed latch).
	Heard int
	// Sync is the replica acknowledgement of the script's write.
	Sync core.SyncResult
}

// Successor is a local waiter a release hands the lock to.
type Successor struct {
	Field string
	Lease time.Duration
	// Value is set by Release, for an object with ValueScripts, to the
	// value the hand-off gave the successor; it stays 0 when the reply
	// does not carry it (an unlock latch replayed an earlier attempt), and
	// the engine then reads it with CountValue.
	Value int64
}

// Released is a release script's answer.
type Released int

const (
	// NotOwner: the field held nothing; nothing changed.
	NotOwner Released = iota
	// StillHeld: one hold of a re-entrant owner was released.
	StillHeld
	// Freed: the last hold was released (and, with a successor, handed over).
	Freed
	// Shared: one hold was released and the lock stays held, by other
	// owners or by more holds of this owner; the reply does not say which
	// (the read lock's, with other readers). The owner's local holds
	// decide: when this was its last one, its holds end as released, not
	// as a surplus Redis counts.
	Shared
)

// Config names what varies between lock-like objects.
type Config struct {
	// Kind names the object in errors, e.g. "lock".
	Kind string
	// Name is the object's name; it is also its key in the hold registry.
	Name string
	// Channel is where releases are published and waiters subscribe.
	Channel string
	// Derived are the other keys the scripts pass with Name (queue, token,
	// unlock latch, ...): with Channel and ChannelFor's channels they must
	// hash like Name, or the name is refused (core.CheckName).
	Derived []string
	// RedisQueue: waiting acquisitions line up in a queue in Redis (the
	// fair lock's QueueScripts), where each counts a stale interval and
	// must leave when it gives up (Lock.queueFor, Lock.queuedTryCtx).
	RedisQueue bool
	// FieldSuffix is appended to every owner field: the write lock's
	// ":write", which keeps its holds apart from the same owner's read holds
	// on the same hash.
	FieldSuffix string
	// ChannelFor, when set, gives each owner field its own channel, which
	// its waiter subscribes to instead of Channel: a release wakes only the
	// waiter it names (the fair lock's queue head).
	ChannelFor func(field string) string
	// Policy is how many local waiters one message wakes.
	Policy hub.WakePolicy
	// Renew renews watchdog leases.
	Renew renewal.Kind
	// HandOff lets a release hand the lock straight to a local waiter
	// (RLock, write lock). Without it waiters of one client compete in
	// Redis like everyone else (fair lock: never jump the Redis queue).
	HandOff bool
	// PassOn lets a release whose owner id never left the engine pass the
	// hold to a local waiter without a round trip (see Lock.passOn):
	// objects whose owner field is the whole identity of a hold and whose
	// holds carry no value (RLock). Needs HandOff.
	PassOn bool
	// Overlaps, when set, reports whether Redis counts holds of field
	// together with holds of other owner identities this client has (the
	// group multi-lock: one owner's holds on overlapping value sets share
	// the values' counts). While it does, an acquire whose outcome is
	// unknown (a lost reply, a stale connection) is neither undone nor
	// resolved by reading counts: either could release, or count as ours, a
	// hold of the other identity. The acquire fails with its error instead;
	// a hold the lost script took lives until its lease ends (availability,
	// not safety). Nil means field's counts are its own.
	Overlaps func(field string) bool
	// Poll, when set, makes a waiting acquisition poll instead of
	// subscribing to Channel (the spin lock, for deployments where pub/sub
	// is not allowed): each one calls Poll once for its pacing and, after
	// every try that finds the lock held, sleeps for what the returned
	// function gives before the next. Such an object has no Channel,
	// ChannelFor or HandOff.
	Poll func() func() time.Duration
	// NonReentrant: the owner that holds the lock cannot take it again
	// (Redisson's non-reentrant kinds, whose scripts refuse it too). An
	// acquisition WithOwner of an owner that holds the lock through this
	// client, or is acquiring it, fails with ErrNonReentrant before
	// anything is sent, and a lost try's recovery never takes a hold this
	// client has for that try's (see claim).
	NonReentrant bool
	Scripts      Scripts
}

// Lock is one named lock-like object on the engine. It is cheap and safe
// for concurrent use: holds, not handles, own the lock.
type Lock struct {
	e        *Engine
	rt       *core.Runtime
	cfg      Config
	err      error
	queueKey string
	onEnd    func(cause error)
	values   ValueScripts // cfg.Scripts, when its acquisitions carry values
}

// Lock returns the object described by cfg. An empty name, or one whose
// derived keys and channels would not share its cluster slot, gives a lock
// whose every call fails with ErrInvalidName.
func (e *Engine) Lock(cfg Config) *Lock {
	l := &Lock{e: e, rt: e.rt, cfg: cfg, queueKey: cfg.Kind + ":" + cfg.Name}
	l.err = core.CheckName(cfg.Name, l.derived()...)
	l.onEnd = l.holdEnded
	l.values, _ = cfg.Scripts.(ValueScripts)
	return l
}

// derived returns the keys and channels cfg derives from the name.
func (l *Lock) derived() []string {
	var d []string
	if l.cfg.Channel != "" {
		d = append(d, l.cfg.Channel)
	}
	if l.cfg.ChannelFor != nil {
		d = append(d, l.cfg.ChannelFor(core.OwnerField(l.rt.ID(), 0)+l.cfg.FieldSuffix))
	}
	return append(d, l.cfg.Derived...)
}

// Name returns the object's name.
func (l *Lock) Name() string { return l.cfg.Name }

// Check returns the lock's own error (an empty name), ErrClosed, or ctx's.
func (l *Lock) Check(ctx context.Context) error {
	if l.err != nil {
		return l.err
	}
	return l.rt.Check(ctx)
}

// Err wraps err with the object's kind, name and the operation the caller
// made.
func (l *Lock) Err(op string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Kind: l.cfg.Kind, Name: l.cfg.Name, Op: op, Err: err}
}

// OpError names the object and the call that failed (core.ObjectError).
type OpError = core.ObjectError

// Field returns the owner field of owner in this client.
func (l *Lock) Field(owner int64) string {
	return core.OwnerField(l.rt.ID(), owner) + l.cfg.FieldSuffix
}

// Hold is one acquisition: the value its caller keeps to release it and to
// learn that ownership ended.
type Hold struct {
	holds.Hold
	l     *Lock
	owner int64
	value int64
	// id says who may know owner (idPrivate, idKnown, idGone). A hold
	// is passed on only while nobody outside the engine can (see
	// Lock.passOn): code that knows the id could re-enter (WithOwner) the
	// hold it went to.
	id atomic.Int32
	// unsure is set, by the acquiring goroutine only, when a try of the
	// acquisition got no reply: it may still run in Redis (lookLate).
	unsure bool
}

const (
	idPrivate int32 = iota // only the engine knows the id
	idKnown                // the caller chose it (WithOwner) or read it (Owner)
	idGone                 // passed on: the id is another hold's now
)

// Owner returns the hold's owner id; 0 once Unlock passed the hold on to
// another goroutine of this client, whose hold has the id now. A hold
// passed on from another goroutine keeps that hold's owner id.
func (h *Hold) Owner() int64 {
	for {
		switch h.id.Load() {
		case idGone:
			return 0
		case idKnown:
			return h.owner
		}
		if h.id.CompareAndSwap(idPrivate, idKnown) {
			return h.owner
		}
	}
}

// claimID takes h's owner id for a pass: from now Owner answers 0. It
// reports false when code outside the engine may know the id.
func (h *Hold) claimID() bool { return h.id.CompareAndSwap(idPrivate, idGone) }

// releaseID undoes claimID when the pass did not happen.
func (h *Hold) releaseID() { h.id.Store(idPrivate) }

// Value returns the value the acquisition got from an object with
// ValueScripts (the fenced lock's token); 0 for other objects.
func (h *Hold) Value() int64 { return h.value }

// Lock returns the object the hold is of.
func (h *Hold) Lock() *Lock { return h.l }

// Request is one acquisition's parameters.
type Request struct {
	// Owner is the owner id (a Java thread's id); 0 picks a fresh owner.
	Owner int64
	// Lease is a fixed lease; 0 means the watchdog's.
	Lease time.Duration
	// Wait says whether to wait at all; WaitFor, when positive, bounds the
	// wait (otherwise only ctx does).
	Wait    bool
	WaitFor time.Duration
	// NoRetry ends a wait with its first try that fails for a reason that
	// may pass (retry.Retry) instead of backing off and trying again.
	NoRetry bool
	// queueFor, when positive, is the stale interval a Lock call counts in
	// a Redis queue (Lock.queueFor); a TryLock's is its WaitFor.
	queueFor time.Duration
	// base is the caller's context when an observed acquisition runs
	// under the observer's: the hold keeps the caller's values.
	base context.Context
}

// queueWait is the wait the queue scripts count for r: zero means the
// object's default (the fair lock's FairLockWaitTimeout).
func (r Request) queueWait() time.Duration {
	if r.WaitFor > 0 {
		return r.WaitFor
	}
	return r.queueFor
}

// Op returns the name of the call r stands for, for errors.
func (r Request) Op() string {
	if r.Wait && r.WaitFor == 0 {
		return "lock"
	}
	return "try lock"
}

// isTransport reports whether err left the outcome of a command unknown: a
// network failure or a timeout, not a reply from Redis (core.Transport).
func isTransport(err error) bool { return core.Transport(err) }
