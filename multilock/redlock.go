package multilock

import (
	"cmp"
	"context"
	"time"

	"github.com/goredisson/redisson/lockable"
)

// A RedLock's members live on independent servers, so, unlike Redisson,
// which takes them one after another, it asks the servers at the same time;
// the keys, scripts and arguments each server sees are the same. Two things
// keep it from turning contention into livelock, which Redisson's fixed order
// avoids: a first pass asks every member once without waiting and only
// counts when no member turned out to be held by another owner; otherwise
// the members are waited for in the set's order until one is taken (the
// "leader"), and only then the rest, in parallel. An owner that waits while
// holding something therefore holds the first member it could take, and
// owners that hold others (a first pass's) give them back without waiting.

// contendedFor is how long a RedLock handle whose first pass found a
// member held by another owner goes straight to the ordered passes when it
// waits: under contention the first pass mostly finds members held, and
// its tries, and the give-backs of what it took, would only add load (and
// wake the waiters) before the ordered pass that takes the lock.
const contendedFor = time.Second

// provisionalLease is the lease members are taken with (Redisson's
// newLeaseTime): none (the watchdog's) without a lease; twice the wait with
// a lease and a wait (the final lease is set once the set is held); the
// lease otherwise.
func provisionalLease(wait, lease time.Duration) time.Duration {
	switch {
	case lease <= 0:
		return 0
	case wait > 0:
		return 2 * wait
	}
	return lease
}

