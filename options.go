package redisson

import (
	"fmt"
	"log/slog"
	"time"
)

// PublishMode says how lock scripts publish their wake-up messages and how
// waiters subscribe. It must match the Java peers on a Redis 7+ Cluster.
type PublishMode int

const (
	// PublishAuto is Redisson 3.29+'s AUTO: sharded pub/sub (SPUBLISH and
	// SSUBSCRIBE) on a cluster whose servers support it, PUBLISH and
	// SUBSCRIBE everywhere else. The default.
	PublishAuto PublishMode = iota
	// PublishPlain forces PUBLISH/SUBSCRIBE (Redisson < 3.22, or
	// shardedSubscriptionMode OFF).
	PublishPlain
	// PublishSharded forces SPUBLISH/SSUBSCRIBE (Redis 7+).
	PublishSharded
)

func (m PublishMode) String() string {
	switch m {
	case PublishAuto:
		return "auto"
	case PublishPlain:
		return "publish"
	case PublishSharded:
		return "spublish"
	}
	return fmt.Sprintf("PublishMode(%d)", int(m))
}

// The defaults of Options: a zero field takes its default. Redisson's
// Config has the same values under the names given.
const (
	// DefaultWatchdogTimeout is Options.WatchdogTimeout's default
	// (lockWatchdogTimeout).
	DefaultWatchdogTimeout = 30 * time.Second
	// MinWatchdogTimeout is the shortest WatchdogTimeout New accepts:
	// renewing a shorter lease every third of it would not keep up.
	MinWatchdogTimeout = 30 * time.Millisecond
	// DefaultRenewalBatchSize is Options.RenewalBatchSize's default
	// (lockWatchdogBatchSize).
	DefaultRenewalBatchSize = 100
	// DefaultTimeout is Options.Timeout's default (Redisson's timeout).
	DefaultTimeout = 3 * time.Second
	// DefaultReplicaSyncTimeout is ReplicaSyncOptions.Timeout's default
	// (slavesSyncTimeout).
	DefaultReplicaSyncTimeout = time.Second
	// DefaultLeaseMargin is Options.LeaseMargin's default: Redlock's clock
	// drift constant. Not a Redisson setting.
	DefaultLeaseMargin = 2 * time.Millisecond
	// DefaultFairLockWaitTimeout is Options.FairLockWaitTimeout's default
	// (fairLockWaitTimeout since Redisson 3.13.3; 5 s before).
	DefaultFairLockWaitTimeout = 300 * time.Second
	// MinFairLockWaitTimeout is the shortest FairLockWaitTimeout New
	// accepts: the scripts count it in whole milliseconds.
	MinFairLockWaitTimeout = time.Millisecond
	// DefaultRetryAttempts is RetryOptions.Attempts' default
	// (retryAttempts, Redisson 3.48+).
	DefaultRetryAttempts = 4
	// DefaultRetryDelay is RetryOptions.Delay's default (the base of
	// retryDelay's EqualJitterDelay, Redisson 3.48+).
	DefaultRetryDelay = time.Second
	// DefaultCleanUpMinDelay is CleanUpOptions.MinDelay's default
	// (Redisson's minCleanUpDelay).
	DefaultCleanUpMinDelay = 5 * time.Second
	// DefaultCleanUpMaxDelay is CleanUpOptions.MaxDelay's default
	// (Redisson's maxCleanUpDelay).
	DefaultCleanUpMaxDelay = 30 * time.Minute
	// DefaultCleanUpKeysAmount is CleanUpOptions.KeysAmount's default
	// (Redisson's cleanUpKeysAmount).
	DefaultCleanUpKeysAmount = 100
)

