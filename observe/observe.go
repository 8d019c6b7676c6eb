// Package observe is the hook through which a client reports what its
// objects do: acquisitions and how long they waited, holds and how they
// ended, releases and hand-offs, retries, watchdog renewal rounds, pub/sub
// subscriptions, semaphore permits, rate-limiter grants and latch
// count-downs. Set an *Observer with redisson.WithObserver; the module
// github.com/goredisson/redisson/extra/redissonotel turns it into
// OpenTelemetry metrics and traces. Join stacks several observers on one
// client (that one and your own).
//
// An Observer is a struct of optional funcs, as net/http/httptrace's
// ClientTrace is: set the ones you need. Without an observer (and with a
// logger not enabled for Debug) the client pays one nil check per event
// and allocates nothing. Events are passed by value and hold no internal
// types.
//
// The funcs are called on the goroutine of the call that caused the event,
// or on the client's background goroutines (renewal, pub/sub, a lost hold),
// concurrently: they must be safe for concurrent use, must not block and
// must not call the client.
package observe

import (
	"context"
	"time"
)

// Observer receives a client's events. Every field is optional.
type Observer struct {
	// AcquireStart is called when an acquisition begins: a lock's Lock or
	// TryLock, a semaphore's Acquire or TryAcquire, a rate limiter's
	// Acquire or TryAcquire, a latch's Await, a multi-lock's Lock or
	// TryLock. The context it returns is the one the acquisition runs
	// under (its Redis commands included) and is handed to the events of
	// the acquisition and to AcquireEnd: a tracer starts a span here.
	// Return ctx itself to change nothing.
	AcquireStart func(ctx context.Context, e AcquireStart) context.Context
	// AcquireTry is called after each try an acquisition sends.
	AcquireTry func(ctx context.Context, e AcquireTry)
	// AcquireEnd is called when the acquisition ends, with the context
	// AcquireStart returned.
	AcquireEnd func(ctx context.Context, e AcquireEnd)
	// HoldEnd is called when a hold of a lock ends: released, its fixed
	// lease expired, lost or ended by Close. ctx keeps the values of the context the hold was
	// acquired with.
	HoldEnd func(ctx context.Context, e HoldEnd)
	// ReleaseStart is called when a lock's Unlock begins; the context it
	// returns is the one the release runs under (its detached context
	// keeps its values), and is handed to ReleaseEnd.
	ReleaseStart func(ctx context.Context, e ReleaseStart) context.Context
	// ReleaseEnd is called when the Unlock ends.
	ReleaseEnd func(ctx context.Context, e ReleaseEnd)
	// Retry is called when a waiting call backs off after a try that
	// failed for a reason that may pass, before it sleeps.
	Retry func(ctx context.Context, e Retry)
	// Subscribe is called when a waiting call has subscribed to its
	// object's channel (or failed to).
	Subscribe func(ctx context.Context, e Subscribe)
	// Subscription is called when Redis confirms a subscription of the
	// client's pub/sub hub: a new one, or one made again after a
	// reconnect.
	Subscription func(e Subscription)
	// Renewal is called after each watchdog renewal round.
	Renewal func(e Renewal)
	// Permits is called when semaphore permits are taken or given back.
	Permits func(ctx context.Context, e Permits)
	// RateLimit is called after each try of a rate limiter's acquisition:
	// granted or refused.
	RateLimit func(ctx context.Context, e RateLimit)
	// CountDown is called after a latch's CountDown.
	CountDown func(ctx context.Context, e CountDown)
	// LocalCache is called when another instance's message (or a lost
	// subscription) changed a local cached map's near cache. It runs on
	// the client's pub/sub reader: it must return at once. Hits and
	// misses cost nothing here; read them from LocalCachedMap.Stats.
	LocalCache func(e LocalCache)
	// Register is called by redisson.New with a function that reads the
	// client's current load (for gauges); the function it returns, if not
	// nil, is called by Close.
	Register func(stats func() Stats) (unregister func())
}

// Kind names an object's kind in events, metrics and logs.
type Kind string

