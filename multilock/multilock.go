// Package multilock takes several locks as one: Redisson's
// RedissonMultiLock (New: all of them or none), RedissonRedLock
// (NewRedLock: a majority of independent Redis servers), and the group
// multi-lock RedissonFasterMultiLock (Group, from
// (*redisson.Client).MultiLockGroup: many values of one hash, atomically).
//
// A MultiLock or RedLock composes any lock objects that implement
// lockable.Lock: *rlock.Lock, *fairlock.Lock, the read and write
// *rwlock.Lock, possibly of different Clients, i.e. different Redis
// servers. It has no keys of its own: each member uses its own keys,
// scripts, waiters and watchdog, exactly as when it is taken alone, so Java
// peers see the same state as with Redisson's multi-lock. Every member is
// taken by the same owner (Redisson's thread id).
//
// Acquisition follows Redisson (docs/protocol.md §11.1): the members are taken one
// after another in the given order, each with its share of the wait; a
// member that cannot be taken makes the multi-lock give back what it took
// and, while the wait lasts, start again from the first member. With a fixed
// lease and a wait the members are first taken for twice the wait and their
// lease is set to the requested one once all are held. A RedLock asks the
// members of different clients (servers) in parallel, with the same rules
// and the same requests to each server; see NewRedLock.
//
// The result is one *Hold for the whole set: its Unlock releases every
// member (different clients in parallel, one client's members in order),
// its Extend sets every member's lease anew (a RedLock's: a quorum's),
// and its Done channel, Err and Context report the
// loss of the set: of any member for a MultiLock, of so many members that
// fewer than a quorum remain for a RedLock, and for a RedLock with a fixed
// lease the end of its validity (the lease minus the time the acquisition
// took and a clock-drift allowance). Read docs/multilock.md on
// RedLock before relying on it for correctness: it needs fencing tokens
// where a late writer must be refused.
package multilock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/locks"
)

// Lock is a MultiLock or a RedLock over a fixed list of member locks. It is
// cheap and safe for concurrent use: who holds the members is decided by
// holds, not by the handle.
type Lock struct {
	members []lockable.Lock
	red     bool
	name    string
	err     error
	// rt is the first member's client's runtime, which the set reports
	// its events to; nil when no member is of this module's lock kinds.
	rt *core.Runtime
	// clients holds the members' indexes by client, in the order the
	// clients first appear in the set, each in the set's order: a RedLock
	// tries the members of different clients in parallel.
	clients [][]int
	// clientIdx is each member's client's position in clients.
	clientIdx []int
	// onePerClient: every member is of a client of its own.
	onePerClient bool
	// contended is when (UnixNano) a RedLock may again begin a wait with
	// its first parallel pass (see contendedFor).
	contended atomic.Int64
}

// New returns the multi-lock of locks (Redisson's getMultiLock(locks...)):
// acquired when every member is. The members may belong to different
// Clients. An empty list, a nil member or a lock given twice makes every
// call fail with an error wrapping ErrInvalidArgument, and a member with an
// invalid name (empty, or one whose derived keys and channels would not
// share its cluster slot) with one wrapping ErrInvalidName, before anything
// is sent.
func New(locks ...lockable.Lock) *Lock { return newLock(false, locks) }

// NewRedLock returns the RedLock of locks (Redisson's RedissonRedLock):
// acquired when a majority, len(locks)/2 + 1, of the members is; each member
// is tried for at most the remaining wait divided by len(locks). The members
// are meant to live on independent Redis servers (one per Client). Bad
// input is refused as by New.
//
// Unlike Redisson, which takes the members one after another, a RedLock
// asks the members of different Clients in parallel (those of one Client
// still one after another, in the set's order): first every member once,
// without waiting; when that does not make the quorum, or, with a wait,
// finds a member held by another owner, it gives back what it took and
// waits in the set's order for the first member it can take, then for the
// others in parallel. Members that answer after the quorum was reached
// (and a short grace) are given back, and so is, as in Redisson, a quorum
// complete only after the wait is over; a failed or cancelled acquire
// returns once every try it sent has ended and what they took is given
// back. docs/multilock.md has the details.
func NewRedLock(locks ...lockable.Lock) *Lock { return newLock(true, locks) }

