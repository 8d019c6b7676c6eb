package core

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/observe"
)

// RetryConfig says how a waiting call rides out a failure that may pass (a
// failover, a restart, a network blip) instead of ending its wait with the
// first failed try.
type RetryConfig struct {
	// Attempts is how many failed tries in a row are tried again; 0 turns
	// retrying off.
	Attempts int
	// Delay is the back-off's base: before retry n (from 0) a call sleeps
	// half plus a random part of the other half of min(Delay·2ⁿ, 2·Delay),
	// Redisson 3.48+'s EqualJitterDelay. Zero means 1 s.
	Delay time.Duration
}

// Retry counts one waiting call's failed tries in a row. The zero value is
// not usable; get one from Runtime.Retry. It is not safe for concurrent use.
// A value, so that the fast path of an acquire that needs no retry
// allocates nothing.
type Retry struct {
	rt   *Runtime
	n    int
	last error
	// kind and name name the object in observer events and logs.
	kind, name string
}

// Retry returns a fresh retry budget for one waiting call.
func (rt *Runtime) Retry() Retry { return Retry{rt: rt} }

// RetryOf returns a fresh retry budget for one waiting call on the object
// kind/name (as errors name them), which its events and logs name.
func (rt *Runtime) RetryOf(kind, name string) Retry { return Retry{rt: rt, kind: kind, name: name} }

// Retries reports whether waiting calls retry at all.
func (rt *Runtime) Retries() bool { return rt.retry.Attempts > 0 }

// After reports whether the waiting call whose try failed with err should
// try again, and after how long. It says no when err cannot pass by
// itself (a reply about the key, a closed client), when ctx is done or the
// client closes (the caller reports that instead), and once the budget of
// tries in a row is spent. A connection failure on a cluster also asks the
// go-redis client to reload its slot map: after a failover it may point at
// the dead master until its next periodic reload, seconds away; a READONLY
// or CLUSTERDOWN says the same.
func (r *Retry) After(ctx context.Context, err error) (time.Duration, bool) {
	if err == nil || ctx.Err() != nil || r.rt.done.Err() != nil || !Retryable(err) {
		return 0, false
	}
	if r.n >= r.rt.retry.Attempts {
		return 0, false
	}
	base := r.rt.retry.Delay
	if base <= 0 {
		base = time.Second
	}
	d := min(base<<min(r.n, 8), 2*base)
	half := d / 2
	d = max(half+rand.N(half+1), time.Millisecond)
	r.n++
	r.last = err
	if cc, ok := r.rt.redis.(*redis.ClusterClient); ok {
		cc.ReloadState(ctx)
	}
	r.rt.logger.Warn("redisson: a try failed for a reason that may pass; trying again",
		"attempt", r.n, "of", r.rt.retry.Attempts, "in", d, "err", err,
		AttrKind, string(ObserveKind(r.kind)), AttrName, r.name, AttrReason, string(retryReason(err)))
	if o := r.rt.obs; o != nil && o.Retry != nil {
		o.Retry(ctx, observe.Retry{Kind: ObserveKind(r.kind), Name: r.name, Reason: retryReason(err), Attempt: r.n, Delay: d, Err: err})
	}
	return d, true
}

// Reset starts a new streak: a try got an answer.
func (r *Retry) Reset() { r.n, r.last = 0, nil }

// Err returns the error of the streak's last failed try, nil when the last
// try got an answer: a wait that runs out while retrying reports it instead
// of "not acquired", since nobody could tell whether the object was free.
func (r *Retry) Err() error { return r.last }

// finalError marks a failure that must end a wait even though its cause
// may pass: trying again could count a hold twice.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// Final marks err as ending a wait: Retryable reports false for it, while
// errors.Is and errors.As still see what it wraps.
func Final(err error) error { return &finalError{err} }

