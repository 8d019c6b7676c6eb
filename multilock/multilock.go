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
// Acquisition follows Redisson (protocol §11.1): the members are taken one
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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/objects"
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
		if err := core.CheckName(l.Name(), core.PrefixName("redisson_lock__channel", l.Name())); err != nil {
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
		if m.rt = objects.RuntimeOf(l); m.rt != nil {
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
func (m *Lock) startAcquire(ctx context.Context, wait bool) (context.Context, core.Acq) {
	if m.rt == nil {
		return ctx, core.Acq{}
	}
	return m.rt.StartAcquire(ctx, m.kind(), m.name, wait, 0)
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

// memberGrace is how long a member call may run past its share of the
// wait before the multi-lock gives up on it: its own wait ends first, and a
// server that does not answer costs no more than its share.
const memberGrace = 100 * time.Millisecond

// errorBackoff is how long a waiting pass that failed on an error (rather
// than a held member) pauses before it starts over, so that a server that is
// down does not turn the wait into a busy loop.
const errorBackoff = 50 * time.Millisecond

// attempt is Redisson's tryLock(waitTime, leaseTime) (protocol §11.1),
// run under ctx; the hold keeps parent's values (the caller's context,
// without an observer's span). It
// returns the hold, or nil and the error that made it fail (nil when members
// were merely held), terminal when trying again cannot help (a member's
// client is closed, or it refuses the request, and the set cannot be
// taken without it). *cause keeps the last member error across passes and
// calls: it is reported with ctx's cause when ctx ends.
func (m *Lock) attempt(ctx, parent context.Context, owner int64, wait, lease time.Duration, cause *error) (*Hold, bool, error) {
	n := len(m.members)
	newLease := provisionalLease(wait, lease)
	if m.red && len(m.clients) > 1 {
		return m.redAttempt(ctx, parent, owner, wait, lease, newLease, cause)
	}
	remain := time.Duration(-1)
	if wait > 0 {
		remain = wait
	}
	perLock := m.memberWait(remain)
	limit := m.failedLimit()
	acquired := make([]held, 0, n)
	passStart := time.Now()
	last := passStart
	var lastErr error
	failedByError := false
	failedForGood := 0 // members failed with a permanent error this pass
	for i := 0; i < n; i++ {
		l := m.members[i]
		var await, bound time.Duration
		if remain > 0 {
			// A member must not keep us past its share of the wait, not
			// even a server that does not answer (a RedLock moves on to
			// the next server); the member's own wait ends first.
			await = min(perLock, remain)
			bound = await + memberGrace
		}
		t := m.tryMember(ctx, i, owner, newLease, await, bound)
		h, ok, err := t.h, t.ok, t.err
		if cerr := ctx.Err(); cerr != nil {
			if ok {
				acquired = append(acquired, held{l, h, i})
			}
			m.unlockAll(ctx, acquired)
			return nil, false, ended(ctx, *cause)
		}
		if ok {
			acquired = append(acquired, held{l, h, i})
		} else {
			if err != nil {
				lastErr, failedByError = memberErr(l.Name(), err), true
				*cause = lastErr
				if permanent(err) {
					if failedForGood++; failedForGood > m.failedLimit() {
						// The set cannot be taken without this member.
						m.unlockAll(ctx, acquired)
						return nil, true, lastErr
					}
				}
			}
			if n-len(acquired) == m.failedLimit() {
				break // a RedLock's quorum is reached: the rest cannot fail it
			}
			if limit == 0 {
				m.unlockAll(ctx, acquired)
				if wait <= 0 {
					return nil, false, lastErr
				}
				limit, acquired = m.failedLimit(), acquired[:0]
				i = -1
				if failedByError {
					failedByError = false
					if err := sleep(ctx, min(errorBackoff, remain-time.Since(last))); err != nil {
						return nil, false, ended(ctx, *cause)
					}
				}
				// A new pass: its result is its own failures.
				lastErr, failedForGood = nil, 0
				passStart = time.Now()
			} else {
				limit--
			}
		}
		if remain > 0 {
			now := time.Now()
			remain -= now.Sub(last)
			last = now
			if remain <= 0 {
				m.unlockAll(ctx, acquired)
				return nil, false, lastErr
			}
		}
	}
	if len(acquired) < m.Quorum() {
		// Only when the loop ended on the last member with too few held.
		m.unlockAll(ctx, acquired)
		return nil, false, lastErr
	}
	return m.finish(ctx, parent, owner, acquired, lease, newLease, passStart)
}

// finish builds the hold of acquired, a quorum taken by a pass that began
// (sent its first request) at passStart: it sets the final lease of
// members taken with the provisional one, drops (a RedLock) or fails on
// (a MultiLock) members that ended meanwhile, and computes a RedLock's
// validity. What fails is given back.
func (m *Lock) finish(ctx, parent context.Context, owner int64, acquired []held, lease, newLease time.Duration, passStart time.Time) (*Hold, bool, error) {
	if lease > 0 && newLease != lease {
		var err error
		if acquired, err = m.expireAll(ctx, acquired, lease); err != nil {
			return nil, false, err
		}
	}
	// A member may have been lost, or its client closed, since it was
	// taken: the hold would start ended.
	acquired, err := m.dropEnded(ctx, acquired)
	if err != nil {
		return nil, false, err
	}
	var validUntil time.Time
	if m.red && lease > 0 {
		// The earliest any member can expire is passStart+lease (every
		// lease was set by a request sent after passStart); the drift
		// allowance is antirez's: 1% of the lease + 2ms.
		validUntil = passStart.Add(lease - lease/100 - 2*time.Millisecond)
		if !time.Now().Before(validUntil) {
			m.unlockAll(ctx, acquired)
			return nil, false, fmt.Errorf("%w: the acquisition took longer than the lease leaves valid", core.ErrLeaseExpired)
		}
	}
	return m.newHold(parent, owner, acquired, validUntil), false, nil
}

// dropEnded checks the members taken before the hold is built: a
// MultiLock fails if any has ended, a RedLock gives back those that ended
// and fails below its quorum. What fails is given back.
func (m *Lock) dropEnded(ctx context.Context, hs []held) ([]held, error) {
	if !slices.ContainsFunc(hs, func(x held) bool { return x.h.Err() != nil }) {
		return hs, nil
	}
	var kept, dropped []held
	var failed []error
	for _, x := range hs {
		if err := x.h.Err(); err != nil {
			dropped = append(dropped, x)
			failed = append(failed, memberErr(x.l.Name(), err))
			continue
		}
		kept = append(kept, x)
	}
	if len(dropped) == 0 {
		return hs, nil
	}
	if len(kept) < m.Quorum() {
		m.unlockAll(ctx, hs)
		return nil, fmt.Errorf("%w: a member ended before the set was held: %w", core.ErrLockLost, errors.Join(failed...))
	}
	m.unlockAll(ctx, dropped)
	return kept, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// held is one member hold.
type held struct {
	l lockable.Lock
	h lockable.Hold
	i int // the member's index in the set
}

// unlockAll releases hs and waits for the releases (each runs on its own
// bounded context, whatever ctx is): the members of one client one after
// another in the set's order (Redisson's unlock(); their unlock messages
// come in that order), different clients in parallel.
func (m *Lock) unlockAll(ctx context.Context, hs []held) []error {
	return m.perClient(hs, memberOp{ctx: context.WithoutCancel(ctx), unlock: true})
}

// memberOp is what perClient does to each member hold: release it, or set
// its lease to lease.
type memberOp struct {
	ctx    context.Context
	unlock bool
	lease  time.Duration
}

func (op memberOp) do(x held) error {
	if op.unlock {
		return x.h.Unlock(op.ctx)
	}
	return extendMember(op.ctx, x.h, op.lease)
}

// perClient applies op to every member of hs, in the set's order, and
// waits for them: the members of one client one after another in the set's
// order, different clients in parallel. The errors are in hs's order.
func (m *Lock) perClient(hs []held, op memberOp) []error {
	errs := make([]error, len(hs))
	if len(hs) == 0 {
		return errs
	}
	if len(m.clients) == 1 {
		for k, x := range hs {
			errs[k] = op.do(x)
		}
		return errs
	}
	// Each client's members in hs, by the client's position in m.clients;
	// hs is in the set's order, and so is each client's list.
	first := m.clientIdx[hs[0].i]
	var wg sync.WaitGroup
	for c := range m.clients {
		if c == first || !slices.ContainsFunc(hs, func(x held) bool { return m.clientIdx[x.i] == c }) {
			continue
		}
		wg.Go(func() {
			core.ReserveStack(c)
			m.clientPart(c, hs, op, errs)
		})
	}
	// The first client's members on this goroutine: no new stack to grow.
	m.clientPart(first, hs, op, errs)
	wg.Wait()
	return errs
}

// clientPart applies op to the members of hs of client c (its position in
// m.clients), one after another, and sets their errors in errs.
func (m *Lock) clientPart(c int, hs []held, op memberOp, errs []error) {
	for k, x := range hs {
		if m.clientIdx[x.i] == c {
			errs[k] = op.do(x)
		}
	}
}

// expireAll sets the final lease of every member taken with the
// provisional one (Redisson's expireAsync after tryLock(wait, lease)). A
// MultiLock fails if any member fails; a RedLock keeps the members that
// took the lease when they are a quorum and gives back the others.
func (m *Lock) expireAll(ctx context.Context, hs []held, lease time.Duration) ([]held, error) {
	errs := make([]error, len(hs))
	var wg sync.WaitGroup
	for i, x := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = x.h.Expire(ctx, lease)
		}()
	}
	wg.Wait()
	var kept, dropped []held
	var failed []error
	for i, x := range hs {
		if errs[i] != nil {
			dropped = append(dropped, x)
			failed = append(failed, errs[i])
			continue
		}
		kept = append(kept, x)
	}
	if len(failed) == 0 {
		return hs, nil
	}
	if len(kept) < m.Quorum() {
		m.unlockAll(ctx, hs)
		return nil, fmt.Errorf("setting the lease: %w", errors.Join(failed...))
	}
	m.unlockAll(ctx, dropped)
	return kept, nil
}

// Hold is one acquisition of the set. Keep it: Unlock releases every member
// it holds, once. It is safe for concurrent use.
type Hold struct {
	// again: an Unlock left members held whose release Redis refused
	// (keepRefused); the next Unlock releases only them.
	again   bool
	m       *Lock
	owner   int64
	members []held
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	// validUntil is when timer ends a RedLock's hold (zero: no timer).
	validUntil time.Time
	stops      []func() bool
	// late, for a RedLock, is closed once the tries its acquisition left
	// running (members that had not answered when the quorum was
	// reached) have ended and given back what they took; nil if none.
	late <-chan struct{}

	releasing atomic.Bool
	extending sync.Mutex // one Extend at a time
	mu        sync.Mutex
	lost      int // members whose hold ended before Unlock
}

func (m *Lock) newHold(parent context.Context, owner int64, hs []held, validUntil time.Time) *Hold {
	h := &Hold{m: m, owner: owner, members: hs}
	h.ctx, h.cancel = context.WithCancelCause(context.WithoutCancel(parent))
	h.stops = make([]func() bool, 0, len(hs))
	for _, x := range hs {
		mctx := x.h.Context()
		name := x.l.Name()
		h.stops = append(h.stops, context.AfterFunc(mctx, func() { h.memberEnded(name, context.Cause(mctx)) }))
	}
	if !validUntil.IsZero() {
		h.mu.Lock()
		h.validUntil = validUntil
		h.timer = time.AfterFunc(time.Until(validUntil), func() {
			h.cancel(m.expired("the RedLock's validity, its lease less the acquisition time and the clock drift allowance, ended"))
		})
		h.mu.Unlock()
	}
	return h
}

// memberEnded is told that a member's hold ended with cause.
func (h *Hold) memberEnded(name string, cause error) {
	if h.releasing.Load() {
		return // our own Unlock
	}
	if errors.Is(cause, context.Canceled) {
		// Nobody else holds the member hold to release it; count it lost.
		cause = core.Errorf(core.ErrLockLost, "it was released on its own")
	}
	if errors.Is(cause, core.ErrLeaseExpired) && !errors.Is(cause, core.ErrLockLost) {
		// The members' fixed lease ran out, as the set's caller asked.
		h.cancel(h.m.expired(fmt.Sprintf("the fixed lease of member %q ran out", name)))
		return
	}
	if !h.m.red {
		h.cancel(h.m.lost("a member ended: %w", memberErr(name, cause)))
		return
	}
	h.mu.Lock()
	h.lost++
	left := len(h.members) - h.lost
	h.mu.Unlock()
	if left < h.m.Quorum() {
		h.cancel(h.m.lost("%d of %d members held, fewer than the quorum of %d; a member ended: %w",
			left, len(h.m.members), h.m.Quorum(), memberErr(name, cause)))
	}
}

// Unlock releases every member this hold holds and waits for them: the
// members of different clients in parallel, those of one client in the
// set's order; it works with a done ctx (each release is bounded by its client's
// Timeout). A second Unlock sends nothing and returns an error wrapping
// ErrNotOwner. If the hold had ended (lost, client closed), the members
// still held are released all the same and the cause is returned. Errors
// of members that could not be released are joined; a RedLock reports none
// for members it had already lost.
func (h *Hold) Unlock(ctx context.Context) error {
	if h == nil || h.m == nil {
		return core.Errorf(core.ErrNotOwner, "unlock: not an acquired hold (a nil or zero Hold)")
	}
	if ctx == nil {
		// Refused before the hold is marked released.
		return h.m.opErr("unlock", core.ErrNilContext)
	}
	if h.m.rt == nil {
		return h.unlock(ctx)
	}
	octx, ob := h.m.rt.StartRelease(ctx, h.m.kind(), h.m.name)
	err := h.unlock(octx)
	ob.End(err, true, false)
	return err
}

func (h *Hold) unlock(ctx context.Context) error {
	if !h.releasing.CompareAndSwap(false, true) {
		return h.m.opErr("unlock", core.Errorf(core.ErrNotOwner, "this hold was already released"))
	}
	ended := h.Err()
	h.mu.Lock()
	if h.timer != nil {
		h.timer.Stop()
	}
	h.mu.Unlock()
	// From here on a member's end is our own release (memberEnded does
	// nothing once releasing is set): its watch is stopped before the
	// release ends the member, which would otherwise run it for nothing
	// on a goroutine of its own.
	for _, stop := range h.stops {
		stop()
	}
	var aliveBuf [8]bool
	alive := aliveBuf[:0]
	if len(h.members) > len(aliveBuf) {
		alive = make([]bool, 0, len(h.members))
	}
	live := 0
	for _, x := range h.members {
		ok := x.h.Err() == nil
		alive = append(alive, ok)
		if ok {
			live++
		}
	}
	errs := h.m.unlockAll(ctx, h.members)
	awaitLate(h.late)
	h.cancel(context.Canceled)
	again := h.again
	if refused := h.keepRefused(errs); refused != nil {
		return h.m.opErr("unlock", refused)
	}
	if again {
		// This Unlock released what an earlier one left held: the hold's
		// own end was that earlier Unlock.
		return h.m.opErr("unlock", errors.Join(errs...))
	}
	if ended != nil {
		return h.m.opErr("unlock", ended)
	}
	if h.m.red && live < h.m.Quorum() {
		// The losses had not reached the hold yet (they are reported
		// asynchronously, and our Unlock silenced them): the quorum was lost
		// all the same.
		return h.m.opErr("unlock", fmt.Errorf("%w: %d of %d members held at Unlock, fewer than the quorum of %d",
			core.ErrLockLost, live, len(h.m.members), h.m.Quorum()))
	}
	var failed []error
	for i, err := range errs {
		if err != nil && (alive[i] || !h.m.red) {
			failed = append(failed, err)
		}
	}
	return h.m.opErr("unlock", errors.Join(failed...))
}

// keepRefused keeps, after an Unlock, the members whose release Redis
// refused before it ran (core.ErrReleaseRefused): they are still held, and
// the next Unlock releases them. It returns the error that says so, nil
// when no release was refused.
func (h *Hold) keepRefused(errs []error) error {
	var kept []held
	var failed []error
	for i, err := range errs {
		if errors.Is(err, core.ErrReleaseRefused) {
			kept = append(kept, h.members[i])
			failed = append(failed, err)
		}
	}
	if kept == nil {
		return nil
	}
	h.members, h.stops, h.again = kept, nil, true
	h.releasing.Store(false)
	return core.Errorf(core.ErrReleaseRefused, "%d of %d members are still held (Redis refused their release); Unlock again to release them: %w",
		len(kept), len(errs), errors.Join(failed...))
}

// Extend sets the lease of every member to lease, counted from now, as
// locks.Hold's Extend does for one lock: in Redis, only while the owner
// holds the member, with replica sync; in each member's loss signal; and a
// member held with the watchdog becomes a fixed-lease hold for good. The
// members of different clients are extended in parallel, those of one
// client in the set's order.
//
// A MultiLock needs every member extended: when one fails (it is held no
// more, no replica acknowledged its write, no reply, ctx ended), the hold
// ends lost (Done is closed, Err wraps ErrLockLost) and the error wraps
// ErrLockLost and names the member and its error; Unlock it to release the
// members still held. A RedLock extends the members it holds and needs a
// quorum of them extended: its validity is then recomputed as for an
// acquisition (the new lease less the time the extend took and the clock
// drift allowance; its Done fires at that end), and the members whose
// extend failed keep the earlier of their old end and the new one, so
// losing them later costs the hold nothing. Fewer than a quorum, or no
// validity left, ends the hold lost, and the error says so.
//
// Nothing is sent for a lease below 1ms (ErrInvalidArgument), a hold that
// ended (ErrNotOwner after Unlock; the loss or ErrClosed otherwise) or a ctx
// done at the call (its cause; the hold is unchanged).
func (h *Hold) Extend(ctx context.Context, lease time.Duration) error {
	if h == nil || h.m == nil {
		return core.Errorf(core.ErrNotOwner, "extend: not an acquired hold (a nil or zero Hold)")
	}
	m := h.m
	if ctx == nil {
		return m.opErr("extend", core.ErrNilContext)
	}
	if lease < time.Millisecond {
		return m.opErr("extend", fmt.Errorf("%w: the lease must be at least 1ms, got %v", core.ErrInvalidArgument, lease))
	}
	h.extending.Lock()
	defer h.extending.Unlock()
	if h.releasing.Load() {
		return m.opErr("extend", core.Errorf(core.ErrNotOwner, "this hold was already released"))
	}
	if err := h.Err(); err != nil {
		return m.opErr("extend", err)
	}
	if ctx.Err() != nil {
		return m.opErr("extend", context.Cause(ctx)) // nothing sent, nothing changed
	}
	targets := h.members
	if m.red {
		// The members it still holds: a RedLock may have lost a minority.
		targets = make([]held, 0, len(h.members))
		for _, x := range h.members {
			if x.h.Err() == nil {
				targets = append(targets, x)
			}
		}
	}
	start := time.Now()
	errs := m.perClient(targets, memberOp{ctx: ctx, lease: lease})
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, memberErr(targets[i].l.Name(), err))
		}
	}
	if !m.red {
		if len(failed) > 0 {
			cause := fmt.Errorf("%w: not every member could be extended: %w", core.ErrLockLost, errors.Join(failed...))
			h.cancel(m.opErr("extend", cause))
			return m.opErr("extend", cause)
		}
		return nil
	}
	if ok := len(targets) - len(failed); ok < m.Quorum() {
		cause := fmt.Errorf("%w: %d of %d members extended, fewer than the quorum of %d", core.ErrLockLost, ok, len(m.members), m.Quorum())
		if len(failed) > 0 {
			cause = fmt.Errorf("%w: %w", cause, errors.Join(failed...))
		}
		h.cancel(m.opErr("extend", cause))
		return m.opErr("extend", cause)
	}
	// As after an acquisition: every member's lease was set by a request
	// sent after start, less the drift allowance.
	validUntil := start.Add(lease - lease/100 - 2*time.Millisecond)
	if !time.Now().Before(validUntil) {
		cause := fmt.Errorf("%w: the extend took longer than the lease leaves valid", core.ErrLeaseExpired)
		h.cancel(m.opErr("extend", cause))
		return m.opErr("extend", cause)
	}
	h.mu.Lock()
	if h.timer != nil {
		h.timer.Stop()
	}
	h.validUntil = validUntil
	h.timer = time.AfterFunc(time.Until(validUntil), func() {
		h.cancel(m.expired("the RedLock's validity, its lease less the extend's time and the clock drift allowance, ended"))
	})
	h.mu.Unlock()
	return nil
}