// Options are a Client's settings. The zero value of a field means its
// default, the Default constant of the same name, which is Redisson's.
type Options struct {
	// WatchdogTimeout is the lease of locks taken without one; the watchdog
	// renews it every WatchdogTimeout/3. Default DefaultWatchdogTimeout;
	// at least MinWatchdogTimeout.
	WatchdogTimeout time.Duration
	// RenewalBatchSize is the most leases one renewal script carries.
	// Default DefaultRenewalBatchSize.
	RenewalBatchSize int
	// Timeout bounds one Redis exchange that must finish even when the
	// caller's context is done (unlocks) and one renewal round. Default
	// DefaultTimeout.
	Timeout time.Duration
	// PublishMode chooses PUBLISH or SPUBLISH. Default PublishAuto.
	PublishMode PublishMode
	// ReplicaSync sends WAIT after lock writes when the key's master has
	// replicas, like Redisson's synced scripts. Default on.
	ReplicaSync ReplicaSyncOptions
	// LeaseMargin is how long before a lease's end (besides 1% of the lease
	// for clock drift, and the renewal wheel's 10 ms tick) a holder whose
	// lease could not be renewed is told it lost the lock: its hold's Done
	// is closed then, by this process's clock, so that it stops before
	// Redis can give the lock to someone else. Default DefaultLeaseMargin;
	// with DefaultWatchdogTimeout the signal comes 312 ms before the lease
	// ends. Not a Redisson setting.
	LeaseMargin time.Duration
	// Logger receives renewal and pub/sub problems at Warn and Error. A
	// logger enabled for Debug also gets a record per acquisition, hold
	// end, release (and hand-off), with the attribute names of the
	// metrics (docs/observability.md). Default: discard.
	Logger *slog.Logger
	// Observer, when set, receives the client's events: acquisitions and
	// their waits, holds and how they ended, releases, hand-offs, retries,
	// renewal rounds, subscriptions, semaphore permits, rate-limiter
	// grants, latch count-downs (package observe; extra/redissonotel turns
	// them into OpenTelemetry). Default: none, which costs nothing. Not a
	// Redisson setting. observe.Join stacks several.
	Observer *Observer
	// FairLockWaitTimeout is how long a fair lock's waiter in Lock stays
	// in the Redis queue past the waiter ahead of it before the others skip
	// it as stale (a TryLock WithWait uses its wait instead, as Redisson's
	// tryLock(waitTime) does, and so does a Lock whose ctx has less time
	// left). Default DefaultFairLockWaitTimeout; at least
	// MinFairLockWaitTimeout. Every client on a lock, Go or Java, must use the same
	// value: each acquirer moves every queued waiter's deadline by its own
	// value, so mixed values corrupt the queue's deadlines.
	FairLockWaitTimeout time.Duration
	// Retry says how a waiting call (Lock, a TryLock or TryAcquire
	// WithWait, a semaphore's or rate limiter's Acquire, a latch's Await)
	// rides out a try that failed for a reason that may pass: a failover,
	// a restart, a network fault. Default: DefaultRetryAttempts tries in a
	// row, DefaultRetryDelay apart (jittered). Not a Redisson setting:
	// Redisson sends acquire scripts
	// without retry, so its waits end with the first such failure.
	Retry RetryOptions
	// Registration publishes who this client is (host, pid, program,
	// start time, versions) and what it holds since when, as JSON under
	// the key redisson-go:client:<ID> that Java peers never read, so that
	// `redisson inspect`, `ls` and the dashboard can name a holder. It is
	// written in the background at start, after holds change (at most 4
	// times a second) and every WatchdogTimeout/3 (at least 1 s apart); it
	// expires four periods after the last write, and Close deletes it. A
	// lock call sends nothing for it. Default on. Not a Redisson setting.
	Registration RegistrationOptions
	// CleanUp paces the clean-up of expired entries that the client runs
	// for every map cache and set cache it has handed out, as each
	// Redisson client does (a run-once latch in Redis lets one client of
	// many do each run). Default: Redisson's pacing.
	CleanUp CleanUpOptions
}

// CleanUpOptions pace the clean-up of expired map-cache and set-cache
// entries (Redisson's minCleanUpDelay, maxCleanUpDelay and
// cleanUpKeysAmount). The delay starts at MinDelay and adapts between
// MinDelay and MaxDelay to how much each run found, in whole seconds as
// Redisson counts them.
type CleanUpOptions struct {
	// MinDelay is the first and shortest delay, at least a second.
	// Default DefaultCleanUpMinDelay.
	MinDelay time.Duration
	// MaxDelay is the longest delay. Default DefaultCleanUpMaxDelay.
	MaxDelay time.Duration
	// KeysAmount is how many expired entries one run removes at most.
	// Default DefaultCleanUpKeysAmount.
	KeysAmount int
}

