// Package latch is Redisson's RCountDownLatch: a count-down latch that Go
// and Java services share. Waiters block until the count reaches zero;
// unlike java.util.concurrent's, it can be armed again once open.
//
// The latch is the string key <name> holding the remaining count in
// decimal; an absent key is an open latch (count 0). The count-down that
// reaches zero deletes the key and publishes "0" on
// redisson_countdownlatch__channel__{name}, which wakes every waiter of
// every client; arming (TrySetCount) and Delete publish "1". Keys, scripts
// and messages are Redisson's (docs/protocol.md §10), so a Java service's
// RCountDownLatch of the same name is the same latch. The channel always
// wraps the name in braces, even a name that has some (Redisson's choice):
// in a Redis Cluster a name with a {tag} then maps its key and its channel
// to different slots, and such names are refused there (ErrInvalidName);
// Redisson uses them on a single server, where they work. A name with a
// '}' and no {tag} ("x}y", "a{}b") is refused everywhere.
package latch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/replies"
	"github.com/goredisson/redisson/internal/retry"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/source"
)

// Latch is a handle on one named count-down latch. It is cheap, holds no
// state besides its name and is safe for concurrent use. Get one from New
// or (*redisson.Client).CountDownLatch.
type Latch struct {
	rt      *core.Runtime
	name    string
	channel string
	err     error
}

// New returns the count-down latch called name (Redisson's
// getCountDownLatch) of src's client. A nil or zero src gives a handle
// whose every call fails with ErrInvalidArgument.
func New(src *source.Source, name string) *Latch {
	rt := (*handle.Source)(src).Runtime()
	l := &Latch{rt: rt, name: name, channel: keys.LatchChannel(name)}
	if rt == nil {
		return l
	}
	// The channel wraps even a name with a {tag} in braces, which then
	// hashes apart from the name; Redisson's own records use such names
	// on a single server, so they are refused only in a cluster. Every
	// other split name is refused everywhere.
	if err := core.CheckName(name, l.channel); err != nil && (rt.Cluster() || !core.HasHashTag(name)) {
		l.err = err
	}
	return l
}

// Name returns the latch's name, which is also its key; "" for a nil
// handle.
func (l *Latch) Name() string {
	if l == nil {
		return ""
	}
	return l.name
}

func (l *Latch) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: "latch", Name: l.Name(), Op: op, Err: err}
}

// checkHandle returns why the handle cannot be used at all (nil, a bad
// name) or ctx is unusable (nil), without looking at the client or at
// ctx's end: a count-down runs after both.
func (l *Latch) checkHandle(ctx context.Context) error {
	switch {
	case l == nil || l.rt == nil:
		return core.ErrNilHandle
	case l.err != nil:
		return l.err
	case ctx == nil:
		return core.ErrNilContext
	}
	return nil
}

func (l *Latch) check(ctx context.Context) error {
	if err := l.checkHandle(ctx); err != nil {
		return err
	}
	return l.rt.Check(ctx)
}

// wakePolicy is Redisson's CountDownLatchPubSub: "0" (the count reached
// zero) wakes every waiter; "1" (armed again, deleted) wakes nobody.
func wakePolicy(payload string) int {
	if payload == "0" {
		return hub.All
	}
	return 0
}

// TrySetCount arms the latch with count if it does not exist (is open),
// publishes "1" and reports true; it reports false and changes nothing if
// the latch is armed. count must be at least 1: Redisson would store 0 or a
// negative count, which waiters take for an open latch and the first
// count-down deletes without a message.
func (l *Latch) TrySetCount(ctx context.Context, count int64) (bool, error) {
	const op = "try set count"
	if err := l.check(ctx); err != nil {
		return false, l.fail(op, err)
	}
	if count < 1 {
		return false, l.fail(op, fmt.Errorf("%w: the count must be at least 1, got %d", core.ErrInvalidArgument, count))
	}
	res, _, err := l.rt.Run(ctx, trySetScript, core.RunOpts{}, []string{l.name, l.channel}, "1", count, l.rt.PublishCommand())
	if err != nil {
		return false, l.fail(op, l.explain(ctx, err))
	}
	return res == int64(1), nil
}

// CountDown decrements the count; the count-down that reaches zero deletes
// the latch and wakes every waiter. On an open latch it does nothing.
//
// Like a semaphore's release, it runs even when ctx is already done, on its
// own context bounded by the client's Timeout, so that a deferred
// CountDown is not lost with its caller's context. It is sent at most once
// (a second run could count down twice); when the reply is lost the error
// says so, and the count-down may have happened. When Redis refused it
// before running it (OOM, NOPERM, READONLY, ...) the error matches
// ErrReleaseRefused and says the count is unchanged, and counting down again is safe once Redis accepts; when
// the count reached zero but Redis refused the message that wakes the
// waiters, the error says the count-down happened.
func (l *Latch) CountDown(ctx context.Context) error {
	const op = "count down"
	if err := l.checkHandle(ctx); err != nil {
		return l.fail(op, err)
	}
	if err := l.rt.Check(context.Background()); err != nil {
		return l.fail(op, err)
	}
	dctx, cancel := l.rt.ForRelease(ctx)
	defer cancel()
	_, err := conns.Bounded(dctx, func(ctx context.Context) (any, error) {
		return countDownScript.RunNoRetry(ctx, l.rt.Redis(), []string{l.name, l.channel}, "0", l.rt.PublishCommand())
	})
	switch {
	case err == nil:
	case replies.Refused(err):
		err = core.Errorf(core.ErrReleaseRefused, "Redis refused the count-down before running it, so the count is unchanged; counting down again is safe once Redis accepts: %w", core.Permission(err))
	case core.NotSent(err):
		err = core.Errorf(core.ErrReleaseRefused, "the count-down was not sent, so the count is unchanged: %w", err)
	case replies.ChannelDenied(err):
		err = fmt.Errorf("the count-down happened and the count reached zero, but Redis refused the message on %s that wakes the waiters: %w", l.channel, core.Permission(err))
	case !isReply(err):
		err = fmt.Errorf("no reply to the count-down; it may have happened: %w", err)
	default:
		err = l.explain(dctx, core.Permission(err))
	}
	err = l.fail(op, err)
	l.rt.Events().CountDown(ctx, l.name, err)
	return err
}

