// Package ratelimit is Redisson's RRateLimiter: a sliding-window rate
// limiter that Go and Java services share, to cap how often a fleet calls
// something.
//
// A limiter of name N grants at most Rate permits in any window of
// Interval. Its config is the hash N {rate, interval, type, keepAliveTime};
// the permits left in the window are the string {N}:value and the grants
// the zset {N}:permits (with ":<client id>" appended to both for
// PerClient, where each client has a window of its own). Keys, members and
// scripts are Redisson 3.52's (docs/protocol.md §13.2), so a Java RRateLimiter of
// the same name is the same limiter. Grants are scored with the granting
// client's clock: the clients' clocks must agree to well within Interval.
//
// The limiter uses no pub/sub: a waiting Acquire sleeps for the time the
// script says the oldest grant needs to leave the window, and tries again.
package ratelimit

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
	"github.com/goredisson/redisson/internal/replies"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/source"
)

var (
	// ErrNotInitialized is returned by calls on a limiter that has no rate
	// set (no config hash): Redisson's "RateLimiter is not initialized".
	ErrNotInitialized = errors.New("no rate is set (TrySetRate or SetRate sets one)")
	// ErrExceedsRate is returned for a request of more permits than the
	// rate, which could never be granted. It wraps ErrInvalidArgument.
	ErrExceedsRate = fmt.Errorf("%w: requested permits exceed the rate", core.ErrInvalidArgument)
)

// RateType says whose window the rate applies to.
type RateType int

const (
	// Overall: one window shared by every client (Redisson's OVERALL).
	Overall RateType = 0
	// PerClient: a window per client, so each client (each Redisson or
	// redisson-go Client, not each goroutine) gets the full rate
	// (Redisson's PER_CLIENT).
	PerClient RateType = 1
)

// String returns Redisson's name of the type.
func (t RateType) String() string {
	switch t {
	case Overall:
		return "OVERALL"
	case PerClient:
		return "PER_CLIENT"
	}
	return "RateType(" + strconv.Itoa(int(t)) + ")"
}

// Config is a limiter's configuration.
type Config struct {
	Type     RateType
	Rate     int64         // permits per Interval
	Interval time.Duration // the window, in whole milliseconds
	// KeepAlive, when not zero, is how long the limiter's keys live after
	// their last use (Redisson 3.38+'s keepAliveTime).
	KeepAlive time.Duration
}

// Limiter is a handle on one named rate limiter. It is cheap, holds no
// state besides its name and is safe for concurrent use. Get one from New
// or (*redisson.Client).RateLimiter.
type Limiter struct {
	rt   *core.Runtime
	name string
	keys []string // N, value, client value, permits, client permits
	err  error
}

// New returns the rate limiter called name (Redisson's getRateLimiter) of
// src's client. A nil or zero src gives a handle whose every call fails
// with ErrInvalidArgument.
func New(src *source.Source, name string) *Limiter {
	rt := (*handle.Source)(src).Runtime()
	l := &Limiter{rt: rt, name: name}
	if rt == nil {
		return l
	}
	value, permits := keys.RateLimiterValue(name), keys.RateLimiterPermits(name)
	l.keys = []string{name, value, value + ":" + rt.ID(), permits, permits + ":" + rt.ID()}
	l.err = core.CheckName(name, l.keys[1:]...)
	return l
}

// Name returns the limiter's name, which is also its config hash's key;
// "" for a nil handle.
func (l *Limiter) Name() string {
	if l == nil {
		return ""
	}
	return l.name
}

func (l *Limiter) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: "rate limiter", Name: l.Name(), Op: op, Err: err}
}

func (l *Limiter) check(ctx context.Context) error {
	switch {
	case l == nil || l.rt == nil:
		return core.ErrNilHandle
	case l.err != nil:
		return l.err
	}
	return l.rt.Check(ctx)
}

// SetOption changes one TrySetRate or SetRate call.
type SetOption func(*setOptions)

type setOptions struct{ keepAlive time.Duration }

