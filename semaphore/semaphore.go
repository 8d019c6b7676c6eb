// Package semaphore is Redisson's RSemaphore: a counting semaphore that Go
// and Java services share, to cap how many jobs run at once across a fleet.
//
// The semaphore is the string key <name> holding the number of available
// permits in decimal (absent: 0, not initialised). Acquiring decrements it
// when enough permits are there; releasing increments it and publishes the
// new total on redisson_sc:{name}, which wakes waiters of every client. The
// keys, scripts and messages are Redisson's (docs/protocol.md §8), so a Java
// service's RSemaphore of the same name is the same semaphore.
//
// Permits have no owner and no lease: anyone may release, and a permit that
// is never released is gone for good. AcquirePermits and TryAcquirePermits
// return a *Permits whose Release gives back exactly what was taken, once:
// prefer them to pairing Acquire and Release by hand.
//
// Counts are Java ints: permits must fit in an int32, as in Java. A count of
// 0 is allowed where Redisson allows it (acquiring or releasing 0 permits
// succeeds without a command); a negative count is ErrInvalidArgument except
// in AddPermits, which removes permits with it.
package semaphore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/replies"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/source"
)

// Semaphore is a handle on one named semaphore. It is cheap, holds no
// state besides its name and is safe for concurrent use. Get one from New
// or (*redisson.Client).Semaphore.
type Semaphore struct {
	rt      *core.Runtime
	name    string
	channel string
	err     error
}

// New returns the semaphore called name (Redisson's getSemaphore) of src's
// client. A nil or zero src gives a handle whose every call fails with
// ErrInvalidArgument.
func New(src *source.Source, name string) *Semaphore {
	return newSemaphore((*handle.Source)(src).Runtime(), name)
}

func newSemaphore(rt *core.Runtime, name string) *Semaphore {
	s := &Semaphore{rt: rt, name: name, channel: keys.SemaphoreChannel(name)}
	// The permit-expirable semaphore's timeout key, {name}:timeout, is
	// derived as the channel is: it hashes like the channel.
	s.err = core.CheckName(name, s.channel)
	return s
}

// Name returns the semaphore's name, which is also its key; "" for a nil
// handle.
func (s *Semaphore) Name() string {
	if s == nil {
		return ""
	}
	return s.name
}

// fail names the semaphore and the operation in err.
func (s *Semaphore) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var name string
	if s != nil {
		name = s.name
	}
	return &core.ObjectError{Kind: "semaphore", Name: name, Op: op, Err: err}
}

// checkHandle returns why the handle cannot be used at all (nil, a bad
// name) or ctx is unusable (nil), without looking at the client or at
// ctx's end: releases run after both.
func (s *Semaphore) checkHandle(ctx context.Context) error {
	switch {
	case s == nil || s.rt == nil:
		return core.ErrNilHandle
	case s.err != nil:
		return s.err
	case ctx == nil:
		return core.ErrNilContext
	}
	return nil
}

// check returns the handle's own error (nil, a bad name), ErrClosed, or
// ctx's.
func (s *Semaphore) check(ctx context.Context) error {
	if err := s.checkHandle(ctx); err != nil {
		return err
	}
	return s.rt.Check(ctx)
}

// checkPermits validates a count of permits: Java's int, and not negative
// unless negative is allowed.
func checkPermits(n int, negative bool) error {
	switch {
	case n < 0 && !negative:
		return fmt.Errorf("%w: permits must not be negative, got %d", core.ErrInvalidArgument, n)
	case n > math.MaxInt32 || n < math.MinInt32:
		return fmt.Errorf("%w: permits must fit in a Java int, got %d", core.ErrInvalidArgument, n)
	}
	return nil
}

// SetOption changes one TrySetPermits call.
type SetOption func(*setOptions)

type setOptions struct {
	ttl    time.Duration
	hasTTL bool
}

// WithTTL makes TrySetPermits give the semaphore's key a time to live
// (Redisson's trySetPermits(permits, ttl)): the semaphore vanishes ttl
// after it is set, unless AddPermits, SetPermits or DrainPermits, which SET
// the key and so clear its TTL as in Java, come first. Acquire and Release
// keep it. ttl must be at least 1ms.
func WithTTL(ttl time.Duration) SetOption {
	return func(o *setOptions) { o.ttl, o.hasTTL = ttl, true }
}