// Count returns the remaining count, read on the master: 0 when the latch
// is open (does not exist).
func (l *Latch) Count(ctx context.Context) (int64, error) {
	const op = "count"
	if err := l.check(ctx); err != nil {
		return 0, l.fail(op, err)
	}
	n, err := l.count(ctx)
	return n, l.fail(op, err)
}

func (l *Latch) count(ctx context.Context) (int64, error) {
	res, _, err := l.rt.Run(ctx, getScript, core.RunOpts{}, []string{l.name})
	if err != nil {
		return 0, l.explain(ctx, err)
	}
	if res == nil {
		return 0, nil
	}
	s, _ := res.(string)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: the key holds the string %q, not a count", core.ErrWrongType, s)
	}
	return n, nil
}

// Delete deletes the latch, publishes "1" and reports whether there was a
// latch. Like Redisson's it deletes the key whatever it holds. The latch is
// then open, but "1" wakes nobody: Java waiters keep waiting for a "0",
// ours notice at their next periodic re-check (WatchdogTimeout).
func (l *Latch) Delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := l.check(ctx); err != nil {
		return false, l.fail(op, err)
	}
	res, _, err := l.rt.Run(ctx, deleteScript, core.RunOpts{}, []string{l.name, l.channel}, "1", l.rt.PublishCommand())
	if err != nil {
		return false, l.fail(op, err)
	}
	return res == int64(1), nil
}

// Option changes one Await call.
type Option func(*awaitOptions)

type awaitOptions struct {
	timeout    time.Duration
	hasTimeout bool
}

// WithTimeout bounds Await: it reports false (and no error) when the count
// has not reached zero within timeout (Redisson's await(time, unit)). 0
// checks once. A negative timeout is an error.
func WithTimeout(timeout time.Duration) Option {
	return func(o *awaitOptions) { o.timeout, o.hasTimeout = timeout, true }
}

// Await waits until the count reaches zero and reports true; at once when
// the latch is open (also when it was never armed, as in Redisson). Without
// WithTimeout it waits until ctx is done, which is an error; WithTimeout,
// running out of time reports false with a nil error.
func (l *Latch) Await(ctx context.Context, opts ...Option) (bool, error) {
	const op = "await"
	var o awaitOptions
	for _, opt := range opts {
		if opt != nil { // a nil option is ignored
			opt(&o)
		}
	}
	if err := l.check(ctx); err != nil {
		return false, l.fail(op, err)
	}
	if o.hasTimeout && o.timeout < 0 {
		return false, l.fail(op, fmt.Errorf("%w: the timeout must not be negative, got %v", core.ErrInvalidArgument, o.timeout))
	}
	var deadline time.Time
	if o.hasTimeout {
		deadline = time.Now().Add(o.timeout)
	}
	// Broadcast: every waiter is woken by "0", there is no wake-up to pass
	// on. Subscribed before a read, a waiter is woken by a "0" published
	// after it; one published before is seen as an absent key.
	waits := !o.hasTimeout || o.timeout > 0
	octx, ob := l.rt.Events().StartAcquire(ctx, "latch", l.name, waits, 0)
	ok, err := l.rt.Retry().Wait(octx, retry.WaitSpec{Channel: l.channel, Policy: wakePolicy, Deadline: deadline, Broadcast: true, Kind: "latch", Name: l.name, Observe: &ob},
		func(ctx context.Context) (bool, time.Time, error) {
			n, err := l.count(ctx)
			return err == nil && n <= 0, time.Time{}, err
		})
	err = l.fail(op, err)
	ob.End(ctx, ok, err, waits)
	return ok, err
}

// explain turns a failure that comes from what the key holds into an error
// saying what it holds.
func (l *Latch) explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, core.ErrWrongType) {
		return core.WrongTypeError(ctx, l.rt.Redis(), l.name, "string")
	}
	var re redis.Error
	if errors.As(err, &re) && strings.Contains(re.Error(), "not an integer") {
		tctx, cancel := l.rt.ForRelease(ctx)
		defer cancel()
		v, gerr := conns.Bounded(tctx, func(ctx context.Context) (string, error) {
			return l.rt.Redis().Get(ctx, l.name).Result()
		})
		if gerr == nil {
			return fmt.Errorf("%w: the key holds the string %q, not a count", core.ErrWrongType, v)
		}
	}
	return err
}

// isReply reports whether err is an answer from Redis; anything else leaves
// the command's outcome unknown.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re) || errors.Is(err, core.ErrWrongType)
}
