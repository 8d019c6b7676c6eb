package core

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/eviction"
	"github.com/goredisson/redisson/internal/holds"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/inflight"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/internal/replicas"
	"github.com/goredisson/redisson/internal/replies"
	"github.com/goredisson/redisson/internal/retry"
	"github.com/goredisson/redisson/observe"
)

// Config is what a Runtime is made of; New copies it.
type Config struct {
	Redis           redis.UniversalClient
	ID              string
	WatchdogTimeout time.Duration
	Timeout         time.Duration
	// Sharded publishes with SPUBLISH and subscribes with SSUBSCRIBE.
	Sharded bool
	// Cluster is true when Redis is a cluster: renewals are grouped by slot.
	Cluster bool
	Sync    ReplicaSync
	// BatchSize caps the leases of one renewal script.
	BatchSize int
	// LeaseMargin is subtracted, with 1% of the lease, from a lease's end
	// to decide when its holder is told it lost the lock.
	LeaseMargin time.Duration
	Logger      *slog.Logger
	// FairLockWaitTimeout is fairLockWaitTimeout: how far a fair-lock
	// waiter's stale deadline lies past the one ahead of it. Zero means
	// Redisson's 300 s.
	FairLockWaitTimeout time.Duration
	// Retry is how waiting calls ride out failures that may pass. Its zero
	// value retries nothing.
	Retry retry.Config
	// Observer, when set, receives the client's events (package observe).
	Observer *observe.Observer
	// CleanUp paces the clean-up of expiring entries (map and set caches);
	// its Timeout, Lifetime and Logger are the runtime's.
	CleanUp eviction.Config
}

// Runtime is what every object of one Client shares: the Redis client, the
// client id, the pub/sub hub, the renewal wheel, and the parts one job each
// (connections, holds, events, retrying) objects need. Its settings are
// fixed at New.
type Runtime struct {
	redis           redis.UniversalClient
	id              string
	hub             *hub.Hub
	wheel           *renewal.Wheel
	watchdogTimeout time.Duration
	timeout         time.Duration
	publish         string
	sync            *ReplicaSync
	logger          *slog.Logger
	cluster         bool
	fairWait        time.Duration

	conns    *conns.Pool
	holds    *holds.Registry
	permits  PermitLedger
	events   *events.Sink
	retry    *retry.Policy
	evalMode EvalMode
	requests requestIDs
	inflight *inflight.Tracker
	eviction *eviction.Scheduler
	done     context.Context
	cancel   context.CancelCauseFunc
	adders   AdderGroups
}

// New starts a runtime: its hub and wheel run until Close.
func New(cfg Config) *Runtime {
	rt := &Runtime{
		redis:           cfg.Redis,
		id:              cfg.ID,
		watchdogTimeout: cfg.WatchdogTimeout,
		timeout:         cfg.Timeout,
		publish:         "PUBLISH",
		logger:          cfg.Logger,
		cluster:         cfg.Cluster,
		fairWait:        cfg.FairLockWaitTimeout,
	}
	epoch := time.Now()
	if cfg.Sharded {
		rt.publish = "SPUBLISH"
	}
	if rt.logger == nil {
		rt.logger = slog.New(slog.DiscardHandler)
	}
	if rt.timeout <= 0 {
		rt.timeout = 3 * time.Second
	}
	if rt.fairWait <= 0 {
		rt.fairWait = 300 * time.Second
	}
	if rt.watchdogTimeout <= 0 {
		rt.watchdogTimeout = 30 * time.Second
	}
	rt.sync = &ReplicaSync{Enabled: cfg.Sync.Enabled, Timeout: cfg.Sync.Timeout, FailOnNoSync: cfg.Sync.FailOnNoSync, c: replicas.New(rt.logger)}
	rt.done, rt.cancel = context.WithCancelCause(context.Background())
	cc := conns.Config{Redis: cfg.Redis, Cluster: cfg.Cluster, Timeout: rt.timeout, Lifetime: rt.done, Epoch: epoch}
	if rt.sync.Enabled {
		cc.Replicas = rt.sync.c
	}
	rt.conns = conns.New(cc)
	rt.events = events.New(cfg.Observer, rt.logger, epoch, events.Classify{Retryable: Retryable, Reason: retryReason})
	rt.requests.init()
	rt.inflight = inflight.New(inflight.Config{
		Conns: rt.conns, Timeout: rt.timeout, Synced: rt.sync.Enabled, SyncTimeout: rt.sync.Timeout,
		Lifetime: rt.done, Closed: ErrClosed, Refused: replies.Refused,
	})
	if cfg.Redis != nil {
		pc := hub.Config{Client: cfg.Redis, Sharded: cfg.Sharded, Logger: rt.logger}
		if o := cfg.Observer; o != nil && o.Subscription != nil {
			pc.OnConfirm = func(channel string, resub bool, d time.Duration) {
				o.Subscription(observe.Subscription{Channel: channel, Resubscribe: resub, Confirm: d})
			}
		}
		rt.hub = hub.New(pc)
	}
	var slot func(string) int
	if cfg.Cluster {
		slot = Slot
	}
	rt.wheel = renewal.New(renewal.Config{
		Client:    cfg.Redis,
		BatchSize: cfg.BatchSize,
		Timeout:   rt.timeout,
		Margin:    cfg.LeaseMargin,
		Slot:      slot,
		Logger:    rt.logger,
		OnRound:   onRound(cfg.Observer),
	})
	rt.holds = holds.New(rt.wheel, rt.events, holds.Causes{
		Closed: ErrClosed, LockLost: ErrLockLost, LeaseExpired: ErrLeaseExpired,
		Object: func(kind, name string, err error) error { return &ObjectError{Kind: kind, Name: name, Err: err} },
	})
	ec := cfg.CleanUp
	ec.Timeout, ec.Lifetime, ec.Logger = rt.timeout, rt.done, rt.logger
	rt.eviction = eviction.New(ec)
	rt.retry = retry.New(cfg.Retry, retry.Deps{
		Redis: cfg.Redis, Hub: rt.hub, Events: rt.events, Lifetime: rt.done, Watchdog: rt.watchdogTimeout,
		Retryable: Retryable, Closed: ErrClosed, Reason: retryReason,
	})
	return rt
}