func newLock(red bool, locks []lockable.Lock) *Lock {
	m := &Lock{members: append([]lockable.Lock(nil), locks...), red: red}
	names := make([]string, len(locks))
	seen := make(map[string]int, len(locks))
	var errs []error
	for i, l := range locks {
		if isNil(l) {
			names[i] = "<nil>"
			errs = append(errs, fmt.Errorf("%w: lock %d of the set is nil", core.ErrInvalidArgument, i+1))
			continue
		}
		names[i] = l.Name()
		// Every lock kind derives its channel and keys as Redisson's
		// prefixName does, so one of them decides for all.
		if err := core.CheckName(l.Name(), keys.LockChannel(l.Name())); err != nil {
			// The member would refuse every call, but only once the
			// members before it were taken: refuse the set up front.
			errs = append(errs, fmt.Errorf("lock %d of the set: %w", i+1, err))
			continue
		}
		id := l.LockID()
		if j, dup := seen[id]; dup {
			errs = append(errs, fmt.Errorf("%w: locks %d and %d of the set are the same lock %q", core.ErrInvalidArgument, j+1, i+1, l.Name()))
			continue
		}
		seen[id] = i
	}
	if len(locks) == 0 {
		errs = append(errs, fmt.Errorf("%w: a multi-lock needs at least one lock", core.ErrInvalidArgument))
	}
	m.name = "[" + strings.Join(names, ",") + "]"
	for _, l := range locks {
		if m.rt = lockkit.RuntimeOf(l); m.rt != nil {
			break
		}
	}
	if len(errs) > 0 {
		m.err = errs[0]
		return m
	}
	m.clients = byClient(allMembers(len(m.members)), m.clientOf)
	m.clientIdx = make([]int, len(m.members))
	for c, g := range m.clients {
		for _, i := range g {
			m.clientIdx[i] = c
		}
	}
	m.onePerClient = len(m.clients) == len(m.members)
	return m
}

func isNil(l lockable.Lock) bool {
	if l == nil {
		return true
	}
	v := reflect.ValueOf(l)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// Name returns the members' names, "[m1,m2,m3]".
func (m *Lock) Name() string { return m.name }

// Quorum returns how many members must be held: all of them for a
// MultiLock, len/2 + 1 for a RedLock.
func (m *Lock) Quorum() int {
	if m.red {
		return len(m.members)/2 + 1
	}
	return len(m.members)
}

func (m *Lock) kind() string {
	if m.red {
		return "RedLock"
	}
	return "multi-lock"
}

// lost is the cause a hold of the set ends with when ownership is lost
// for the reason format gives: `<kind> "<name>": ownership lost: <why>`.
func (m *Lock) lost(format string, a ...any) error {
	return &engine.OpError{Kind: m.kind(), Name: m.name, Err: fmt.Errorf("%w: "+format, append([]any{core.ErrLockLost}, a...)...)}
}

// expired is the cause a hold of the set ends with when its fixed lease
// ran out: `<kind> "<name>": lease expired (<why>)`, not a loss.
func (m *Lock) expired(why string) error {
	return &engine.OpError{Kind: m.kind(), Name: m.name, Err: fmt.Errorf("%w (%s)", core.ErrLeaseExpired, why)}
}

// memberErr names the member an error came from, unless it names it
// already (a member's own call returns `<kind> "<name>": ...`).
func memberErr(name string, err error) error {
	var oe *engine.OpError
	if errors.As(err, &oe) && oe.Name == name {
		return err
	}
	return fmt.Errorf("member %q: %w", name, err)
}

func (m *Lock) opErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return &engine.OpError{Kind: m.kind(), Name: m.name, Op: op, Err: err}
}