// Retryable reports whether a try that failed with err may succeed when
// sent again a moment later: the connection failed or timed out (a server
// restarting or failing over, a network fault), Redis turned the command
// away for a passing state without running it (CLUSTERDOWN, TRYAGAIN,
// LOADING, MASTERDOWN, READONLY), or no replica acknowledged a write that
// was undone (ErrNoSyncedReplicas, which Redisson retries the same way).
// Context errors count: the caller checks its own context first, so one
// here comes from a bound of the client's.
func Retryable(err error) bool {
	var final *finalError
	if err == nil || errors.As(err, &final) || errors.Is(err, ErrClosed) || errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, ErrNoPermission) {
		// An ACL's refusal stays until an operator changes the ACL.
		return false
	}
	if errors.Is(err, hub.ErrNotConfirmed) || errors.Is(err, redis.ErrPoolTimeout) {
		// A subscription not confirmed in time, no free connection: the
		// command did not reach Redis.
		return true
	}
	if errors.Is(err, ErrNoSyncedReplicas) || Rejected(err) {
		return true
	}
	return Transport(err)
}

// Transport reports whether err is a failure to get a reply, not a reply
// from Redis: a network failure or a timeout, which leaves a command's
// outcome unknown unless NotSent says it never left.
func Transport(err error) bool {
	var re redis.Error
	if err == nil || errors.As(err, &re) || errors.Is(err, ErrWrongType) || errors.Is(err, ErrInvalidArgument) {
		return false
	}
	var ab *AbandonedError
	var ne net.Error
	return errors.As(err, &ab) || errors.As(err, &ne) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED)
}

// Rejected reports whether err is a Redis reply that turned the command
// away before running it, for a state that passes (CLUSTERDOWN, TRYAGAIN,
// LOADING, MASTERDOWN, READONLY): sending it again is safe.
func Rejected(err error) bool {
	return replyHasPrefix(err, "CLUSTERDOWN ", "TRYAGAIN ", "LOADING ", "MASTERDOWN ", "READONLY ")
}

// NotSent reports whether err certainly came before the command reached
// the server, so that it cannot have run: the connection could not be
// made, none was free in time, the go-redis client was closed (it says so
// before taking a connection), a dedicated connection go-redis already knew
// to be bad was used, or the write met a socket closed under us, which
// sends nothing. (Go's poll.FD lets a write under way
// finish before the descriptor closes; one fails with ErrClosed after
// sending part of its bytes only when it waited for room in the send
// buffer, which a script call and its WAIT, a few kilobytes at most on a
// connection with no unanswered command, never do. Redis does not run a
// command it got part of.)
func NotSent(err error) bool {
	if err == nil {
		return false
	}
	var oe *net.OpError
	// Not "set" (a deadline on a closed socket): go-redis sets the read
	// deadline after the command was written, and a failed SetReadDeadline
	// reads the same as a failed SetWriteDeadline.
	if errors.As(err, &oe) && (oe.Op == "dial" || oe.Op == "write" && errors.Is(err, net.ErrClosed)) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrClosed) ||
		badConn(err)
}

// Subscribe subscribes a waiting call to channel through the hub, riding
// out failures that may pass with r, the call's retry budget: a
// subscription that is not confirmed in time (ConfirmTimeout) during an
// outage is tried again after a back-off. ctx bounds it all (the caller's
// wait included); the hub's errors are returned as they are.
func (r *Retry) Subscribe(ctx context.Context, channel string, policy hub.WakePolicy) (*hub.Waiter, error) {
	return r.subscribe(ctx, channel, policy, true)
}

// SubscribeOnce is Subscribe without riding out failures: the first one
// ends it.
func (r *Retry) SubscribeOnce(ctx context.Context, channel string, policy hub.WakePolicy) (*hub.Waiter, error) {
	return r.subscribe(ctx, channel, policy, false)
}

func (r *Retry) subscribe(ctx context.Context, channel string, policy hub.WakePolicy, retry bool) (*hub.Waiter, error) {
	var start time.Time
	if r.rt.obs != nil {
		start = time.Now()
	}
	for {
		sub, err := r.rt.hub.Subscribe(ctx, channel, policy)
		if err == nil {
			if r.rt.obs != nil {
				r.subscribed(ctx, channel, start, nil)
			}
			return sub, nil
		}
		d, again := time.Duration(0), false
		if retry {
			d, again = r.After(ctx, err)
		}
		if !again {
			if r.rt.obs != nil {
				r.subscribed(ctx, channel, start, err)
			}
			return nil, err
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if r.rt.obs != nil {
				r.subscribed(ctx, channel, start, err)
			}
			return nil, err
		case <-r.rt.done.Done():
			t.Stop()
			if r.rt.obs != nil {
				r.subscribed(ctx, channel, start, err)
			}
			return nil, err
		}
	}
}
