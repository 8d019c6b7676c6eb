package multilock

import (
	"cmp"
	"context"
	"slices"
	"sync/atomic"
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
	mctx, cancel := ctx, context.CancelFunc(func() {})
	if bound > 0 {
		mctx, cancel = context.WithTimeout(ctx, bound)
	}
	h, ok, err := m.members[i].TryAcquire(mctx, lockable.Request{Owner: owner, Wait: wait, Lease: lease})
	cut := mctx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil && cut {
		err = nil
	}
	return tried{i: i, h: h, ok: ok, err: err, held: !ok && err == nil && !cut && wait == 0 && ctx.Err() == nil}
}

// run describes one parallel try of some members (tryParallel).
type run struct {
	idx       []int         // the members, in the set's order (all: m.all)
	need      int           // acquisitions that make the quorum
	allowFail int           // failures that still leave it reachable
	share     time.Duration // each member's wait, at most; 0 tries each once
	deadline  time.Time     // with share: the end of the whole wait
	bound     time.Duration // without share: each try's bound (0: none)
	heldFails bool          // a member held by another owner fails the run
	lease     time.Duration // the final fixed lease (0: none), see lateGrace
}

// ran is the outcome of tryParallel.
type ran struct {
	acquired      []held // when ok: the members taken, in the set's order
	ok            bool
	held          bool // a member was held by another owner
	failed        int  // members not taken
	failedForGood int  // of which with a permanent error
	byError       bool // a member failed with an error
	err           error
	// late, when ok, is closed once the tries still running at the
	// decision have ended and what they took is given back.
	late <-chan struct{}
}

// minGrace and maxGrace bound lateGrace.
const (
	minGrace = 10 * time.Millisecond
	maxGrace = 100 * time.Millisecond
)

// lateGrace is how long a run that reached its quorum after elapsed still
// waits for the members that have not answered, so that a member whose
// reply is only a little behind (a busy machine, a connection being
// dialled) is held too rather than given back: a hold of exactly a quorum
// ends when one member is lost, where Redisson would have held every member
// it reached. A silent server costs each acquisition that much. The
// ordered phase gets the same grace: a member still waiting for another
// owner when it ends is cancelled, and the lock is ours already, but a
// shorter one made holds of exactly a quorum the rule there. A fixed
// lease's validity runs meanwhile, so the grace takes at most a tenth of
// it.
func lateGrace(elapsed, lease time.Duration) time.Duration {
	g := min(max(2*elapsed, minGrace), maxGrace)
	if lease > 0 {
		g = min(g, lease/10)
	}
	return g
}

