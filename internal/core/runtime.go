package core

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/renewal"
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
	Retry RetryConfig
	// Observer, when set, receives the client's events (package observe).
	Observer *observe.Observer
}

// Runtime is what every object of one Client shares: the Redis client, the
// client id, the pub/sub hub, the renewal wheel and the settings objects
// need. Its settings are fixed at New.
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
	// readTimeout is go-redis' own bound of a reply (ReadTimeout); 0 when
	// it waits forever.
	readTimeout time.Duration
	// ctxTimeouts: the go-redis client has ContextTimeoutEnabled, so it
	// ends a call at its context's deadline by itself.
	ctxTimeouts bool
	// binder lets dedicated connections be bound by a call's context (see
	// boundConn): the client's dial hook on a single node, every node
	// client's on a cluster (see cluster_bind.go).
	binder   *binder
	fairWait time.Duration
	retry    RetryConfig
	obs      *observe.Observer
	epoch    time.Time // holds' start times count from it

	holds    Holds
	evalMode EvalMode
	requests requestIDs
	conns    dedicatedConns
	inflight inflight
	done     context.Context
	cancel   context.CancelCauseFunc
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
		retry:           cfg.Retry,
		obs:             cfg.Observer,
		epoch:           time.Now(),
	}
	if cfg.Sharded {
		rt.publish = "SPUBLISH"
	}
	rt.readTimeout, rt.ctxTimeouts = readTimeoutOf(cfg.Redis)
	switch c := cfg.Redis.(type) {
	case *redis.Client:
		if !cfg.Cluster {
			rt.binder = &binder{}
			c.AddHook(rt.binder)
		}
	case *redis.ClusterClient:
		if cfg.Cluster {
			rt.bindCluster(c)
		}
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
	rt.sync = &ReplicaSync{Enabled: cfg.Sync.Enabled, Timeout: cfg.Sync.Timeout, FailOnNoSync: cfg.Sync.FailOnNoSync, c: &replicaCache{}}
	rt.done, rt.cancel = context.WithCancelCause(context.Background())
	if rt.binder != nil {
		rt.binder.soft.done = rt.done.Done()
		rt.binder.soft.epoch = rt.epoch
	}
	rt.requests.init()
	rt.inflight.init()
	if cfg.Redis != nil {
		pc := hub.Config{Client: cfg.Redis, Sharded: cfg.Sharded, Logger: rt.logger}
		if o := rt.obs; o != nil && o.Subscription != nil {
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
		OnRound:   rt.onRound(),
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
	rt.loseAll(ErrClosed)
}

// Close marks the runtime closed (later calls fail with ErrClosed), ends
// every hold with cause ErrClosed, waits up to CloseWait for the acquires
// in flight and their give-backs (see Begin), and stops the hub and the
// wheel. The registered work sends nothing after it returns.
func (rt *Runtime) Close() {
	rt.Closing()
	if left, waited := rt.drain(); left > 0 {
		rt.logger.Error("redisson: Close stopped waiting for acquires in flight; Redis did not answer in time, and semaphore permits they took (if they ran) are missing until restored",
			"inflight", left, "waited", waited)
	}
	rt.conns.close()
	if rt.hub != nil {
		rt.hub.Close()
	}
	rt.wheel.Close()
}

// Redis returns the go-redis client.
func (rt *Runtime) Redis() redis.UniversalClient { return rt.redis }

// ID returns the client id, the UUID of every owner field.
func (rt *Runtime) ID() string { return rt.id }

// Hub returns the pub/sub hub.
func (rt *Runtime) Hub() *hub.Hub { return rt.hub }

// Wheel returns the renewal wheel.
func (rt *Runtime) Wheel() *renewal.Wheel { return rt.wheel }

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

// Done is a context that is cancelled, with cause ErrClosed, when the client
// is closed.
func (rt *Runtime) Done() context.Context { return rt.done }

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

// Detached returns a context that keeps ctx's values but not its
// cancellation, bounded by the client's timeout: releases must run even when
// the caller's context is already done.
func (rt *Runtime) Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), rt.timeout)
}

// Within returns ctx with a bound on the Redis calls the runtime makes
// under it (Eval, EvalSynced, Bounded): each ends within d from now, as if
// ctx had that deadline. It is ctx itself when go-redis' ReadTimeout already
// ends a silent call about as soon, or ctx's own deadline comes first.
//
// The bound is a value, not a deadline: context.WithTimeout would start and
// stop a timer at every unlock, and with several goroutines locking at once
// the Go runtime then woke an idle thread at most of the socket deadlines
// go-redis sets (measured, --only parallel, A/B in the same minutes: 0.61
// and 0.82 of redislock's pairs/s with the timer, 0.92 and 1.06 without).
// A bound call leaves it to a sweeper, which ends the call at most
// softEvery (25 ms) after the bound (see softbound.go); the rare call that
// needs a goroutine (Bounded) makes it a real deadline first. Other code
// sees ctx as it was: use the returned context only for those calls.
func (rt *Runtime) Within(ctx context.Context, d time.Duration) context.Context {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= d {
		return ctx
	}
	if rt.readTimeout > 0 && rt.readTimeout <= d+boundSlack {
		return ctx
	}
	return &withinCtx{Context: ctx, limit: time.Now().Add(d)}
}