// WithKeepAlive makes the limiter's keys expire keepAlive after their last
// use, so that an idle limiter cleans up after itself (Redisson 3.38+'s
// keepAliveTime). It must be at least the interval. The zero value, the
// default, keeps the keys for good.
func WithKeepAlive(keepAlive time.Duration) SetOption {
	return func(o *setOptions) { o.keepAlive = keepAlive }
}

// args validates a rate and returns the scripts' ARGV.
func rateArgs(typ RateType, rate int64, interval time.Duration, opts []SetOption) ([]any, error) {
	var o setOptions
	for _, opt := range opts {
		if opt != nil { // a nil option is ignored
			opt(&o)
		}
	}
	switch {
	case typ != Overall && typ != PerClient:
		return nil, fmt.Errorf("%w: unknown rate type %d", core.ErrInvalidArgument, int(typ))
	case rate <= 0:
		return nil, fmt.Errorf("%w: the rate must be positive, got %d", core.ErrInvalidArgument, rate)
	case interval < time.Millisecond:
		return nil, fmt.Errorf("%w: the interval must be at least 1ms, got %v", core.ErrInvalidArgument, interval)
	case o.keepAlive < 0 || (o.keepAlive != 0 && o.keepAlive.Milliseconds() < interval.Milliseconds()):
		return nil, fmt.Errorf("%w: the keep-alive time must be zero or at least the interval, got %v", core.ErrInvalidArgument, o.keepAlive)
	}
	return []any{rate, interval.Milliseconds(), int(typ), o.keepAlive.Milliseconds()}, nil
}

// TrySetRate sets the limiter's config if it has none and reports true; it
// reports false and changes nothing if a config exists.
func (l *Limiter) TrySetRate(ctx context.Context, typ RateType, rate int64, interval time.Duration, opts ...SetOption) (bool, error) {
	const op = "try set rate"
	if err := l.check(ctx); err != nil {
		return false, l.fail(op, err)
	}
	args, err := rateArgs(typ, rate, interval, opts)
	if err != nil {
		return false, l.fail(op, err)
	}
	// At most once, as Redisson sends it: a second run after a lost reply
	// would answer false for the config it set.
	res, _, err := l.rt.Run(ctx, trySetScript, core.RunOpts{Synced: true, NoRetry: true}, l.keys[:1], args...)
	if err != nil {
		return false, l.fail(op, l.explain(ctx, err))
	}
	return res == int64(1), nil
}

// SetRate overwrites the config and starts a fresh window: it deletes the
// permits left and the grants of the new type's window (for PerClient this
// client's only; other clients keep theirs until they call SetRate), as
// Redisson's setRate does.
func (l *Limiter) SetRate(ctx context.Context, typ RateType, rate int64, interval time.Duration, opts ...SetOption) error {
	const op = "set rate"
	if err := l.check(ctx); err != nil {
		return l.fail(op, err)
	}
	args, err := rateArgs(typ, rate, interval, opts)
	if err != nil {
		return l.fail(op, err)
	}
	_, _, err = l.rt.Run(ctx, setScript, core.RunOpts{}, l.keys, args...)
	return l.fail(op, l.explain(ctx, err))
}