// failedLimit is how many members may fail in one pass (Redisson's
// failedLocksLimit).
func (m *Lock) failedLimit() int { return len(m.members) - m.Quorum() }

// clientOf returns the ID of member i's client.
func (m *Lock) clientOf(i int) string { return m.members[i].ClientID() }

// memberWait is the most one member may be waited for when remain is left
// (Redisson's calcLockWaitTime); remain < 0 means no wait.
func (m *Lock) memberWait(remain time.Duration) time.Duration {
	if !m.red {
		return remain
	}
	return max(remain/time.Duration(len(m.members)), time.Millisecond)
}

// Option changes one Lock or TryLock call of a multi-lock, a RedLock or a
// Group: a locks.Option, the options of every lock kind.
type Option = locks.Option

// WithLease holds every member (every value of a Group) for a fixed lease,
// without the watchdog (locks.WithLease).
func WithLease(lease time.Duration) Option { return locks.WithLease(lease) }

// WithWait bounds how long TryLock tries (locks.WithWait); a multi-lock
// starts over after a failed pass until the wait runs out.
func WithWait(wait time.Duration) Option { return locks.WithWait(wait) }

// WithOwner acquires every member for owner (locks.WithOwner): an owner
// that holds a member already re-enters it.
func WithOwner(owner int64) Option { return locks.WithOwner(owner) }

// options reads and checks opts for Lock (lock) or TryLock; without
// WithOwner the set gets a fresh owner, the one every member is taken by.
func (m *Lock) options(op string, lock bool, opts []Option) (lockkit.Options, error) {
	err := m.err
	var o lockkit.Options
	if err == nil {
		o, err = lockkit.Parse(lock, opts, lockkit.Rules{})
	}
	if err != nil {
		return o, m.opErr(op, err)
	}
	if !o.HasOwner {
		o.Owner = core.NewOwnerID()
	}
	return o, nil
}

// TryLock takes every member (a quorum for a RedLock) once, or, WithWait,
// keeps trying until the wait runs out. It reports false when the set could
// not be taken in time, with an error when the last member that failed
// answered with one (a server refusing connections, a wrong type) rather
// than being held or not answering within its share of the wait; nothing
// is held then. ctx being done is an error.
func (m *Lock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	if ctx == nil {
		return nil, false, m.opErr("try lock", core.ErrNilContext)
	}
	o, err := m.options("try lock", false, opts)
	if err != nil {
		return nil, false, err
	}
	octx, ob := m.startAcquire(ctx, o.Wait > 0)
	var cause error
	h, _, err := m.attempt(octx, ctx, o.Owner, o.Wait, o.Lease, &cause)
	ob.Try(h != nil, err)
	if h == nil {
		err = m.opErr("try lock", err)
		ob.End(ctx, false, err, o.Wait > 0)
		return nil, false, err
	}
	ob.End(ctx, true, nil, o.Wait > 0)
	return h, true, nil
}

// startAcquire begins observing an acquisition of the set (see
// core.Runtime.StartAcquire) on its first member's client.
func (m *Lock) startAcquire(ctx context.Context, wait bool) (context.Context, events.Acq) {
	if m.rt == nil {
		return ctx, events.Acq{}
	}
	return m.rt.Events().StartAcquire(ctx, m.kind(), m.name, wait, 0)
}

// Lock takes the set, trying again until it succeeds or ctx is done. As in
// Redisson each try has a wait of 1.5s per member, or with WithLease a
// random wait below the lease, so that owners racing for overlapping sets
// in different orders do not fail each other forever. ctx only bounds the
// wait. A member that no retry can take (its client closed, its key holding
// another type: ErrClosed, ErrWrongType) ends Lock at once with its error
// when the set cannot be taken without it, having given back what it took.
func (m *Lock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	if ctx == nil {
		return nil, m.opErr("lock", core.ErrNilContext)
	}
	o, err := m.options("lock", true, opts)
	if err != nil {
		return nil, err
	}
	octx, ob := m.startAcquire(ctx, true)
	var cause error
	for {
		h, terminal, err := m.attempt(octx, ctx, o.Owner, m.lockWait(o.Lease), o.Lease, &cause)
		ob.Try(h != nil, err)
		if h != nil {
			ob.End(ctx, true, nil, true)
			return h, nil
		}
		if terminal || ctx.Err() != nil {
			err = m.opErr("lock", err)
			ob.End(ctx, false, err, true)
			return nil, err
		}
	}
}