// withinCtx carries a bound set by Within.
type withinCtx struct {
	context.Context
	limit time.Time
}

type withinKey struct{}

func (c *withinCtx) Value(key any) any {
	if _, ok := key.(withinKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// limitOf returns when calls under ctx must end: the earlier of ctx's
// deadline and a bound set by Within.
func limitOf(ctx context.Context) (time.Time, bool) {
	deadline, ok := ctx.Deadline()
	if w := withinFirst(ctx, deadline, ok); w != nil {
		return w.limit, true
	}
	return deadline, ok
}

// withinFirst returns the bound Within set on ctx when it comes before
// ctx's deadline (deadline, ok), nil otherwise.
func withinFirst(ctx context.Context, deadline time.Time, ok bool) *withinCtx {
	if w, _ := ctx.Value(withinKey{}).(*withinCtx); w != nil && (!ok || w.limit.Before(deadline)) {
		return w
	}
	return nil
}

// SlotOf returns the cluster slot of key, or 0 outside a cluster.
func (rt *Runtime) SlotOf(key string) int {
	if !rt.cluster {
		return 0
	}
	return Slot(key)
}

// Eval runs a script without replica sync, bounded by ctx.
func (rt *Runtime) Eval(ctx context.Context, s *Script, keys []string, args ...any) (any, error) {
	if !rt.NeedsBound(ctx) {
		return s.run(ctx, rt.redis, &rt.evalMode, true, keys, args)
	}
	return Bounded(ctx, func(ctx context.Context) (any, error) {
		return s.run(ctx, rt.redis, &rt.evalMode, true, keys, args)
	})
}

// NeedsBound reports whether a call under ctx must go through Bounded:
// when ctx's deadline comes before go-redis' own ReadTimeout would end a
// silent call (or go-redis has none). Otherwise go-redis ends it in time
// by itself, and the call saves Bounded's goroutine, which on the lock path
// costs as much as the library's own work. A ctx without deadline is
// bounded by ReadTimeout then: its cancellation is seen within that.
func (rt *Runtime) NeedsBound(ctx context.Context) bool {
	if rt.readTimeout <= 0 {
		if ctx.Done() != nil {
			return true
		}
		_, ok := limitOf(ctx) // a bound set by Within
		return ok
	}
	// Deadline first: Done would make a cancel context allocate its
	// channel on every call.
	deadline, ok := ctx.Deadline()
	if w := withinFirst(ctx, deadline, ok); w != nil {
		// go-redis knows nothing of a bound set by Within, even with
		// ContextTimeoutEnabled.
		return time.Until(w.limit)+boundSlack < rt.readTimeout
	}
	return ok && !rt.ctxTimeouts && time.Until(deadline)+boundSlack < rt.readTimeout
}

// Abandoned turns a failure to get a reply after ctx ended into the
// *AbandonedError Bounded returns: whether the call ran is unknown, and the
// error says why the caller stopped waiting.
func Abandoned(ctx context.Context, err error) error {
	if err == nil || isReply(err) {
		return err
	}
	if ctx.Err() != nil {
		return &AbandonedError{Cause: context.Cause(ctx)}
	}
	if deadline, ok := limitOf(ctx); ok && !time.Now().Before(deadline) {
		// The socket's deadline passed a moment before ctx's timer fired.
		return &AbandonedError{Cause: context.DeadlineExceeded}
	}
	return err
}

// boundSlack is how far a deadline may come before go-redis' ReadTimeout
// and still be left to go-redis: a release attempt bounded by the default
// Timeout (3 s) meets the default ReadTimeout (3 s) a moment early.
const boundSlack = 100 * time.Millisecond

// readTimeoutOf returns the go-redis client's ReadTimeout and whether it
// honours context deadlines itself (ContextTimeoutEnabled). The client's
// Options are the ones go-redis normalised in New: its default (0 given)
// is already filled in, and 0 or a negative value there means the client
// waits for a reply forever (-1 or -2 given); both give 0 here.
func readTimeoutOf(rdb redis.UniversalClient) (time.Duration, bool) {
	var d time.Duration
	var ctxTimeouts bool
	switch c := rdb.(type) {
	case *redis.Client:
		d, ctxTimeouts = c.Options().ReadTimeout, c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		d, ctxTimeouts = c.Options().ReadTimeout, c.Options().ContextTimeoutEnabled
	default:
		return 0, false
	}
	if d <= 0 {
		return 0, false
	}
	return d, ctxTimeouts
}

// EvalSynced runs a lock-writing script followed by WAIT for the master's
// replicas on the same connection (one round trip), when replica sync is on
// and the master has replicas. Without WAIT, on a single node, the script
// goes down a dedicated connection (see dedicatedConns). go-redis may re-send
// the script when a reply is lost: use it for scripts that are idempotent
// (unlocks, with their latch). It returns when ctx is done even if Redis
// does not answer (see Bounded).
func (rt *Runtime) EvalSynced(ctx context.Context, s *Script, keys []string, args ...any) (any, SyncResult, error) {
	return rt.evalBounded(ctx, s, true, keys, args)
}

// EvalSyncedNoRetry is EvalSynced for scripts that must run at most once
// (acquires): a lost reply is reported, never answered by a second run. A
// *StaleConnError says the server had closed the connection before the
// reply: the caller finds out from Redis whether the script ran.
func (rt *Runtime) EvalSyncedNoRetry(ctx context.Context, s *Script, keys []string, args ...any) (any, SyncResult, error) {
	return rt.evalBounded(ctx, s, false, keys, args)
}

type syncedReply struct {
	v    any
	sync SyncResult
}

func (rt *Runtime) evalBounded(ctx context.Context, s *Script, retry bool, keys []string, args []any) (any, SyncResult, error) {
	if pin, _ := ctx.Value(pinKey{}).(*Pin); pin != nil {
		if v, err, ok := rt.evalPinned(ctx, pin, s, keys, args); ok {
			return v, SyncResult{}, err
		}
	}
	if !rt.NeedsBound(ctx) {
		return rt.evalSynced(ctx, s, retry, keys, args)
	}
	if v, err, ok := rt.evalBound(ctx, s, retry, keys, args); ok {
		return v, SyncResult{}, err
	}
	r, err := Bounded(ctx, func(ctx context.Context) (syncedReply, error) {
		v, sync, err := rt.evalSynced(ctx, s, retry, keys, args)
		return syncedReply{v, sync}, err
	})
	return r.v, r.sync, err
}

func (rt *Runtime) evalSynced(ctx context.Context, s *Script, retry bool, keys []string, args []any) (any, SyncResult, error) {
	run := func() (any, SyncResult, error) {
		v, err := s.run(ctx, rt.redis, &rt.evalMode, retry, keys, args)
		return v, SyncResult{}, err
	}
	if rt.cluster && !rt.sync.Enabled {
		return run()
	}
	node, err := master(ctx, rt.redis, keys[0])
	if err != nil || node == nil {
		return run()
	}
	n := 0
	if rt.sync.Enabled {
		n = rt.sync.replicas(ctx, node, rt.logger)
	}
	if n == 0 {
		if rt.cluster {
			// Through the cluster client: it follows redirects, and its
			// hooks see the call.
			return run()
		}
		v, err := rt.runOnNode(ctx, node, s, retry, keys, args)
		return v, SyncResult{}, err
	}
	timeout := rt.sync.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	sha := rt.evalMode.sha()
	for {
		pipe := node.Pipeline()
		cmd, send := s.command(ctx, sha, retry, keys, args)
		_ = pipe.Process(ctx, send)
		wait := pipe.Do(ctx, "WAIT", n, timeout.Milliseconds())
		_, _ = pipe.Exec(ctx)
		err := cmd.Err()
		switch {
		case sha && rt.evalMode.answered(err):
			// The script did not run: EVAL it now, in the same
			// pipeline as its WAIT (a SCRIPT LOAD first may be refused
			// by the ACL too).
			sha = false
			continue
		case IsRedirect(err):
			// The slot moved under us; the script did not run. Let the
			// cluster client follow the redirect, without WAIT this once.
			return run()
		case errors.Is(err, redis.Nil):
			err = nil
		case err != nil:
			return nil, SyncResult{}, s.wrap(err)
		}
		acked, werr := wait.Int64()
		res := SyncResult{Replicas: n, Acked: int(acked)}
		if _, reply := replyText(werr); reply {
			res.Refused = werr
		}
		if res.Failed() {
			// The count may be stale (a failover, a replica gone): read
			// it again soon, not a TTL later, so that a retry sees it.
			rt.sync.recheck(node.Options().Addr)
		}
		return cmd.Val(), res, nil
	}
}

// onRound turns the wheel's round reports into the observer's Renewal
// events; nil without an observer that wants them.
func (rt *Runtime) onRound() func(renewal.Round) {
	o := rt.obs
	if o == nil || o.Renewal == nil {
		return nil
	}
	return func(r renewal.Round) {
		o.Renewal(observe.Renewal{Leases: r.Leases, Scripts: r.Scripts, Duration: r.Duration, Renewed: r.Renewed, Lost: r.Lost, Failed: r.Failed})
	}
}
