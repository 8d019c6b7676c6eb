package core

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/pubsub"
)

// Runtime is what every object of one Client shares: the Redis client, the
// client id, the pub/sub hub, the renewal wheel and the settings objects need.
type Runtime struct {
	Redis           redis.UniversalClient
	ID              string
	Hub             *pubsub.Hub
	Wheel           *renewal.Wheel
	WatchdogTimeout time.Duration
	Timeout         time.Duration
	// PublishCommand is the ARGV the scripts publish with: PUBLISH or SPUBLISH.
	PublishCommand string
	Sync           *ReplicaSync
	Logger         *slog.Logger
	// Cluster is true when Redis is a cluster: renewals are grouped by slot.
	Cluster bool

	holds    Holds
	locals   Locals
	requests requestIDs
	conns    dedicatedConns
	done     context.Context
	cancel   context.CancelCauseFunc
}

// Init prepares the runtime's lifetime; call once before use.
func (rt *Runtime) Init() {
	rt.done, rt.cancel = context.WithCancelCause(context.Background())
	rt.requests.init()
	if rt.Logger == nil {
		rt.Logger = slog.New(slog.DiscardHandler)
	}
	if rt.Sync == nil {
		rt.Sync = &ReplicaSync{}
	}
}

// Close marks the runtime closed; later calls fail with ErrClosed.
func (rt *Runtime) Close() {
	rt.cancel(ErrClosed)
	rt.loseAll(ErrClosed)
	rt.conns.close()
}

// Done is a context that is cancelled, with cause ErrClosed, when the client
// is closed.
func (rt *Runtime) Done() context.Context { return rt.done }

// Check returns ErrClosed on a closed client and the context's error on a
// done context.
func (rt *Runtime) Check(ctx context.Context) error {
	if rt.done.Err() != nil {
		return ErrClosed
	}
	return ctx.Err()
}

// Detached returns a context that keeps ctx's values but not its
// cancellation, bounded by the client's timeout: releases must run even when
// the caller's context is already done.
func (rt *Runtime) Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), rt.Timeout)
}

// SlotOf returns the cluster slot of key, or 0 outside a cluster.
func (rt *Runtime) SlotOf(key string) int {
	if !rt.Cluster {
		return 0
	}
	return Slot(key)
}

// Eval runs a script without replica sync.
func (rt *Runtime) Eval(ctx context.Context, s *Script, keys []string, args ...any) (any, error) {
	return s.Run(ctx, rt.Redis, keys, args...)
}

// EvalSynced runs a lock-writing script followed by WAIT for the master's
// replicas on the same connection (one round trip), when replica sync is on
// and the master has replicas. Without WAIT, on a single node, the script
// goes down a dedicated connection (see dedicatedConns). go-redis may re-send the script when a reply
// is lost: use it for scripts that are idempotent (unlocks, with their
// latch).
func (rt *Runtime) EvalSynced(ctx context.Context, s *Script, keys []string, args ...any) (any, SyncResult, error) {
	return rt.evalSynced(ctx, s, true, keys, args)
}

// EvalSyncedNoRetry is EvalSynced for scripts that must run at most once
// (acquires): a lost reply is reported, never answered by a second run. A
// *StaleConnError says the server had closed the connection before the
// reply: the caller finds out from Redis whether the script ran.
func (rt *Runtime) EvalSyncedNoRetry(ctx context.Context, s *Script, keys []string, args ...any) (any, SyncResult, error) {
	return rt.evalSynced(ctx, s, false, keys, args)
}

func (rt *Runtime) evalSynced(ctx context.Context, s *Script, retry bool, keys []string, args []any) (any, SyncResult, error) {
	run := func() (any, SyncResult, error) {
		v, err := s.run(ctx, rt.Redis, retry, keys, args)
		return v, SyncResult{}, err
	}
	if rt.Cluster && !rt.Sync.Enabled {
		return run()
	}
	node, err := master(ctx, rt.Redis, keys[0])
	if err != nil || node == nil {
		return run()
	}
	n := 0
	if rt.Sync.Enabled {
		n = rt.Sync.replicas(ctx, node, rt.Logger)
	}
	if n == 0 {
		if rt.Cluster {
			// Through the cluster client: it follows redirects, and its
			// hooks see the call.
			return run()
		}
		v, err := rt.runOnNode(ctx, node, s, retry, keys, args)
		return v, SyncResult{}, err
	}
	timeout := rt.Sync.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	for attempt := 0; ; attempt++ {
		pipe := node.Pipeline()
		var cmd *redis.Cmd
		if retry {
			cmd = s.EvalSha(ctx, pipe, keys, args...)
		} else {
			cmd = s.evalShaNoRetry(ctx, pipe, keys, args)
		}
		wait := pipe.Do(ctx, "WAIT", n, timeout.Milliseconds())
		_, _ = pipe.Exec(ctx)
		err := cmd.Err()
		switch {
		case IsNoScript(err) && attempt == 0:
			if lerr := s.Load(ctx, node); lerr != nil {
				return nil, SyncResult{}, s.wrap(lerr)
			}
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
		acked, _ := wait.Int64()
		return cmd.Val(), SyncResult{Replicas: n, Acked: int(acked)}, nil
	}
}