// Config returns the limiter's config; ErrNotInitialized when it has none
// (where Redisson's getConfig returns OVERALL with rate and interval 0). A
// config key of another type, or a field holding no integer, is an error
// wrapping ErrWrongType that names it; so is another kind's hash (none of
// the config's fields), whose error says what it holds.
func (l *Limiter) Config(ctx context.Context) (Config, error) {
	const op = "config"
	if err := l.check(ctx); err != nil {
		return Config{}, l.fail(op, err)
	}
	h, err := conns.Bounded(ctx, func(ctx context.Context) (map[string]string, error) {
		return l.rt.Redis().HGetAll(ctx, l.name).Result()
	})
	if err != nil {
		return Config{}, l.fail(op, l.explain(ctx, err))
	}
	if len(h) == 0 {
		return Config{}, l.fail(op, ErrNotInitialized)
	}
	if !hasConfigField(h) {
		return Config{}, l.fail(op, core.WrongKind(core.HashKind(h), core.KindRateLimiter))
	}
	var c Config
	// perr keeps the first bad field, in the order pick checks them, so
	// that Config and the scripts name the same one.
	var perr error
	num := func(f string) int64 {
		n, err := strconv.ParseInt(h[f], 10, 64)
		if err != nil && h[f] != "" && perr == nil {
			perr = badField(f, h[f])
		}
		return n
	}
	c.Type = RateType(num("type"))
	c.Rate = num("rate")
	c.Interval = time.Duration(num("interval")) * time.Millisecond
	c.KeepAlive = time.Duration(num("keepAliveTime")) * time.Millisecond
	return c, l.fail(op, perr)
}

// hasConfigField reports whether a hash has any of a limiter config's
// fields; one with none is another kind's (the scripts' fragments pick
// and config_owned decide the same way).
func hasConfigField(h map[string]string) bool {
	for _, f := range []string{"rate", "interval", "type", "keepAliveTime"} {
		if _, ok := h[f]; ok {
			return true
		}
	}
	return false
}

// AvailablePermits returns the permits left in this client's window, after
// adding back those of grants that left it. It may exceed the rate after
// Release, as in Redisson (the next acquire clamps it).
func (l *Limiter) AvailablePermits(ctx context.Context) (int64, error) {
	const op = "available permits"
	if err := l.check(ctx); err != nil {
		return 0, l.fail(op, err)
	}
	res, _, err := l.rt.Run(ctx, availableScript, core.RunOpts{}, l.keys, nowMS())
	if err != nil {
		return 0, l.fail(op, l.explain(ctx, err))
	}
	if err := fault(res); err != nil {
		return 0, l.fail(op, err)
	}
	n, _ := res.(int64)
	return n, nil
}

// Release gives permits back to the window, up to the rate; the grants
// stay, so they still count when the window is recomputed (Redisson 3.52's
// release). 0 permits sends nothing.
//
// It is sent at most once: when the reply is lost the error says the
// permits may have been given back. When Redis refused it before running it
// (OOM, NOPERM, READONLY, ...), the error matches ErrReleaseRefused and says
// nothing was given back, and
// releasing again is safe once Redis accepts.
func (l *Limiter) Release(ctx context.Context, permits int64) error {
	const op = "release"
	if err := l.check(ctx); err != nil {
		return l.fail(op, err)
	}
	if permits < 0 {
		return l.fail(op, fmt.Errorf("%w: permits must not be negative, got %d", core.ErrInvalidArgument, permits))
	}
	if permits == 0 {
		return nil
	}
	// At most once: a second run after a lost reply would give back twice.
	res, _, err := l.rt.Run(ctx, releaseScript, core.RunOpts{Synced: true, NoRetry: true}, l.keys, permits)
	switch {
	case err == nil:
		return l.fail(op, fault(res))
	case replies.Refused(err):
		err = core.Errorf(core.ErrReleaseRefused, "Redis refused the release of %d permits before running it, so none were given back; releasing them again is safe once Redis accepts: %w", permits, core.Permission(err))
	case core.NotSent(err):
		err = core.Errorf(core.ErrReleaseRefused, "the release of %d permits was not sent, so none were given back: %w", permits, err)
	case core.Transport(err):
		err = fmt.Errorf("no reply to the release of %d permits; they may have been given back: %w", permits, err)
	default:
		err = l.explain(ctx, core.Permission(err))
	}
	return l.fail(op, err)
}

// Delete deletes the config and this client's state (and the shared
// window's), and reports whether any key existed. Other clients' PerClient
// windows stay until they expire or those clients delete them, as in
// Redisson.
func (l *Limiter) Delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := l.check(ctx); err != nil {
		return false, l.fail(op, err)
	}
	res, _, err := l.rt.Run(ctx, deleteScript, core.RunOpts{}, l.keys)
	if err != nil {
		return false, l.fail(op, l.explain(ctx, err))
	}
	n, _ := res.(int64)
	return n > 0, nil
}