// The kinds of objects.
const (
	KindLock               Kind = "lock"
	KindFairLock           Kind = "fair_lock"
	KindReadLock           Kind = "read_lock"
	KindWriteLock          Kind = "write_lock"
	KindFencedLock         Kind = "fenced_lock"
	KindMultiLock          Kind = "multi_lock"
	KindRedLock            Kind = "red_lock"
	KindGroupMultiLock     Kind = "group_multi_lock"
	KindSemaphore          Kind = "semaphore"
	KindExpirableSemaphore Kind = "permit_expirable_semaphore"
	KindLatch              Kind = "latch"
	KindRateLimiter        Kind = "rate_limiter"
)

// Outcome is how an acquisition ended.
type Outcome string

// The outcomes of an acquisition.
const (
	// Acquired: the caller has what it asked for (a latch's Await: the
	// latch opened).
	Acquired Outcome = "acquired"
	// NotAcquired: a single try found the object taken.
	NotAcquired Outcome = "not_acquired"
	// TimedOut: the wait (WithWait, or ctx's deadline) ran out.
	TimedOut Outcome = "timed_out"
	// Cancelled: ctx was cancelled.
	Cancelled Outcome = "cancelled"
	// Error: anything else, ErrClosed included.
	Error Outcome = "error"
)

// EndCause is why a hold ended.
type EndCause string

// The causes of a hold's end.
const (
	// Released by its Unlock (or by an undo of the library's own).
	Released EndCause = "released"
	// Lost: a watchdog lease could not be renewed in time, the key
	// vanished or went to another owner, it was force-unlocked, or an
	// Unlock failed.
	Lost EndCause = "lost"
	// Expired: a fixed lease (a TryLock with a lease, or a hold Extend
	// fixed) ran out, as the caller asked; not a loss.
	Expired EndCause = "expired"
	// Closed: the client was closed while it was held.
	Closed EndCause = "closed"
)

// RetryReason says why a try failed in a way that may pass.
type RetryReason string

// The reasons of a retry.
const (
	// RetryConnection: no reply (a network failure, a timeout).
	RetryConnection RetryReason = "connection"
	// RetryRejected: Redis turned the command away for a passing state
	// (CLUSTERDOWN, TRYAGAIN, LOADING, MASTERDOWN, READONLY).
	RetryRejected RetryReason = "rejected"
	// RetryNoSyncedReplicas: no replica acknowledged a write, which was
	// undone.
	RetryNoSyncedReplicas RetryReason = "no_synced_replicas"
	// RetryNotConfirmed: a subscription was not confirmed in time.
	RetryNotConfirmed RetryReason = "subscription_not_confirmed"
	// RetryPoolTimeout: no free connection in time.
	RetryPoolTimeout RetryReason = "pool_timeout"
)

// AcquireStart begins an acquisition.
type AcquireStart struct {
	Kind Kind
	Name string
	// Wait says whether the call waits (Lock, a wait option) or tries once.
	Wait bool
	// Permits is how many permits a semaphore's or rate limiter's call asks
	// for; 0 for other objects.
	Permits int64
}

// AcquireTry is one try of an acquisition.
type AcquireTry struct {
	Kind Kind
	Name string
	// Try counts the acquisition's tries, from 1.
	Try int
	// Acquired says whether it succeeded.
	Acquired bool
	// Err is the try's failure, if any.
	Err error
	// Reason classifies Err when it may pass, as Retry's Reason does (a
	// connection refused, a reset or a timeout is RetryConnection), whether
	// or not a retry follows: a wait that ends before it could back off
	// still shows the failure here. Empty when the try got an answer, when
	// Err cannot pass, and when the acquisition's context had ended.
	Reason RetryReason
}

// AcquireEnd ends an acquisition.
type AcquireEnd struct {
	Kind    Kind
	Name    string
	Outcome Outcome
	// Err is the error the call returned (nil unless Outcome is TimedOut,
	// Cancelled or Error; a wait that ran out returns no error).
	Err error
	// Wait is how long the call took.
	Wait time.Duration
	// Tries counts the tries it sent to Redis (0 when a local hand-off
	// came first, or it failed before any).
	Tries int
	// HandOff says the lock was handed over by a release of this client,
	// without a try of its own.
	HandOff bool
	// Permits as in AcquireStart.
	Permits int64
}

// HoldEnd ends one hold of a lock.
type HoldEnd struct {
	Kind  Kind
	Name  string
	Cause EndCause
	// Held is how long the hold lasted, from its acquisition.
	Held time.Duration
	// Err is why an expired, lost or closed hold ended (the hold's Err).
	Err error
}