// extendMember sets the lease of a member hold: its Extend, or for a
// lockable.Hold without one its Expire, which sets the lease likewise.
func extendMember(ctx context.Context, h lockable.Hold, lease time.Duration) error {
	if e, ok := h.(interface {
		Extend(context.Context, time.Duration) error
	}); ok {
		return e.Extend(ctx, lease)
	}
	return h.Expire(ctx, lease)
}

// Done is closed when the hold ends: after Unlock, or when the set is lost
// (see Err). A lost hold's Done is closed before a member lease can have
// run out in Redis, by this process's clock.
func (h *Hold) Done() <-chan struct{} { return h.Context().Done() }

// Err is nil while the hold lasts. Then it is context.Canceled after
// Unlock, or an error wrapping ErrLockLost when a member (for a RedLock: a
// quorum, or the validity) was lost, or ErrClosed when a member's client
// closed.
func (h *Hold) Err() error {
	if h == nil || h.ctx == nil {
		return errNotAcquired
	}
	if h.ctx.Err() == nil {
		return nil
	}
	return context.Cause(h.ctx)
}

// Context returns a context that is done when the hold ends, with Err as
// its cause; it carries the values of the context given to Lock, not its
// cancellation. Run the critical section under it.
func (h *Hold) Context() context.Context {
	if h == nil || h.ctx == nil {
		return notAcquired
	}
	return h.ctx
}

