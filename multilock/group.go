package multilock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/source"
)

// Group is Redisson's group multi-lock (RedissonFasterMultiLock, from
// getMultiLock(group, values)): many values of one group locked atomically
// in one hash, one round trip per acquisition however many values. Get one
// from NewGroup or (*redisson.Client).MultiLockGroup. It is cheap and safe for
// concurrent use: who holds the values is decided by holds, not by the
// handle.
//
// The group's hash G holds, for each value, its field id (keys.GroupMultiLockField of the
// value's bytes, here the string's UTF-8 bytes: Redisson's StringCodec) =
// the owner, and the owner's expiry (client wall-clock ms) and hold count;
// G's TTL is the longest lease. Owners holding different values of one
// group do not exclude each other. Waiters sleep on
// redisson_lock__channel:{G}, the channel of an RLock named G.
//
// A value counts as free once its owner's expiry, written by the owner's
// clock, is before the acquirer's clock: the group multi-lock needs the
// clocks of its clients (Go and Java) to agree to well within the hold's
// safety margin (1% of the lease + LeaseMargin + 10ms), unlike the other
// locks, whose leases are Redis TTLs.
type Group struct {
	l           *engine.Lock
	rt          *core.Runtime
	name        string
	channel     string
	latchPrefix string
	values      []string
	fields      []string
	err         error
}

// fieldSep separates the owner field from the value list in the engine's
// owner identity "<client id>:<owner>|f1,f2,...": holds of one owner on
// different value sets of a group are different holds. Neither the owner
// field nor a Base64 field id contains it or ','.
const fieldSep = "|"

// NewGroup returns the group multi-lock of values in group (Redisson's
// getMultiLock(group, values)) of src's client; see
// (*redisson.Client).MultiLockGroup. It panics for a nil or zero src.
func NewGroup(src *source.Source, group string, values ...string) *Group {
	e := (*handle.Source)(src).LockEngine("multilock.NewGroup")
	rt := e.Runtime()
	g := &Group{
		rt:          rt,
		name:        group,
		channel:     keys.LockChannel(group),
		latchPrefix: keys.UnlockLatchPrefix(group) + ":",
		values:      append([]string(nil), values...),
	}
	seen := make(map[string]int, len(values))
	for i, v := range values {
		f := keys.GroupMultiLockField([]byte(v))
		if j, dup := seen[f]; dup && g.err == nil {
			g.err = fmt.Errorf("%w: values %d and %d are the same value %q", core.ErrInvalidArgument, j+1, i+1, v)
		}
		seen[f] = i
		g.fields = append(g.fields, f)
	}
	if len(values) == 0 {
		g.err = fmt.Errorf("%w: a group multi-lock needs at least one value", core.ErrInvalidArgument)
	}
	g.l = e.Lock(engine.Config{
		Kind:        "group multi-lock",
		Name:        group,
		Channel:     g.channel,
		Derived:     []string{g.latchPrefix},
		FieldSuffix: fieldSep + strings.Join(g.fields, ","),
		// Waiters of one group may wait for different values: an unlock
		// wakes them all (Redisson wakes one, which may leave a waiter
		// whose values were freed asleep until the holder's expiry).
		Policy:  func(string) int { return hub.All },
		Renew:   groupRenewal{rt: rt},
		HandOff: false, // a hand-off needs the same value set on both sides
		// The owner's holds on other value sets share the values' counts:
		// an acquire with a lost reply is not undone while any exists.
		Overlaps: func(field string) bool {
			owner, _, _ := strings.Cut(field, fieldSep)
			return rt.Holds().HoldingLike(group, owner+fieldSep, field)
		},
		Scripts: &groupScripts{g: g},
	})
	return g
}

// Name returns the group's name (its Redis key).
func (g *Group) Name() string { return g.name }

// Values returns the values the handle locks.
func (g *Group) Values() []string { return append([]string(nil), g.values...) }

// FieldIDs returns the hash field ids of the values, in the same order.
func (g *Group) FieldIDs() []string { return append([]string(nil), g.fields...) }

func (g *Group) check(ctx context.Context, op string) error {
	if err := g.l.Check(ctx); err != nil {
		return g.l.Err(op, err)
	}
	if g.err != nil {
		return g.l.Err(op, g.err)
	}
	return nil
}

// GroupHold is one acquisition of a group's values: a locks.Hold, whose
// Unlock releases this hold of every value (the owner's last hold of a
// value frees it, and an unlock message wakes the group's waiters). A lost
// hold's Done is closed before the values' expiry can have passed, by this
// process's clock.
type GroupHold = locks.Hold

