package core

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/replies"
)

// RunOpts says how Run sends a script. The zero value runs it as any
// idempotent command: through go-redis' pool, which may send it again when
// a reply is lost, without WAIT.
type RunOpts struct {
	// Synced marks a lock write: it is followed by WAIT for the master's
	// replicas on the same connection (one round trip) when replica sync
	// is on and the master has replicas, and without WAIT it goes down a
	// dedicated connection, bound by ctx where it can be (package conns).
	Synced bool
	// NoRetry is for scripts that must run at most once (acquires): a lost
	// reply is reported, never answered by a second run. A
	// *conns.StaleConnError says the server had closed the connection
	// before the reply: the caller finds out from Redis whether the script
	// ran.
	NoRetry bool
	// Checked is for a synced write whose outcome must survive a failover
	// as surely as the acquire it follows (a multi-lock member's PEXPIRE):
	// with FailOnNoSync, a write no replica acknowledged is an error
	// wrapping ErrNoSyncedReplicas (the write did run on the master).
	Checked bool
}

// Run runs s with keys and args as o says. It returns when ctx is done even
// if Redis does not answer (see conns.Bounded); the SyncResult is what WAIT
// saw (zero without one).
func (rt *Runtime) Run(ctx context.Context, s *Script, o RunOpts, keys []string, args ...any) (any, SyncResult, error) {
	retry := !o.NoRetry
	if !o.Synced {
		if !rt.conns.NeedsBound(ctx) {
			v, err := s.run(ctx, rt.redis, &rt.evalMode, retry, keys, args)
			return v, SyncResult{}, err
		}
		v, err := conns.Bounded(ctx, func(ctx context.Context) (any, error) {
			return s.run(ctx, rt.redis, &rt.evalMode, retry, keys, args)
		})
		return v, SyncResult{}, err
	}
	v, sync, err := rt.runLock(ctx, s, retry, keys, args)
	if o.Checked && err == nil && sync.Failed() && rt.sync.FailOnNoSync {
		return nil, sync, sync.Err(rt.sync.Timeout)
	}
	return v, sync, err
}

type syncedReply struct {
	v    any
	sync SyncResult
}

// runLock runs a synced script: on the connection a Pin reserved, on a
// dedicated connection bound by ctx, or bounded by Bounded's goroutine.
func (rt *Runtime) runLock(ctx context.Context, s *Script, retry bool, keys []string, args []any) (any, SyncResult, error) {
	if pin := conns.PinOf(ctx); pin != nil {
		if v, err, ok := rt.runPinned(ctx, pin, s, keys, args); ok {
			return v, SyncResult{}, err
		}
	}
	if !rt.conns.NeedsBound(ctx) {
		return rt.runSynced(ctx, s, retry, keys, args)
	}
	if v, err, ok := rt.runBound(ctx, s, retry, keys, args); ok {
		return v, SyncResult{}, err
	}
	r, err := conns.Bounded(ctx, func(ctx context.Context) (syncedReply, error) {
		v, sync, err := rt.runSynced(ctx, s, retry, keys, args)
		return syncedReply{v, sync}, err
	})
	return r.v, r.sync, err
}

func (rt *Runtime) runSynced(ctx context.Context, s *Script, retry bool, keys []string, args []any) (any, SyncResult, error) {
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
		n = rt.sync.c.Count(ctx, node)
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
		if _, reply := replies.Text(werr); reply {
			res.Refused = werr
		}
		if res.Failed() {
			// The count may be stale (a failover, a replica gone): read
			// it again soon, not a TTL later, so that a retry sees it.
			rt.sync.c.Recheck(node.Options().Addr)
		}
		return cmd.Val(), res, nil
	}
}

// runOnNode runs s on node through a dedicated connection when one is free,
// else through the node's pool.
func (rt *Runtime) runOnNode(ctx context.Context, node *redis.Client, s *Script, retry bool, keys []string, args []any) (any, error) {
	dc := rt.conns.Get(node)
	if dc == nil {
		return s.run(ctx, node, &rt.evalMode, retry, keys, args)
	}
	// Never with go-redis' retries: on a one-connection Conn they only
	// meet the broken connection again, after a backoff each.
	v, err := s.run(ctx, dc.Redis(), &rt.evalMode, false, keys, args)
	rt.conns.Put(dc, err, isReply(err))
	if err == nil || ctx.Err() != nil {
		return v, err
	}
	switch {
	case Rejected(err) && isReply(err):
		// It did not run; put closed the connection.
		return rt.resend(ctx, node, s, retry, keys, args)
	case isReply(err):
		return v, err
	case NotSent(err):
		// The command never left: the pool sends it, as if it had been
		// asked first.
		return s.run(ctx, node, &rt.evalMode, retry, keys, args)
	case conns.PeerClosed(err) && retry:
		// The server had closed the connection, most likely before the
		// command reached it (the pool would have noticed with its probe),
		// and the script is idempotent: send it again through the pool.
		return s.run(ctx, node, &rt.evalMode, retry, keys, args)
	case conns.PeerClosed(err):
		return v, &conns.StaleConnError{Err: err}
	}
	return v, err
}