// errNotAcquired is the Err of a nil or zero Hold.
var errNotAcquired = core.Errorf(core.ErrNotOwner, "not an acquired hold (a nil or zero Hold)")

// notAcquired is the Context of a nil or zero Hold: done, with
// errNotAcquired as its cause.
var notAcquired = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errNotAcquired)
	return ctx
}()

// Owner returns the owner id every member was taken by.
func (h *Hold) Owner() int64 {
	if h == nil {
		return 0
	}
	return h.owner
}

// Held returns the names of the members this hold took: all of them for a
// MultiLock, at least a quorum for a RedLock.
func (h *Hold) Held() []string {
	if h == nil {
		return nil
	}
	out := make([]string, len(h.members))
	for i, x := range h.members {
		out[i] = x.l.Name()
	}
	return out
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
func (s *groupScripts) Extend(ctx context.Context, field string, lease time.Duration) (bool, core.SyncResult, error) {
	g := s.g
	owner := s.owner(field)
	keep := "0"
	if g.rt.HoldingLike(g.name, owner+fieldSep, field) {
		keep = "1"
	}
	res, sync, err := g.rt.EvalSyncedNoRetry(ctx, groupExtendScript, []string{g.name},
		s.args(lease.Milliseconds(), time.Now().UnixMilli(), owner, keep)...)
	if err != nil {
		return false, sync, g.typed(ctx, err)
	}
	return res == int64(1), sync, nil
}