// Lock waits until every value is acquired or ctx is done, and returns the
// hold (Redisson's lock(), the waiting acquire script). ctx only bounds the
// wait. WithLease and WithOwner apply; WithWait is an error.
func (g *Group) Lock(ctx context.Context, opts ...Option) (*GroupHold, error) {
	if g.err != nil {
		return nil, g.l.Err("lock", g.err)
	}
	return lockkit.Lock(ctx, g.l, new(GroupHold), opts, lockkit.Rules{})
}

// TryLock takes every value at once or none: once (Redisson's tryLock(),
// the try-once script), or WithWait until the wait runs out (tryLock(wait),
// the waiting script). It reports false (and no error) when some value
// stayed held by another owner; ctx being done is an error.
func (g *Group) TryLock(ctx context.Context, opts ...Option) (*GroupHold, bool, error) {
	if g.err != nil {
		return nil, false, g.l.Err("try lock", g.err)
	}
	return lockkit.TryLock(ctx, g.l, new(GroupHold), opts, lockkit.Rules{})
}

// ForceUnlock frees the handle's values whoever holds them and publishes
// the unlock message (Redisson's forceUnlock). It reports whether any
// value was held. Holds of this client on the group end with ErrLockLost
// (all of them, also on other values: the client keeps no index by value).
// Another kind's hash under the group's name (a lock's, a read-write
// lock's, a rate limiter's) is left alone, nothing is published, and the
// error wraps ErrWrongType and says what the key holds.
func (g *Group) ForceUnlock(ctx context.Context) (bool, error) {
	if err := g.check(ctx, "force unlock"); err != nil {
		return false, err
	}
	args := make([]any, 0, 2+len(g.fields))
	args = append(args, "0", g.rt.PublishCommand())
	for _, f := range g.fields {
		args = append(args, f)
	}
	res, _, err := g.rt.Run(ctx, groupForceUnlockScript, core.RunOpts{}, []string{g.name, g.channel}, args...)
	if err != nil {
		return false, g.l.Err("force unlock", g.typed(ctx, err))
	}
	n, _ := res.(int64)
	g.l.Lost()
	return n > 0, nil
}

// IsLocked reports whether any of the handle's values is held by anyone
// whose expiry has not passed (Redisson's isLocked).
func (g *Group) IsLocked(ctx context.Context) (bool, error) {
	if err := g.check(ctx, "is locked"); err != nil {
		return false, err
	}
	args := make([]any, 0, 1+len(g.fields))
	args = append(args, time.Now().UnixMilli())
	for _, f := range g.fields {
		args = append(args, f)
	}
	res, _, err := g.rt.Run(ctx, groupIsLockedScript, core.RunOpts{}, []string{g.name}, args...)
	if err != nil {
		return false, g.l.Err("is locked", g.typed(ctx, err))
	}
	return res == int64(1), nil
}

// IsHeldByOwner reports whether owner holds every one of the handle's
// values through this client (Redisson's isHeldByThread, which skips the
// first value; this checks all).
func (g *Group) IsHeldByOwner(ctx context.Context, owner int64) (bool, error) {
	if err := g.check(ctx, "is held by owner"); err != nil {
		return false, err
	}
	args := make([]any, 0, 2+len(g.fields))
	args = append(args, time.Now().UnixMilli(), core.OwnerField(g.rt.ID(), owner))
	for _, f := range g.fields {
		args = append(args, f)
	}
	res, _, err := g.rt.Run(ctx, groupIsHeldScript, core.RunOpts{}, []string{g.name}, args...)
	if err != nil {
		return false, g.l.Err("is held by owner", g.typed(ctx, err))
	}
	return res == int64(1), nil
}

// typed names the type in the way when a command met another type than a
// hash; a refusal of another kind's hash already says what it holds.
func (g *Group) typed(ctx context.Context, err error) error {
	if errors.Is(err, core.ErrWrongType) && !core.IsKindError(err) {
		return core.WrongTypeError(ctx, g.rt.Redis(), g.name, "hash")
	}
	return err
}

// groupScripts runs the group's scripts for the engine. The engine's owner
// field is "<client id>:<owner>|f1,f2,..."; the scripts send the part
// before fieldSep as the owner and the handle's field ids as the values.
type groupScripts struct{ g *Group }

func (s *groupScripts) owner(field string) string {
	owner, _, _ := strings.Cut(field, fieldSep)
	return owner
}

func (s *groupScripts) args(first ...any) []any {
	args := make([]any, 0, len(first)+len(s.g.fields))
	args = append(args, first...)
	for _, f := range s.g.fields {
		args = append(args, f)
	}
	return args
}