// TrySetPermits initialises the semaphore with permits available if it does
// not exist, publishes the count (waking waiters) and reports true; it
// reports false and changes nothing if it exists. permits must not be
// negative: a semaphore cannot start in debt (and Java waiters' listener
// throws on a negative message).
func (s *Semaphore) TrySetPermits(ctx context.Context, permits int, opts ...SetOption) (bool, error) {
	const op = "try set permits"
	var o setOptions
	for _, opt := range opts {
		if opt != nil { // a nil option is ignored
			opt(&o)
		}
	}
	if err := s.check(ctx); err != nil {
		return false, s.fail(op, err)
	}
	if err := checkPermits(permits, false); err != nil {
		return false, s.fail(op, err)
	}
	args := []any{permits, s.rt.PublishCommand()}
	if o.hasTTL {
		if o.ttl < time.Millisecond {
			return false, s.fail(op, fmt.Errorf("%w: the TTL must be at least 1ms, got %v", core.ErrInvalidArgument, o.ttl))
		}
		args = append(args, o.ttl.Milliseconds())
	}
	// Sent with retries, as Redisson does: a second run after a lost reply
	// changes nothing (and answers false).
	res, _, err := s.rt.Run(ctx, trySetScript, core.RunOpts{Synced: true}, []string{s.name, s.channel}, args...)
	if err != nil {
		return false, s.fail(op, s.explain(ctx, err))
	}
	return res == int64(1), nil
}

// AddPermits adds delta permits, or removes -delta with a negative delta
// (the count may go below zero), and publishes the new total, as Redisson's
// addPermits does: with a SET, so the key loses any TTL. The semaphore is
// created if it did not exist. A total a Java int cannot hold is refused
// with ErrInvalidArgument, atomically, and nothing is changed: Java peers
// read the count as an int.
//
// It is sent at most once: a retry after a lost reply could add twice.
// When the reply is lost the error says so and the change may have been
// made.
func (s *Semaphore) AddPermits(ctx context.Context, delta int) error {
	const op = "add permits"
	if err := s.check(ctx); err != nil {
		return s.fail(op, err)
	}
	if err := checkPermits(delta, true); err != nil {
		return s.fail(op, err)
	}
	_, _, err := s.rt.Run(ctx, addScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name, s.channel}, delta, s.rt.PublishCommand())
	if rerr := outOfRangeError(err, delta); rerr != nil {
		return s.fail(op, rerr)
	}
	return s.fail(op, s.explain(ctx, err))
}

// outOfRangeError returns the error of an add the script refused because
// the total would not fit in a Java int (nothing was written), nil for any
// other err.
func outOfRangeError(err error, delta int) error {
	var re redis.Error
	if !errors.As(err, &re) {
		return nil
	}
	total, ok := strings.CutPrefix(re.Error(), outOfRangeReply)
	if !ok {
		return nil
	}
	return fmt.Errorf("%w: adding %d would leave %s permits, which a Java int cannot hold; nothing was changed", core.ErrInvalidArgument, delta, total)
}

// SetPermits sets the available permits to permits whatever they were
// (clearing any TTL) and publishes the count. Redisson's RSemaphore has no
// setPermits; Java peers see what its trySetPermits does when it sets.
// Permits taken before are not accounted for: their later release adds to
// the new count.
func (s *Semaphore) SetPermits(ctx context.Context, permits int) error {
	const op = "set permits"
	if err := s.check(ctx); err != nil {
		return s.fail(op, err)
	}
	if err := checkPermits(permits, false); err != nil {
		return s.fail(op, err)
	}
	_, _, err := s.rt.Run(ctx, setScript, core.RunOpts{Synced: true}, []string{s.name, s.channel}, permits, s.rt.PublishCommand())
	return s.fail(op, s.explain(ctx, err))
}

// AvailablePermits returns the number of available permits, read on the
// master; 0 when the semaphore does not exist. It may be negative after
// AddPermits with a negative delta.
func (s *Semaphore) AvailablePermits(ctx context.Context) (int, error) {
	const op = "available permits"
	if err := s.check(ctx); err != nil {
		return 0, s.fail(op, err)
	}
	res, _, err := s.rt.Run(ctx, getScript, core.RunOpts{}, []string{s.name})
	if err != nil {
		return 0, s.fail(op, s.explain(ctx, err))
	}
	n, err := s.number(ctx, res)
	return n, s.fail(op, err)
}

// DrainPermits takes every available permit and returns how many there
// were (0 when the semaphore does not exist). It publishes nothing, as in
// Java, and the key loses any TTL.
func (s *Semaphore) DrainPermits(ctx context.Context) (int, error) {
	const op = "drain permits"
	if err := s.check(ctx); err != nil {
		return 0, s.fail(op, err)
	}
	res, _, err := s.rt.Run(ctx, drainScript, core.RunOpts{Synced: true}, []string{s.name})
	if err != nil {
		return 0, s.fail(op, s.explain(ctx, err))
	}
	n, err := s.number(ctx, res)
	return n, s.fail(op, err)
}