// permanent reports whether a member's error will not go away by trying
// again: its client (or the go-redis client under it) is closed, the
// request is refused as invalid or by the ACL, or the member's key holds
// another Redis type. Something else could delete a key of the wrong type, but nothing
// here waits for that: a wait would only take and give back the other
// members until ctx ends.
func permanent(err error) bool {
	return errors.Is(err, core.ErrClosed) || errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, core.ErrInvalidArgument) || errors.Is(err, core.ErrInvalidName) ||
		errors.Is(err, core.ErrWrongType) || errors.Is(err, core.ErrNoPermission)
}

// ended returns ctx's cause, with the last member failure when there was
// one, so that a wait that ran out says why it could not succeed.
func ended(ctx context.Context, last error) error {
	cause := context.Cause(ctx)
	if last != nil && !errors.Is(last, ctx.Err()) {
		cause = fmt.Errorf("%w (last failure: %w)", cause, last)
	}
	return cause
}

// lockWait is the wait of one try of Lock (Redisson's lockInterruptibly):
// 1.5s per member without lease, else a random time below the lease.
func (m *Lock) lockWait(lease time.Duration) time.Duration {
	base := time.Duration(len(m.members)) * 1500 * time.Millisecond
	if lease <= 0 {
		return base
	}
	lo, hi := base, lease
	if lease <= base {
		lo = lease / 2
	}
	lo, hi = lo.Truncate(time.Millisecond), hi.Truncate(time.Millisecond)
	wait := lo
	if hi > lo {
		wait += time.Duration(rand.Int64N(int64(hi-lo)/int64(time.Millisecond))) * time.Millisecond
	}
	// A lease below 2ms would make tries without any wait: a busy loop.
	return max(wait, time.Millisecond)
}

// groupExtendScript sets the lease of one owner's hold of a group's values
// (a GroupHold's Extend): every value must still be the owner's, with an
// expiry not yet passed; each expiry becomes now+lease, or, when keep is
// "1", is only ever raised (the owner holds other value sets of the group
// through this client, whose holds count on the expiries they share).
// G's TTL is raised to the lease, never lowered: it must outlive every
// owner's values, whose expiries, not G's TTL, say when they are free.
// KEYS: [G]. ARGV: [lease ms, now ms, owner field, keep, f1..fk].
// Reply: 1 = set, 0 = the owner holds the values no more.
var groupExtendScript = core.NewScript("multilock.groupExtend", lua.MustText(luaFiles, "lua/group_extend.lua"))

// Extend sets the lease of the owner's hold of the handle's values with
// groupExtendScript (engine.ExtendScripts). The group's own scripts are in
// group_scripts.go.
func (s *groupScripts) Extend(ctx context.Context, field string, lease time.Duration) (engine.ExtendReply, error) {
	g := s.g
	owner := s.owner(field)
	keep := "0"
	if g.rt.Holds().HoldingLike(g.name, owner+fieldSep, field) {
		keep = "1"
	}
	res, sync, err := g.rt.Run(ctx, groupExtendScript, core.RunOpts{Synced: true, NoRetry: true}, []string{g.name},
		s.args(lease.Milliseconds(), time.Now().UnixMilli(), owner, keep)...)
	if err != nil {
		return engine.ExtendReply{Sync: sync}, g.typed(ctx, err)
	}
	return engine.ExtendReply{Held: res == int64(1), Sync: sync}, nil
}