// tryParallel tries the members of r.idx for owner: those of different
// clients in parallel, those of one client one after another in the set's
// order. It succeeds once r.need are taken (it then waits lateGrace for the
// others), and fails as soon as more than r.allowFail were not, a member
// was held with r.heldFails, or ctx ended.
//
// Nothing it took is left behind when it fails: it waits for every try
// still running (each ends by its own bound, or, cancelled, once the
// member has compensated it) and releases what they took. When it
// succeeds, the tries still running are cancelled and whatever they take is
// released in the background (ran.late is closed after): they do not
// belong to the hold.
func (m *Lock) tryParallel(ctx context.Context, owner int64, lease time.Duration, r run, cause *error) ran {
	rctx, stop := context.WithCancel(ctx)
	var decided atomic.Bool
	out := make(chan tried, len(r.idx))
	tryGroup := func(g []int) {
		for _, i := range g {
			if decided.Load() {
				out <- tried{i: i, skipped: true}
				continue
			}
			wait, bound := time.Duration(0), r.bound
			if r.share > 0 {
				// Once the wait is over a member taken would be given
				// back (redAttempt, as Redisson's pass): send nothing, and
				// count the member as not taken, so that the run fails
				// without waiting for the others.
				if wait = time.Until(r.deadline); wait <= 0 {
					out <- tried{i: i}
					continue
				}
				wait = min(r.share, wait)
				bound = wait + memberGrace
			}
			out <- m.tryMember(rctx, i, owner, lease, wait, bound)
		}
	}
	start := time.Now()
	groups := m.clients
	if len(r.idx) != len(m.members) {
		groups = byClient(r.idx, m.clientOf)
	}
	// Every client's members on a goroutine of their own, the first's
	// included: the caller decides as soon as the replies allow, not once
	// its own server has answered (it may be the silent one).
	for _, g := range groups {
		go tryGroup(g)
	}
	var res ran
	got := make([]tried, 0, len(r.idx))
	pending := len(r.idx)
	var grace *time.Timer
	var graceC <-chan time.Time
	failed := false
loop:
	for pending > 0 {
		select {
		case t := <-out:
			pending--
			switch {
			case t.skipped:
			case t.ok:
				got = append(got, t)
			default:
				res.failed++
				res.held = res.held || t.held
				failed = failed || (t.held && r.heldFails)
				if t.err != nil {
					res.err, res.byError = memberErr(m.members[t.i].Name(), t.err), true
					*cause = res.err
					if permanent(t.err) {
						res.failedForGood++
					}
				}
			}
		case <-ctx.Done():
			break loop
		case <-graceC:
			break loop
		}
		if failed = failed || res.failed > r.allowFail; failed {
			break
		}
		if len(got) >= r.need && graceC == nil {
			grace = time.NewTimer(lateGrace(time.Since(start), r.lease))
			graceC = grace.C
		}
	}
	if grace != nil {
		grace.Stop()
	}
	decided.Store(true)
	if failed || ctx.Err() != nil || len(got) < r.need {
		if r.share > 0 {
			// Members that wait would wait out their share for nothing;
			// cancelled, they stop waiting, and one whose script is on
			// its way compensates it before it returns. A first-pass
			// try (no wait) is left to end by itself, at its reply or
			// its bound: r.bound when the caller waits, else only
			// go-redis' ReadTimeout, as in Redisson's pass. Cancelled,
			// it would wait instead for the compensation of a server
			// that does not answer.
			stop()
		}
		for ; pending > 0; pending-- {
			t := <-out
			if t.ok {
				got = append(got, t)
			} else if t.err != nil && permanent(t.err) {
				// The decision did not need it, but the next pass
				// would fail on it too.
				res.failedForGood++
				res.err, res.byError = memberErr(m.members[t.i].Name(), t.err), true
				*cause = res.err
			}
		}
		stop()
		m.unlockAll(ctx, m.heldOf(got))
		return res
	}
	if pending > 0 {
		done := make(chan struct{})
		res.late = done
		go func(pending int) {
			defer close(done)
			stop()
			var late []tried
			for ; pending > 0; pending-- {
				if t := <-out; t.ok {
					late = append(late, t)
				}
			}
			m.unlockAll(ctx, m.heldOf(late))
		}(pending)
	} else {
		stop()
	}
	slices.SortFunc(got, func(a, b tried) int { return cmp.Compare(a.i, b.i) })
	res.acquired, res.ok = m.heldOf(got), true
	return res
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

func (m *Lock) heldOf(ts []tried) []held {
	hs := make([]held, len(ts))
	for k, t := range ts {
		hs[k] = held{m.members[t.i], t.h}
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
	n, quorum, limit := len(m.members), m.Quorum(), m.failedLimit()
	start := time.Now()
	var deadline time.Time
	var bound time.Duration
	if wait > 0 {
		deadline = start.Add(wait)
		bound = m.memberWait(wait) + memberGrace
	}
	var lastErr error
	if wait <= 0 || time.Now().UnixNano() >= m.contended.Load() {
		// Without a wait a member held by another owner is just a
		// failure, as in Redisson's pass; with one it sends us to the
		// ordered passes.
		r := m.tryParallel(ctx, owner, newLease, run{idx: m.all, need: quorum, allowFail: limit, bound: bound, heldFails: wait > 0, lease: lease}, cause)
		if r.held && wait > 0 {
			m.contended.Store(time.Now().Add(contendedFor).UnixNano())
		}
		switch {
		case r.ok && wait > 0 && time.Until(deadline) <= 0:
			m.giveBack(ctx, r.acquired, r.late)
			return nil, false, r.err
		case r.ok:
			return m.finishLate(ctx, parent, owner, r.acquired, lease, newLease, start, r.late)
		case ctx.Err() != nil:
			return nil, false, ended(ctx, *cause)
		case r.failedForGood > limit:
			return nil, true, r.err
		case wait <= 0:
			return nil, false, r.err
		}
		lastErr = r.err
	}
	perLock := m.memberWait(wait)
	for {
		passStart := time.Now()
		failed, failedForGood, byError := 0, 0, false
		var passErr error
		leader := -1
		var lh lockable.Hold
		for i := 0; i < n; i++ {
			remain := time.Until(deadline)
			if remain <= 0 {
				return nil, false, cmp.Or(passErr, lastErr)
			}
			w := min(perLock, remain)
			t := m.tryMember(ctx, i, owner, newLease, w, w+memberGrace)
			if ctx.Err() != nil {
				if t.ok {
					m.unlockAll(ctx, []held{{m.members[i], t.h}})
				}
				return nil, false, ended(ctx, *cause)
			}
			if t.ok {
				leader, lh = i, t.h
				break
			}
			failed++
			if t.err != nil {
				passErr, byError = memberErr(m.members[i].Name(), t.err), true
				*cause = passErr
				if permanent(t.err) {
					if failedForGood++; failedForGood > limit {
						return nil, true, passErr // the set cannot be taken without these
					}
				}
			}
			if failed > limit {
				break
			}
		}
		if leader >= 0 {
			first := held{m.members[leader], lh}
			if time.Until(deadline) <= 0 {
				m.unlockAll(ctx, []held{first})
				return nil, false, passErr
			}
			r := m.tryParallel(ctx, owner, newLease, run{idx: m.all[leader+1:], need: quorum - 1, allowFail: limit - failed, share: perLock, deadline: deadline, lease: lease}, cause)
			if r.ok {
				acquired := append([]held{first}, r.acquired...)
				if time.Until(deadline) <= 0 {
					m.giveBack(ctx, acquired, r.late)
					return nil, false, cmp.Or(r.err, passErr)
				}
				return m.finishLate(ctx, parent, owner, acquired, lease, newLease, passStart, r.late)
			}
			m.unlockAll(ctx, []held{first})
			if ctx.Err() != nil {
				return nil, false, ended(ctx, *cause)
			}
			if r.err != nil {
				passErr = r.err
			}
			byError = byError || r.byError
			if failedForGood += r.failedForGood; failedForGood > limit {
				return nil, true, passErr
			}
		}
		lastErr = passErr
		if time.Until(deadline) <= 0 {
			return nil, false, lastErr
		}
		if byError {
			if err := sleep(ctx, min(errorBackoff, time.Until(deadline))); err != nil {
				return nil, false, ended(ctx, *cause)
			}
		}
	}
}