// Closing is the first step of Close, for a caller with work of its own
// to finish before Close (the client's registration record): later calls
// fail with ErrClosed and every hold ends with cause ErrClosed now, so
// that no hold outlives the call to Close and ends otherwise meanwhile (a
// lease running out while Redis does not answer). Idempotent.
func (rt *Runtime) Closing() {
	rt.cancel(ErrClosed)
	rt.holds.LoseAll(ErrClosed)
}

// Close marks the runtime closed (later calls fail with ErrClosed), ends
// every hold with cause ErrClosed, waits up to CloseWait for the acquires
// in flight and their give-backs (package inflight), and stops the hub and
// the wheel. The registered work sends nothing after it returns.
func (rt *Runtime) Close() {
	rt.Closing()
	if left, waited := rt.inflight.Drain(); left > 0 {
		rt.logger.Error("redisson: Close stopped waiting for acquires in flight; Redis did not answer in time, and semaphore permits they took (if they ran) are missing until restored",
			"inflight", left, "waited", waited)
	}
	rt.eviction.Close()
	rt.conns.Close()
	if rt.hub != nil {
		rt.hub.Close()
	}
	rt.wheel.Close()
}

// Eviction runs the clean-up of expiring entries of the client's map and
// set caches.
func (rt *Runtime) Eviction() *eviction.Scheduler { return rt.eviction }

// Redis returns the go-redis client.
func (rt *Runtime) Redis() redis.UniversalClient { return rt.redis }

// ID returns the client id, the UUID of every owner field.
func (rt *Runtime) ID() string { return rt.id }

// Hub returns the pub/sub hub.
func (rt *Runtime) Hub() *hub.Hub { return rt.hub }

// Wheel returns the renewal wheel.
func (rt *Runtime) Wheel() *renewal.Wheel { return rt.wheel }

// Inflight returns the work Close waits for: acquires in flight and their
// give-backs.
func (rt *Runtime) Inflight() *inflight.Tracker { return rt.inflight }

// Conns returns the client's dedicated connections and call bounds.
func (rt *Runtime) Conns() *conns.Pool { return rt.conns }

// Holds returns what the client holds.
func (rt *Runtime) Holds() *holds.Registry { return rt.holds }

// Permits returns the ledger of the semaphore permits this client holds.
func (rt *Runtime) Permits() *PermitLedger { return &rt.permits }

// Events returns where the client's events go (observer, Debug log).
func (rt *Runtime) Events() *events.Sink { return rt.events }

// Retry returns how the client's waiting calls retry and wait.
func (rt *Runtime) Retry() *retry.Policy { return rt.retry }

// WatchdogTimeout is the lease of locks taken without one.
func (rt *Runtime) WatchdogTimeout() time.Duration { return rt.watchdogTimeout }

// FairLockWaitTimeout is the fair lock's queue wait (fairLockWaitTimeout),
// the same for every fair lock of the client.
func (rt *Runtime) FairLockWaitTimeout() time.Duration { return rt.fairWait }

// Timeout bounds one Redis exchange that must finish without the caller's
// context (unlocks, undos).
func (rt *Runtime) Timeout() time.Duration { return rt.timeout }

// PublishCommand is the ARGV the scripts publish with: PUBLISH or SPUBLISH.
func (rt *Runtime) PublishCommand() string { return rt.publish }

// Sync returns the replica sync settings.
func (rt *Runtime) Sync() *ReplicaSync { return rt.sync }

// Logger returns the client's logger.
func (rt *Runtime) Logger() *slog.Logger { return rt.logger }

// Cluster reports whether Redis is a cluster.
func (rt *Runtime) Cluster() bool { return rt.cluster }

// Closed is closed when the client is closed.
func (rt *Runtime) Closed() <-chan struct{} { return rt.done.Done() }

// Lifetime is a context for the client's own background work: cancelled,
// with cause ErrClosed, when the client is closed.
func (rt *Runtime) Lifetime() context.Context { return rt.done }

// Check returns ErrInvalidArgument for a nil context, ErrClosed on a closed
// client and the context's cause on a done context.
func (rt *Runtime) Check(ctx context.Context) error {
	if ctx == nil {
		// A nil context would panic deep in go-redis, possibly after a
		// state change: refuse it before anything is sent or marked.
		return ErrNilContext
	}
	if rt.done.Err() != nil {
		return ErrClosed
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// ForRelease returns a context for a release, which must run even when the
// caller's context is already done: it keeps ctx's values but not its
// cancellation, and is bounded by the client's timeout.
func (rt *Runtime) ForRelease(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), rt.timeout)
}

// onRound turns the wheel's round reports into the observer's Renewal
// events; nil without an observer that wants them.
func onRound(o *observe.Observer) func(renewal.Round) {
	if o == nil || o.Renewal == nil {
		return nil
	}
	return func(r renewal.Round) {
		o.Renewal(observe.Renewal{Leases: r.Leases, Scripts: r.Scripts, Duration: r.Duration, Renewed: r.Renewed, Lost: r.Lost, Failed: r.Failed})
	}
}

// Adders returns the client's adder groups.
func (rt *Runtime) Adders() *AdderGroups { return &rt.adders }