func (c *CleanUpOptions) applyDefaults() error {
	switch {
	case c.MinDelay < 0, c.MinDelay > 0 && c.MinDelay < time.Second:
		return fmt.Errorf("%w: CleanUp.MinDelay %v (whole seconds, at least 1 s)", ErrInvalidArgument, c.MinDelay)
	case c.MinDelay == 0:
		c.MinDelay = DefaultCleanUpMinDelay
	}
	switch {
	case c.MaxDelay < 0:
		return fmt.Errorf("%w: CleanUp.MaxDelay %v", ErrInvalidArgument, c.MaxDelay)
	case c.MaxDelay == 0:
		c.MaxDelay = max(DefaultCleanUpMaxDelay, c.MinDelay)
	case c.MaxDelay < c.MinDelay:
		return fmt.Errorf("%w: CleanUp.MaxDelay %v is below MinDelay %v", ErrInvalidArgument, c.MaxDelay, c.MinDelay)
	}
	switch {
	case c.KeysAmount < 0:
		return fmt.Errorf("%w: CleanUp.KeysAmount %d", ErrInvalidArgument, c.KeysAmount)
	case c.KeysAmount == 0:
		c.KeysAmount = DefaultCleanUpKeysAmount
	}
	return nil
}

// RetryOptions configure how waiting calls ride out failures that may
// pass. A try fails that way when its connection fails or times out, when
// Redis turns it away for a passing state (CLUSTERDOWN, TRYAGAIN, LOADING,
// MASTERDOWN, READONLY), or when no replica acknowledged it
// (ErrNoSyncedReplicas; the write was undone). The wait then backs off and
// tries again; after Attempts such tries in a row it ends with the last
// failure. A try whose reply was lost may have run: a lock's is undone (or
// found to be ours) before the next try, a semaphore's or rate limiter's
// permits are missing (fewer admitted, never more). Calls that do not wait
// (TryLock without WithWait, Unlock, CountDown) do not ride out an outage;
// an Unlock resends a lost or refused release a few times at once (the
// unlock latch makes that safe).
type RetryOptions struct {
	// Disabled turns retrying off: a wait ends with its first failed try.
	Disabled bool
	// Attempts is how many failed tries in a row are tried again. Default
	// DefaultRetryAttempts.
	Attempts int
	// Delay is the back-off's base: before the n-th retry (from 0) a wait
	// sleeps between half and all of min(Delay·2ⁿ, 2·Delay), Redisson
	// 3.48+'s EqualJitterDelay. Default DefaultRetryDelay. A wake-up (a release
	// message, or a resubscription after a reconnect) ends a back-off at
	// once: Redis answers again.
	Delay time.Duration
}

// ReplicaSyncOptions configure WAIT after lock writes (docs/protocol.md §3).
type ReplicaSyncOptions struct {
	// Disabled turns WAIT off.
	Disabled bool
	// Timeout is WAIT's timeout. Default DefaultReplicaSyncTimeout.
	Timeout time.Duration
	// AllowUnsynced accepts a write that no replica acknowledged instead of
	// failing with ErrNoSyncedReplicas (checkLockSyncedSlaves = false).
	AllowUnsynced bool
}

// Option changes Options.
type Option func(*Options)

// WithWatchdogTimeout sets Options.WatchdogTimeout.
func WithWatchdogTimeout(d time.Duration) Option {
	return func(o *Options) { o.WatchdogTimeout = d }
}

// WithRenewalBatchSize sets Options.RenewalBatchSize.
func WithRenewalBatchSize(n int) Option {
	return func(o *Options) { o.RenewalBatchSize = n }
}

// WithTimeout sets Options.Timeout.
func WithTimeout(d time.Duration) Option {
	return func(o *Options) { o.Timeout = d }
}

// WithPublishMode sets Options.PublishMode.
func WithPublishMode(m PublishMode) Option {
	return func(o *Options) { o.PublishMode = m }
}

// WithReplicaSync sets Options.ReplicaSync.
func WithReplicaSync(rs ReplicaSyncOptions) Option {
	return func(o *Options) { o.ReplicaSync = rs }
}

// WithLeaseMargin sets Options.LeaseMargin.
func WithLeaseMargin(d time.Duration) Option {
	return func(o *Options) { o.LeaseMargin = d }
}