// Delete deletes the semaphore's key and reports whether it existed (a
// plain DEL, as Redisson's delete: nothing is published, so waiters keep
// waiting for a release or TrySetPermits).
func (s *Semaphore) Delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := s.check(ctx); err != nil {
		return false, s.fail(op, err)
	}
	n, err := conns.Bounded(ctx, func(ctx context.Context) (int64, error) {
		return s.rt.Redis().Del(ctx, s.name).Result()
	})
	if err != nil {
		return false, s.fail(op, err)
	}
	return n == 1, nil
}

// Release gives permits back to the semaphore (creating it if absent) and
// publishes the new total, which wakes waiters. Releasing 0 permits sends
// nothing.
//
// Release runs even when ctx is already done, and after the client is
// closed (while its go-redis client is open), on its own context bounded by
// the client's Timeout: a permit not given back is lost for good, so the
// usual "defer sem.Release(ctx, 1)" must not depend on ctx. It is sent at
// most once: a retry after a lost reply could create permits. When the
// reply is lost the error says so, and the permits may not have been given
// back. When Redis refused the release before running it (OOM, NOPERM,
// READONLY, ...), the error matches ErrReleaseRefused and says nothing was
// given back, and the same Release may be made again.
func (s *Semaphore) Release(ctx context.Context, permits int) error {
	const op = "release"
	if err := s.checkHandle(ctx); err != nil {
		return s.fail(op, err)
	}
	if err := checkPermits(permits, false); err != nil {
		return s.fail(op, err)
	}
	if permits == 0 {
		return nil
	}
	return s.fail(op, s.release(ctx, permits))
}

// release runs the release script on a context of its own.
func (s *Semaphore) release(ctx context.Context, n int) error {
	dctx, cancel := s.rt.ForRelease(ctx)
	defer cancel()
	err := s.releaseOn(dctx, n)
	if err == nil {
		s.rt.Permits().Gave(s.name, n, "")
		s.rt.Events().Permits(ctx, "semaphore", s.name, observe.PermitsReleased, int64(n))
	}
	return err
}

// releaseOn runs the release script on dctx, a context bounded by the
// client's timeout.
func (s *Semaphore) releaseOn(dctx context.Context, n int) error {
	_, _, err := s.rt.Run(dctx, releaseScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name, s.channel}, n, s.rt.PublishCommand())
	switch {
	case err == nil:
		// A release that reached the master is not undone when no
		// replica acknowledged it: undoing would take permits from
		// whoever is waiting.
		return nil
	case replies.Refused(err):
		return core.Errorf(core.ErrReleaseRefused, "Redis refused the release of %d permits before running it, so none were given back; releasing them again is safe once Redis accepts: %w", n, core.Permission(err))
	case core.NotSent(err):
		return core.Errorf(core.ErrReleaseRefused, "the release of %d permits was not sent, so none were given back; releasing them again is safe: %w", n, err)
	case replies.ChannelDenied(err):
		return fmt.Errorf("the %d permits were given back, but Redis refused the message on %s that wakes waiters: %w", n, s.channel, core.Permission(err))
	case !isReply(err):
		return fmt.Errorf("no reply to the release of %d permits; they may not have been given back: %w", n, err)
	}
	return s.explain(dctx, core.Permission(err))
}

// number reads a script's integer reply: an integer, a decimal string, or
// nil for an absent key (0).
func (s *Semaphore) number(ctx context.Context, res any) (int, error) {
	switch v := res.(type) {
	case nil:
		return 0, nil
	case int64:
		return int(v), nil
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: the key holds the string %q, not a number of permits", core.ErrWrongType, v)
		}
		return int(n), nil
	}
	return 0, fmt.Errorf("unexpected reply %T %v", res, res)
}

// explain turns a failure that comes from what the key holds into an error
// saying what it holds: another Redis type (WRONGTYPE), or a string that is
// not a whole number (our scripts' error reply, or Redis' own).
func (s *Semaphore) explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, core.ErrWrongType) {
		return core.WrongTypeError(ctx, s.rt.Redis(), s.name, "string")
	}
	var re redis.Error
	if !errors.As(err, &re) {
		return err
	}
	tctx, cancel := s.rt.ForRelease(ctx)
	defer cancel()
	v, gerr := conns.Bounded(tctx, func(ctx context.Context) (string, error) {
		return s.rt.Redis().Get(ctx, s.name).Result()
	})
	if gerr == nil {
		if _, perr := strconv.ParseInt(v, 10, 64); perr != nil {
			return fmt.Errorf("%w: the key holds the string %q, not a number of permits", core.ErrWrongType, v)
		}
	}
	return err
}

// isReply reports whether err is an answer from Redis, so that the command
// certainly ran or certainly failed; anything else (a network error, a
// timeout) leaves its outcome unknown.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re) || errors.Is(err, core.ErrWrongType)
}