// resend sends s through node's pool after the node turned it away on a
// dedicated connection without running it (READONLY, LOADING, MASTERDOWN):
// the script then goes where the application's own commands go, and what
// go-redis does for those on a failover applies to it too: the pool removes
// a connection that answered READONLY, a failover client dials the master
// Sentinel names, and with retry go-redis tries again after a refusal (its
// MaxRetries, with its back-off). On a node still refusing, it costs a
// round trip; the caller's own retries then take a fresh connection.
func (rt *Runtime) resend(ctx context.Context, node *redis.Client, s *Script, retry bool, keys []string, args []any) (any, error) {
	return s.run(ctx, node, &rt.evalMode, retry, keys, args)
}

// runBound runs s under ctx on a dedicated connection bound by ctx (see
// boundConn), without a goroutine. ok is false, with nothing run, when
// that cannot be done (see conns.Pool.TakeBound; also a command that never left, and
// on a cluster a refusal: MOVED, ASK, TRYAGAIN, CLUSTERDOWN, READONLY,
// LOADING, MASTERDOWN): the caller bounds the call with Bounded instead,
// and on a cluster sends it through the cluster client, which follows the
// redirection. On a single node a refusal is sent again through the pool
// (see resend), bounded.
func (rt *Runtime) runBound(ctx context.Context, s *Script, retry bool, keys []string, args []any) (v any, err error, ok bool) {
	if !rt.conns.Binds() || len(keys) == 0 {
		return nil, nil, false
	}
	dc, lost := rt.conns.TakeBound(ctx, keys[0])
	if dc == nil {
		if lost {
			// Nothing was sent, but the caller's time is up.
			return nil, &conns.AbandonedError{Cause: context.Cause(ctx)}, true
		}
		return nil, nil, false
	}
	stop := rt.conns.Bind(dc, ctx)
	v, err = s.run(ctx, dc.Redis(), &rt.evalMode, false, keys, args)
	rt.conns.Unbind(dc, stop)
	rt.conns.Put(dc, err, isReply(err))
	switch {
	case err == nil:
		return v, nil, true
	case isReply(err):
		if rt.cluster && refused(err) {
			// It did not run: the cluster client sends it where the
			// slot is now.
			rt.conns.ReloadSlots()
			if ctx.Err() != nil {
				return nil, &conns.AbandonedError{Cause: context.Cause(ctx)}, true
			}
			return nil, nil, false
		}
		if Rejected(err) && ctx.Err() == nil {
			v, err = conns.Bounded(ctx, func(ctx context.Context) (any, error) {
				return rt.resend(ctx, dc.Node(), s, retry, keys, args)
			})
		}
		return v, err, true
	case ctx.Err() == nil && (NotSent(err) || conns.PeerClosed(err) && retry):
		// As runOnNode: never sent, or sent to a connection the server had
		// closed and safe to send again; through the pool, bounded.
		return nil, nil, false
	case ctx.Err() == nil && conns.PeerClosed(err):
		return nil, &conns.StaleConnError{Err: err}, true
	}
	return v, Abandoned(ctx, err), true
}

// runPinned runs s on the connection pin holds, bound by the deadline of
// the context pin was made for (see conns.Pool.Inline); ok is false when
// pin holds none (its first script took it). On a cluster, ok is also
// false, with nothing run, for a script whose key lies in another slot than
// the one pin was made for, and for a refusal (see runBound): the script
// then goes through the cluster client, bounded by go-redis' ReadTimeout
// as the inline call's later scripts are. On a single node a refusal is
// returned, not sent again (see resend): through the pool it would not end
// by the deadline, which the caller is owed; Put closed the connection, so
// the caller's next try takes another.
func (rt *Runtime) runPinned(ctx context.Context, pin *conns.Pin, s *Script, keys []string, args []any) (v any, err error, ok bool) {
	var key string
	if len(keys) > 0 {
		key = keys[0]
	}
	dc := rt.conns.TakePinned(pin, key)
	if dc == nil {
		return nil, nil, false
	}
	v, err = s.run(ctx, dc.Redis(), &rt.evalMode, false, keys, args)
	rt.conns.Unbind(dc, nil)
	rt.conns.Put(dc, err, isReply(err))
	if err != nil && isReply(err) && rt.cluster && refused(err) {
		rt.conns.ReloadSlots()
		return nil, nil, false
	}
	if err != nil && !isReply(err) && conns.PeerClosed(err) && pin.Context().Err() == nil {
		return v, &conns.StaleConnError{Err: err}, true
	}
	return v, Abandoned(pin.Context(), err), true
}

// master returns the node client that owns key, or nil when the client type
// offers no per-node access (then no WAIT is sent).
func master(ctx context.Context, rdb redis.UniversalClient, key string) (*redis.Client, error) {
	switch c := rdb.(type) {
	case *redis.Client:
		return c, nil
	case *redis.ClusterClient:
		return c.MasterForKey(ctx, key)
	default:
		return nil, nil
	}
}

// refused reports whether err is a cluster node's refusal to run a command
// at all: a redirection, or a slot or node not ready for it.
func refused(err error) bool {
	return IsRedirect(err) || Rejected(err)
}

// Abandoned turns a failure to get a reply after ctx ended into the
// *AbandonedError Bounded returns: whether the call ran is unknown, and the
// error says why the caller stopped waiting.
func Abandoned(ctx context.Context, err error) error {
	if err == nil || isReply(err) {
		return err
	}
	if ctx.Err() != nil {
		return &conns.AbandonedError{Cause: context.Cause(ctx)}
	}
	if deadline, ok := conns.Limit(ctx); ok && !time.Now().Before(deadline) {
		// The socket's deadline passed a moment before ctx's timer fired.
		return &conns.AbandonedError{Cause: context.DeadlineExceeded}
	}
	return err
}