// Acquire runs the try-once script (engine.Scripts).
func (s *groupScripts) Acquire(ctx context.Context, field string, lease time.Duration) (engine.AcquireReply, error) {
	g := s.g
	res, sync, err := g.rt.Run(ctx, groupTryScript, core.RunOpts{Synced: true, NoRetry: true}, []string{g.name},
		s.args(time.Now().UnixMilli(), lease.Milliseconds(), s.owner(field))...)
	if err != nil {
		return engine.AcquireReply{Sync: sync}, err
	}
	return engine.AcquireReply{OK: res == int64(1), Sync: sync}, nil
}

// AcquireQueued runs the waiting script (engine.QueueScripts): the group
// has no queue, but a waiting acquisition uses Redisson's waiting variant,
// which answers how long the values stay held.
func (s *groupScripts) AcquireQueued(ctx context.Context, field string, lease, _ time.Duration) (engine.AcquireReply, error) {
	g := s.g
	res, sync, err := g.rt.Run(ctx, groupAcquireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{g.name},
		s.args(lease.Milliseconds(), time.Now().UnixMilli(), s.owner(field))...)
	if err != nil {
		return engine.AcquireReply{Sync: sync}, err
	}
	if res == nil {
		return engine.AcquireReply{OK: true, Sync: sync}, nil
	}
	ms, _ := res.(int64)
	return engine.AcquireReply{TTL: time.Duration(ms) * time.Millisecond, Sync: sync}, nil
}

// AcquireFailed implements engine.QueueScripts: a waiter leaves nothing
// behind.
func (s *groupScripts) AcquireFailed(context.Context, string, time.Duration) error { return nil }

// Release runs the unlock script (engine.Scripts). Holds of one owner on
// overlapping value sets are separate local holds but share the values'
// counts in Redis, so "still held" is decided by this value set's local
// holds: the last one frees the set as far as this hold is concerned.
func (s *groupScripts) Release(ctx context.Context, field string, lease time.Duration, reqID string, _ *engine.Successor) (engine.ReleaseReply, error) {
	g := s.g
	keys := []string{g.name, g.channel, g.latchPrefix + reqID}
	res, sync, err := g.rt.Run(ctx, groupUnlockScript, core.RunOpts{Synced: true}, keys,
		s.args(s.owner(field), "0", lease.Milliseconds(), g.rt.PublishCommand(), engine.LatchTTL(g.rt).Milliseconds(), time.Now().UnixMilli())...)
	r := engine.ReleaseReply{Released: engine.StillHeld, Sync: sync}
	switch {
	case err != nil:
		r.Released = engine.NotOwner
		return r, err
	case res == nil:
		r.Released = engine.NotOwner
	case res == int64(1) || g.rt.Holds().HoldDepth(g.name, field) <= 1:
		r.Released = engine.Freed
	}
	return r, nil
}

// Count reads how many holds the owner has of every value (engine.Scripts).
func (s *groupScripts) Count(ctx context.Context, field string) (int, error) {
	g := s.g
	res, _, err := g.rt.Run(ctx, groupCountScript, core.RunOpts{}, []string{g.name}, s.args(s.owner(field))...)
	if err != nil {
		return 0, err
	}
	n, _ := res.(int64)
	return int(n), nil
}

// groupRenewal renews group holds (Redisson's FastMultilockTask): one
// script call per hold, all calls of a wheel tick in one pipeline. Keep it
// comparable: the wheel groups leases by Kind.
type groupRenewal struct{ rt *core.Runtime }

// Queue implements renewal.Kind.
func (k groupRenewal) Queue(ctx context.Context, pipe redis.Pipeliner, ttl time.Duration, leases []*renewal.Lease) func() ([]bool, error) {
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	qs := make([]*core.Queued, len(leases))
	for i, l := range leases {
		owner, list, _ := strings.Cut(l.Owner(), fieldSep)
		fields := strings.Split(list, ",")
		args := make([]any, 0, 3+len(fields))
		args = append(args, ttl.Milliseconds(), now, owner)
		for _, f := range fields {
			args = append(args, f)
		}
		qs[i] = k.rt.Queue(ctx, pipe, groupRenewScript, []string{l.Key()}, args...)
	}
	return func() ([]bool, error) {
		out := make([]bool, len(leases))
		for i, q := range qs {
			v, err := q.Result()
			if err != nil {
				return nil, err
			}
			out[i] = v == int64(1)
		}
		return out, nil
	}
}