// ReleaseStart begins an Unlock.
type ReleaseStart struct {
	Kind Kind
	Name string
}

// ReleaseEnd ends an Unlock.
type ReleaseEnd struct {
	Kind Kind
	Name string
	// Err is the error Unlock returned.
	Err error
	// Duration is how long the Unlock took.
	Duration time.Duration
	// Full says the owner's last hold was released (the lock is free, or
	// handed over); false for a re-entrant owner's inner hold.
	Full bool
	// HandOff says the lock went straight to a waiter of this client.
	HandOff bool
}

// Retry is a waiting call's back-off.
type Retry struct {
	// Kind and Name are empty for a background undo.
	Kind   Kind
	Name   string
	Reason RetryReason
	// Attempt counts the failed tries in a row, from 1.
	Attempt int
	// Delay is the back-off before the next try.
	Delay time.Duration
	Err   error
}

// Subscribe is a waiting call's subscription to its object's channel.
type Subscribe struct {
	Kind    Kind
	Name    string
	Channel string
	// Duration is how long subscribing took: until Redis confirmed it, or
	// at once when another waiter of the client had subscribed already.
	Duration time.Duration
	Err      error
}

// Subscription is a Redis subscription confirmed by the client's hub.
type Subscription struct {
	Channel string
	// Resubscribe says it was made again after a reconnect (Confirm then
	// counts from the loss of the connection).
	Resubscribe bool
	// Confirm is how long Redis took to confirm it.
	Confirm time.Duration
}

// LocalCache is a change of a local cached map's near cache that another
// instance caused (package localcache).
type LocalCache struct {
	// Name is the map's name.
	Name string
	// Cause is what changed it.
	Cause LocalCacheCause
	// Entries counts the near cache's entries dropped (or, for
	// LocalCacheUpdate, stored).
	Entries int
}

// LocalCacheCause says why a near cache changed.
type LocalCacheCause string

// The causes of LocalCache events.
const (
	LocalCacheInvalidate LocalCacheCause = "invalidate" // keys another instance wrote or removed
	LocalCacheUpdate     LocalCacheCause = "update"     // entries another instance wrote (SyncUpdate)
	LocalCacheClear      LocalCacheCause = "clear"      // another instance cleared or deleted the map, or its key expired
	LocalCacheGap        LocalCacheCause = "gap"        // the subscription was lost and made again
	LocalCacheGarbled    LocalCacheCause = "garbled"    // a message not understood: everything dropped
	LocalCacheDisable    LocalCacheCause = "disable"    // a Java transaction disabled keys for a while
)

// Renewal is one watchdog renewal round: one pipeline of renewal scripts.
type Renewal struct {
	// Leases is the number of leases the round renewed or tried to.
	Leases int
	// Scripts is the number of script calls (one per slot and batch).
	Scripts int
	// Duration is the round's time, from send to the last answer.
	Duration time.Duration
	// Renewed counts the leases renewed.
	Renewed int
	// Lost counts the leases the round found gone or that ran out.
	Lost int
	// Failed counts the script calls that failed (retried later).
	Failed int
}

// PermitsOp says what happened to permits.
type PermitsOp string

// The permit operations.
const (
	// PermitsTaken: an acquisition took permits.
	PermitsTaken PermitsOp = "taken"
	// PermitsReleased: permits were given back.
	PermitsReleased PermitsOp = "released"
)

// Permits is semaphore permits taken or given back.
type Permits struct {
	Kind  Kind
	Name  string
	Op    PermitsOp
	Count int64
}

// RateLimit is one try of a rate limiter.
type RateLimit struct {
	Name    string
	Permits int64
	// Granted says the permits were granted; otherwise refused (over the
	// rate).
	Granted bool
}

// CountDown is a latch's CountDown.
type CountDown struct {
	Name string
	Err  error
}

// Stats is a client's current load, for gauges.
type Stats struct {
	// Leases on the renewal wheel.
	Leases int
	// PubSubConnections, PubSubChannels and PubSubWaiters are the
	// subscription hub's connections, subscribed channels and waiting
	// goroutines.
	PubSubConnections, PubSubChannels, PubSubWaiters int
}