// WithLogger sets Options.Logger.
func WithLogger(l *slog.Logger) Option {
	return func(o *Options) { o.Logger = l }
}

// WithFairLockWaitTimeout sets Options.FairLockWaitTimeout.
func WithFairLockWaitTimeout(d time.Duration) Option {
	return func(o *Options) { o.FairLockWaitTimeout = d }
}

// WithRetry sets Options.Retry.
func WithRetry(r RetryOptions) Option {
	return func(o *Options) { o.Retry = r }
}

// WithRegistration sets Options.Registration: WithRegistration(
// RegistrationOptions{Disabled: true}) keeps the client's record out of
// Redis.
func WithRegistration(r RegistrationOptions) Option {
	return func(o *Options) { o.Registration = r }
}

// WithCleanUp sets Options.CleanUp.
func WithCleanUp(c CleanUpOptions) Option {
	return func(o *Options) { o.CleanUp = c }
}

// WithOptions replaces all options at once.
func WithOptions(opts Options) Option {
	return func(o *Options) { *o = opts }
}

func (o *Options) applyDefaults() error {
	switch {
	case o.WatchdogTimeout < 0:
		return fmt.Errorf("%w: WatchdogTimeout %v", ErrInvalidArgument, o.WatchdogTimeout)
	case o.WatchdogTimeout == 0:
		o.WatchdogTimeout = DefaultWatchdogTimeout
	case o.WatchdogTimeout < MinWatchdogTimeout:
		return fmt.Errorf("%w: WatchdogTimeout %v is below %v", ErrInvalidArgument, o.WatchdogTimeout, MinWatchdogTimeout)
	}
	switch {
	case o.RenewalBatchSize < 0:
		return fmt.Errorf("%w: RenewalBatchSize %d", ErrInvalidArgument, o.RenewalBatchSize)
	case o.RenewalBatchSize == 0:
		o.RenewalBatchSize = DefaultRenewalBatchSize
	}
	switch {
	case o.Timeout < 0:
		return fmt.Errorf("%w: Timeout %v", ErrInvalidArgument, o.Timeout)
	case o.Timeout == 0:
		o.Timeout = DefaultTimeout
	}
	if o.PublishMode < PublishAuto || o.PublishMode > PublishSharded {
		return fmt.Errorf("%w: PublishMode %d", ErrInvalidArgument, int(o.PublishMode))
	}
	switch {
	case o.ReplicaSync.Timeout < 0:
		return fmt.Errorf("%w: ReplicaSync.Timeout %v", ErrInvalidArgument, o.ReplicaSync.Timeout)
	case o.ReplicaSync.Timeout == 0:
		o.ReplicaSync.Timeout = DefaultReplicaSyncTimeout
	}
	switch {
	case o.LeaseMargin < 0:
		return fmt.Errorf("%w: LeaseMargin %v", ErrInvalidArgument, o.LeaseMargin)
	case o.LeaseMargin == 0:
		o.LeaseMargin = DefaultLeaseMargin
	}
	switch {
	case o.FairLockWaitTimeout < 0:
		return fmt.Errorf("%w: FairLockWaitTimeout %v", ErrInvalidArgument, o.FairLockWaitTimeout)
	case o.FairLockWaitTimeout == 0:
		o.FairLockWaitTimeout = DefaultFairLockWaitTimeout
	case o.FairLockWaitTimeout < MinFairLockWaitTimeout:
		return fmt.Errorf("%w: FairLockWaitTimeout %v is below %v", ErrInvalidArgument, o.FairLockWaitTimeout, MinFairLockWaitTimeout)
	}
	switch {
	case o.Retry.Attempts < 0:
		return fmt.Errorf("%w: Retry.Attempts %d", ErrInvalidArgument, o.Retry.Attempts)
	case o.Retry.Attempts == 0:
		o.Retry.Attempts = DefaultRetryAttempts
	}
	switch {
	case o.Retry.Delay < 0:
		return fmt.Errorf("%w: Retry.Delay %v", ErrInvalidArgument, o.Retry.Delay)
	case o.Retry.Delay == 0:
		o.Retry.Delay = DefaultRetryDelay
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o.CleanUp.applyDefaults()
}
