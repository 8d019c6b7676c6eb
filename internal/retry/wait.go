package retry

import (
	"context"
	"errors"
	"time"

	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/hub"
)

// Attempt is one try of a Wait. done reports that the caller has what it
// waits for. next, when not zero, is when the state changes without a
// message being published (a permit's lease ends), so the wait tries again
// then at the latest.
type Attempt func(ctx context.Context) (done bool, next time.Time, err error)

// WaitSpec describes a Wait.
type WaitSpec struct {
	// Channel is where the object publishes the changes waiters wait for.
	Channel string
	// Policy is how a message wakes the channel's local waiters.
	Policy hub.WakePolicy
	// Deadline ends the wait; zero means only ctx does.
	Deadline time.Time
	// Broadcast says one message wakes every waiter (the latch's "0"), so a
	// waiter that leaves has no wake-up to pass on. Otherwise a wake-up it
	// took but did not use goes to the next local waiter, so leaving never
	// swallows a release.
	Broadcast bool
	// Kind and Name name the object (as errors do) in retry and
	// subscription events and logs.
	Kind, Name string
	// Observe, when set, counts the wait's tries.
	Observe *events.Acq
}

// Wait is Redisson's wait for the objects whose waiters have no owner to
// hand off to (semaphores, the latch): try; unless done, subscribe to the
// channel and try again (a change may have come between the two), then
// sleep until a message, the attempt's next time, WatchdogTimeout or the
// deadline, and try again.
//
// Without a message the wait still tries every WatchdogTimeout, the bound
// lock waiters use for a lock without TTL: a message lost to a pub/sub
// outage must not leave a waiter asleep for good (Java's would).
//
// An attempt or subscription that fails for a reason that may pass (see
// Retryable) is tried again after a back-off, a budget of failures in a row;
// a message ends a back-off at once, since Redis answers again.
//
// Wait returns true once an attempt is done. At the deadline it returns
// false and the error of the last failed attempt of the current streak
// (nil when the last one got an answer). Otherwise it returns the error
// that ended it: an attempt's that cannot pass, ctx's cause, or ErrClosed.
func (p *Policy) Wait(ctx context.Context, spec WaitSpec, try Attempt) (bool, error) {
	retry := p.Budget(spec.Kind, spec.Name)
	var backoff time.Duration
	done, _, err := try(ctx)
	spec.Observe.Try(done, err)
	if err != nil {
		var again bool
		if backoff, again = retry.After(ctx, err); !again {
			return false, err
		}
	}
	if done {
		return true, nil
	}
	if !spec.Deadline.IsZero() && !time.Now().Before(spec.Deadline) {
		return false, retry.Err()
	}

	sub, err := p.subscribe(ctx, spec, &retry)
	if sub == nil {
		return false, err
	}
	used := spec.Broadcast
	defer func() { sub.Close(used) }()

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	retryAt := time.Now().Add(backoff)
	for {
		sleep := p.watchdog
		if backoff = time.Until(retryAt); backoff > 0 {
			sleep = backoff
		} else {
			var next time.Time
			done, next, err = try(ctx)
			spec.Observe.Try(done, err)
			d, again := retry.After(ctx, err)
			switch {
			case again:
				retryAt, sleep = time.Now().Add(d), d
			case err != nil:
				return false, err
			case done:
				used = true
				return true, nil
			case sub.Err() != nil:
				// Redis refused the channel when the hub subscribed it
				// again (an ACL changed): no message can come any more.
				return false, sub.Err()
			default:
				retry.Reset()
				if !next.IsZero() {
					sleep = min(sleep, max(time.Until(next), time.Millisecond))
				}
			}
		}
		if !spec.Deadline.IsZero() {
			left := time.Until(spec.Deadline)
			if left <= 0 {
				return false, retry.Err()
			}
			sleep = min(sleep, left)
		}
		timer.Reset(sleep)
		select {
		case <-sub.C():
			retryAt = time.Time{}
		case <-timer.C:
		case <-ctx.Done():
			return false, context.Cause(ctx)
		case <-p.lifetime.Done():
			return false, p.closed
		}
	}
}

// subscribe subscribes the wait's channel, bounded by its deadline. With no
// subscription it returns why the wait ends: the client closed, ctx's
// cause, the last failure of the streak at the deadline (nil when there
// was none), or the subscription's own error.
func (p *Policy) subscribe(ctx context.Context, spec WaitSpec, retry *Retry) (*hub.Waiter, error) {
	subCtx, cancel := ctx, context.CancelFunc(func() {})
	if !spec.Deadline.IsZero() {
		subCtx, cancel = context.WithDeadline(ctx, spec.Deadline)
	}
	sub, err := retry.Subscribe(subCtx, spec.Channel, spec.Policy)
	cancel()
	if err == nil {
		return sub, nil
	}
	switch {
	case errors.Is(err, hub.ErrClosed) || p.lifetime.Err() != nil:
		return nil, p.closed
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case !spec.Deadline.IsZero() && !time.Now().Before(spec.Deadline):
		return nil, retry.Err()
	}
	return nil, err
}