// Expire gives the config and this client's keys a time to live and reports
// whether any key existed. Without a keep-alive time, each acquire copies
// the config's TTL to the window's keys.
func (l *Limiter) Expire(ctx context.Context, ttl time.Duration) (bool, error) {
	const op = "expire"
	if err := l.check(ctx); err != nil {
		return false, l.fail(op, err)
	}
	if ttl < time.Millisecond {
		return false, l.fail(op, fmt.Errorf("%w: the TTL must be at least 1ms, got %v", core.ErrInvalidArgument, ttl))
	}
	res, _, err := l.rt.Run(ctx, expireScript, core.RunOpts{}, l.keys, ttl.Milliseconds())
	if err != nil {
		return false, l.fail(op, err)
	}
	return res == int64(1), nil
}

// explain turns the scripts' assertion errors and a key of another type
// into this package's errors. A refusal of another kind's hash already says
// what it holds.
func (l *Limiter) explain(ctx context.Context, err error) error {
	if err == nil || core.IsKindError(err) {
		return err
	}
	var re redis.Error
	switch {
	case errors.Is(err, core.ErrWrongType):
		return l.configWrongType(ctx)
	case !errors.As(err, &re):
		return err
	case strings.HasPrefix(re.Error(), "WRONGTYPE"):
		return l.configWrongType(ctx)
	case strings.Contains(err.Error(), "RateLimiter is not initialized"):
		return ErrNotInitialized
	case strings.Contains(err.Error(), "cannot exceed defined rate"):
		return ErrExceedsRate
	}
	return err
}

// configWrongType names what the config key holds when a command on it
// failed with WRONGTYPE: the scripts check the state keys themselves (see
// pick), so a WRONGTYPE that reaches here comes from the config key. The
// type is read after the failure, so a key changed in between makes the
// message vaguer, never wrong about the sentinel.
func (l *Limiter) configWrongType(ctx context.Context) error {
	tctx, cancel := l.rt.ForRelease(ctx)
	defer cancel()
	typ, err := conns.Bounded(tctx, func(ctx context.Context) (string, error) {
		return l.rt.Redis().Type(ctx, l.name).Result()
	})
	if err != nil || typ == "hash" || typ == "none" {
		return fmt.Errorf("%w: %s holds another type than a hash", core.ErrWrongType, l.name)
	}
	return fmt.Errorf("%w: %s holds a %s, not a hash", core.ErrWrongType, l.name, typ)
}

// fault returns the error a script's refusal reply stands for, nil for any
// other reply. The refusals are {'key', key, its type, the type wanted},
// {'field', config field, its value} and {'value', value key, its value}.
func fault(res any) error {
	r, ok := res.([]any)
	if !ok {
		return nil
	}
	s := make([]string, len(r))
	for i, v := range r {
		s[i], _ = v.(string)
	}
	switch {
	case len(s) == 4 && s[0] == "key":
		return fmt.Errorf("%w: %s holds a %s, not a %s", core.ErrWrongType, s[1], s[2], s[3])
	case len(s) == 3 && s[0] == "field":
		return badField(s[1], s[2])
	case len(s) == 3 && s[0] == "value":
		return fmt.Errorf("%w: %s holds %q, not a number of permits", core.ErrWrongType, s[1], s[2])
	}
	return fmt.Errorf("unexpected reply %v", res)
}

// badField is the error for a config field that holds no integer, the same
// from Config and from the scripts.
func badField(field, value string) error {
	return fmt.Errorf("%w: the field %s holds %q", core.ErrWrongType, field, value)
}

// nowMS is the clock grants are scored with: ms since the epoch, as Java's
// System.currentTimeMillis, which Java peers compare with the same scores.
func nowMS() int64 { return time.Now().UnixMilli() }