// allMembers returns 0..n-1.
func allMembers(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// byClient groups idx by client(i) (the ID of the client of what i
// indexes), in the order the clients first appear, each group in idx's
// order.
func byClient(idx []int, client func(i int) string) [][]int {
	var groups [][]int
	at := make(map[string]int)
	for _, i := range idx {
		id := client(i)
		g, ok := at[id]
		if !ok {
			g = len(groups)
			at[id] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// tried is the outcome of one member's try.
type tried struct {
	i  int
	h  lockable.Hold
	ok bool
	// held: a try without wait was answered before its bound, and the
	// member was not taken: another owner holds it.
	held bool
	// skipped: never sent, the run was decided before its turn.
	skipped bool
	err     error
}

// tryMember tries member i for owner with lease (0: the watchdog's),
// waiting up to wait (0: once); bound (0: none) ends the call, so that a
// server that does not answer costs no more than that. A call our own
// bound ended reports no error: its share of the wait ran out. The member
// compensates a try whose outcome it did not get (see TryAcquire).
func (m *Lock) tryMember(ctx context.Context, i int, owner int64, lease, wait, bound time.Duration) tried {
	mctx, cancel := ctx, context.CancelFunc(nil)
	if bound > 0 {
		mctx, cancel = context.WithDeadlineCause(ctx, time.Now().Add(bound), errBound)
	}
	h, ok, err := m.members[i].TryAcquire(mctx, lockable.Request{Owner: owner, Wait: wait, Lease: lease})
	done := mctx.Err() != nil
	cut := done && context.Cause(mctx) == errBound
	if cancel != nil {
		cancel()
	}
	if err != nil && cut {
		err = nil
	}
	return tried{i: i, h: h, ok: ok, err: err, held: !ok && err == nil && !done && wait == 0}
}

// lateWait bounds how long a hold's Unlock waits for the tries its
// acquisition left running: long enough for a reply that was only a little
// late, so that nothing is left held when it returns; not the Timeout of a
// server that does not answer, whose late acquire is given back whenever
// it answers. (An acquisition that fails waits for them without a bound:
// see giveBack.)
const lateWait = 100 * time.Millisecond

// awaitLate waits for late (nil: nothing to wait for) at most lateWait.
func awaitLate(late <-chan struct{}) {
	if late == nil {
		return
	}
	t := time.NewTimer(lateWait)
	defer t.Stop()
	select {
	case <-late:
	case <-t.C:
	}
}

// finishLate is finish for a quorum whose acquisition left tries running
// (late): the hold waits for them at Unlock (at most lateWait); a failure
// here waits for them to end, so that a failed acquire leaves nothing
// behind when it returns. Each of them is bounded: its tries were
// cancelled, and a cancelled try ends once its member has compensated it.
func (m *Lock) finishLate(ctx, parent context.Context, owner int64, acquired []held, lease, newLease time.Duration, passStart time.Time, late <-chan struct{}) (*Hold, bool, error) {
	h, terminal, err := m.finish(ctx, parent, owner, acquired, lease, newLease, passStart)
	if h == nil {
		waitLate(late)
		return h, terminal, err
	}
	h.late = late
	return h, terminal, err
}

// waitLate waits for late (nil: nothing to wait for).
func waitLate(late <-chan struct{}) {
	if late != nil {
		<-late
	}
}

// giveBack releases acquired, a quorum taken after the wait's deadline
// passed, and waits for the tries its acquisition left running (late):
// Redisson's pass gives back everything when the wait is over after a
// member was taken, the member that completes the quorum included.
func (m *Lock) giveBack(ctx context.Context, acquired []held, late <-chan struct{}) {
	m.unlockAll(ctx, acquired)
	waitLate(late)
}

// heldOf returns the member holds of ts, after lead if not nil.
func (m *Lock) heldOf(ts []tried, lead *held) []held {
	hs := make([]held, 0, len(ts)+1)
	if lead != nil {
		hs = append(hs, *lead)
	}
	for _, t := range ts {
		hs = append(hs, held{m.members[t.i], t.h, t.i})
	}
	return hs
}

// redAttempt is attempt for a RedLock whose members live on more than one
// client: the same rules (Redisson's tryLock(waitTime, leaseTime): each
// member waited for at most the wait divided by the members, at most
// n - quorum failures per pass, passes while the wait lasts, the
// provisional lease), with the servers asked in parallel (see the comment
// at the top of this file).
func (m *Lock) redAttempt(ctx, parent context.Context, owner int64, wait, lease, newLease time.Duration, cause *error) (*Hold, bool, error) {
	a := redRun{m: m, ctx: ctx, parent: parent, owner: owner, wait: wait, lease: lease, newLease: newLease, cause: *cause,
		start: time.Now(), quorum: m.Quorum(), limit: m.failedLimit(), perLock: m.memberWait(wait)}
	var bound time.Duration
	if wait > 0 {
		a.deadline = a.start.Add(wait)
		bound = m.memberWait(wait) + memberGrace
	}
	defer func() { *cause = a.cause }()
	if wait <= 0 || time.Now().UnixNano() >= m.contended.Load() {
		if res, done := a.firstPass(bound); done {
			return res.h, res.terminal, res.err
		}
	}
	for {
		p := redPass{start: time.Now()}
		if res, done := a.orderedPass(&p); done {
			return res.h, res.terminal, res.err
		}
		a.lastErr = p.err
		if time.Until(a.deadline) <= 0 {
			return nil, false, a.lastErr
		}
		if p.byError {
			if err := sleep(ctx, min(errorBackoff, time.Until(a.deadline))); err != nil {
				return nil, false, ended(ctx, a.cause)
			}
		}
	}
}

// redRun is what redAttempt carries across its passes.
type redRun struct {
	m                     *Lock
	ctx, parent           context.Context
	owner                 int64
	wait, lease, newLease time.Duration
	cause                 error // the last member error, for redAttempt's *cause

	start, deadline time.Time // deadline: start + wait (zero: no wait)
	quorum, limit   int       // limit: the failures a pass may take
	perLock         time.Duration
	lastErr         error // the last pass's error
}

// redPass is one ordered pass of redAttempt: the members are waited for in
// the set's order until one is taken (the leader), then the rest are tried
// in parallel.
type redPass struct {
	start         time.Time // when it sent its first request
	failed        int       // members not taken
	failedForGood int       // of which with a permanent error
	byError       bool      // a member failed with an error
	err           error     // its last member error
	leader        held      // the member taken first, when led
	led           bool
}

// result is what an attempt returns: the hold, or nil and why it failed;
// terminal when trying again cannot help.
type result struct {
	h        *Hold
	terminal bool
	err      error
}

// firstPass asks every member once, in parallel, without waiting; done
// when that decided the attempt. Without a wait a member held by another
// owner is just a failure, as in Redisson's pass; with one it sends the
// attempt to the ordered passes.
func (a *redRun) firstPass(bound time.Duration) (result, bool) {
	m, ctx := a.m, a.ctx
	r := m.tryParallel(ctx, a.owner, a.newLease, run{need: a.quorum, allowFail: a.limit, bound: bound, heldFails: a.wait > 0, lease: a.lease}, &a.cause)
	if r.held && a.wait > 0 {
		m.contended.Store(time.Now().Add(contendedFor).UnixNano())
	}
	switch {
	case r.ok && a.wait > 0 && time.Until(a.deadline) <= 0:
		m.giveBack(ctx, r.acquired, r.late)
		return result{err: r.err}, true
	case r.ok:
		return a.finish(r.acquired, a.start, r.late), true
	case ctx.Err() != nil:
		return result{err: ended(ctx, a.cause)}, true
	case r.failedForGood > a.limit:
		return result{terminal: true, err: r.err}, true
	case a.wait <= 0:
		return result{err: r.err}, true
	}
	a.lastErr = r.err
	return result{}, false
}

// finish is finishLate for the members acquired by a pass that began at
// passStart.
func (a *redRun) finish(acquired []held, passStart time.Time, late <-chan struct{}) result {
	h, terminal, err := a.m.finishLate(a.ctx, a.parent, a.owner, acquired, a.lease, a.newLease, passStart, late)
	return result{h, terminal, err}
}

// orderedPass makes the pass p; done when it decided the attempt.
func (a *redRun) orderedPass(p *redPass) (result, bool) {
	if res, done := a.lead(p); done || !p.led {
		return res, done
	}
	return a.follow(p)
}

// lead waits for the members in the set's order until one is taken, the
// pass's leader, or more than the pass may take failed; done when that
// decided the attempt.
func (a *redRun) lead(p *redPass) (result, bool) {
	m, ctx := a.m, a.ctx
	for i := range m.members {
		remain := time.Until(a.deadline)
		if remain <= 0 {
			return result{err: cmp.Or(p.err, a.lastErr)}, true
		}
		w := min(a.perLock, remain)
		t := m.tryMember(ctx, i, a.owner, a.newLease, w, w+memberGrace)
		if ctx.Err() != nil {
			if t.ok {
				m.unlockAll(ctx, []held{{m.members[i], t.h, i}})
			}
			return result{err: ended(ctx, a.cause)}, true
		}
		if t.ok {
			p.leader, p.led = held{m.members[i], t.h, i}, true
			return result{}, false
		}
		p.failed++
		if t.err != nil {
			p.err, p.byError = memberErr(m.members[i].Name(), t.err), true
			a.cause = p.err
			if permanent(t.err) {
				if p.failedForGood++; p.failedForGood > a.limit {
					return result{terminal: true, err: p.err}, true // the set cannot be taken without these
				}
			}
		}
		if p.failed > a.limit {
			break
		}
	}
	return result{}, false
}

// follow tries the members after the pass's leader in parallel, and gives
// the leader back when they do not make the quorum; done when that decided
// the attempt.
func (a *redRun) follow(p *redPass) (result, bool) {
	m, ctx := a.m, a.ctx
	first := p.leader
	if time.Until(a.deadline) <= 0 {
		m.unlockAll(ctx, []held{first})
		return result{err: p.err}, true
	}
	r := m.tryParallel(ctx, a.owner, a.newLease, run{from: first.i + 1, lead: &first, need: a.quorum - 1, allowFail: a.limit - p.failed, share: a.perLock, deadline: a.deadline, lease: a.lease}, &a.cause)
	if r.ok {
		if time.Until(a.deadline) <= 0 {
			m.giveBack(ctx, r.acquired, r.late)
			return result{err: cmp.Or(r.err, p.err)}, true
		}
		return a.finish(r.acquired, p.start, r.late), true
	}
	m.unlockAll(ctx, []held{first})
	if ctx.Err() != nil {
		return result{err: ended(ctx, a.cause)}, true
	}
	if r.err != nil {
		p.err = r.err
	}
	p.byError = p.byError || r.byError
	if p.failedForGood += r.failedForGood; p.failedForGood > a.limit {
		return result{terminal: true, err: p.err}, true
	}
	return result{}, false
}
