package multilock

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goredisson/redisson/internal/conns"
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

// run describes one parallel try of some members (tryParallel).
type run struct {
	from      int           // the members tried: from..n-1 (0: all)
	need      int           // acquisitions that make the quorum
	allowFail int           // failures that still leave it reachable
	share     time.Duration // each member's wait, at most; 0 tries each once
	deadline  time.Time     // with share: the end of the whole wait
	bound     time.Duration // without share: each try's bound (0: none)
	heldFails bool          // a member held by another owner fails the run
	lease     time.Duration // the final fixed lease (0: none), see lateGrace
	lead      *held         // a member taken before the run: first in ran.acquired
}

// errBound is the cause of a try's context when its bound (run.bound, or
// its share of the wait + memberGrace) ended it.
var errBound = errors.New("the member's share of the wait ended")

// parRun is one tryParallel call, shared with the goroutines that try its
// members.
type parRun struct {
	m     *Lock
	ctx   context.Context // cancelled once decided; its deadline (cause errBound) bounds each client's first try
	owner int64
	lease time.Duration
	r     run
	n     int // members tried

	decided atomic.Bool
	// The tries' outcomes, in the order they ended. The goroutine that
	// decides (the caller, then the one that gives back late tries) is
	// woken only by an outcome that may change what it does: the one that
	// completes the quorum, one that fails the run, the last one; the
	// others it reads when it wakes.
	mu      sync.Mutex
	results []tried
	ok      int // of results: taken
	notOK   int // ... not taken (skipped ones aside)
	wake    chan struct{}
	seen    int      // results the decider has read
	buf     [5]tried // storage of results for up to 5 members
	got     [4]tried // storage of the usual few acquisitions
}

// deliver records the outcome of a try.
func (p *parRun) deliver(t tried) {
	p.mu.Lock()
	p.results = append(p.results, t)
	wake := len(p.results) == p.n
	switch {
	case t.skipped:
	case t.ok:
		p.ok++
		wake = wake || p.ok == p.r.need
	default:
		p.notOK++
		wake = wake || p.notOK > p.r.allowFail || (t.held && p.r.heldFails)
	}
	p.mu.Unlock()
	if wake {
		select {
		case p.wake <- struct{}{}:
		default: // the decider has a wake-up pending already
		}
	}
}

// unread returns the outcomes delivered since the last call.
func (p *parRun) unread() []tried {
	p.mu.Lock()
	ts := p.results[p.seen:len(p.results):len(p.results)]
	p.seen = len(p.results)
	p.mu.Unlock()
	return ts
}

// tryGroup tries g, members of one client, one after another, and
// delivers each outcome.
func (p *parRun) tryGroup(g []int) {
	conns.ReserveStack(len(g))
	r := &p.r
	for k, i := range g {
		if p.decided.Load() {
			p.deliver(tried{i: i, skipped: true})
			continue
		}
		wait, bound := time.Duration(0), r.bound
		if r.share > 0 {
			// Once the wait is over a member taken would be given back
			// (redAttempt, as Redisson's pass): send nothing, and count
			// the member as not taken, so that the run fails without
			// waiting for the others.
			if wait = time.Until(r.deadline); wait <= 0 {
				p.deliver(tried{i: i})
				continue
			}
			wait = min(r.share, wait)
			bound = wait + memberGrace
		}
		if k == 0 && p.m.onePerClient {
			bound = 0 // p.ctx's deadline is its bound
		}
		p.deliver(p.m.tryMember(p.ctx, i, p.owner, p.lease, wait, bound))
	}
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

// tryParallel tries the members from r.from on for owner: those of
// different clients in parallel, those of one client one after another in
// the set's order. It succeeds once r.need are taken (it then waits
// lateGrace for the others), and fails as soon as more than r.allowFail
// were not, a member was held with r.heldFails, or ctx ended.
//
// Nothing it took is left behind when it fails: it waits for every try
// still running (each ends by its own bound, or, cancelled, once the
// member has compensated it) and releases what they took. When it
// succeeds, the tries still running are cancelled and whatever they take is
// released in the background (ran.late is closed after): they do not
// belong to the hold.
func (m *Lock) tryParallel(ctx context.Context, owner int64, lease time.Duration, r run, cause *error) ran {
	start := time.Now()
	n := len(m.members) - r.from
	p := &parRun{m: m, owner: owner, lease: lease, r: r, n: n, wake: make(chan struct{}, 1)}
	p.results = p.buf[:0]
	if n > len(p.buf) {
		p.results = make([]tried, 0, n)
	}
	// The first member of each client is cut by the run's context, whose
	// deadline is that member's bound (they all start now): one timer for
	// the run instead of a context and a timer per member. A later member
	// of a client starts when the one before it ended and gets a bound of
	// its own (tryGroup).
	first := r.bound
	if r.share > 0 {
		if w := min(r.share, time.Until(r.deadline)); w > 0 {
			first = w + memberGrace
		} else {
			first = 0 // nothing is sent (tryGroup)
		}
	}
	var stop context.CancelFunc
	if first > 0 && m.onePerClient {
		p.ctx, stop = context.WithDeadlineCause(ctx, start.Add(first), errBound)
	} else {
		p.ctx, stop = context.WithCancel(ctx)
	}
	// Every client's members on a goroutine of their own, the first's
	// included: the caller decides as soon as the replies allow, not once
	// its own server has answered (it may be the silent one).
	for _, g := range m.clients {
		if k, _ := slices.BinarySearch(g, r.from); k < len(g) {
			go p.tryGroup(g[k:])
		}
	}
	var res ran
	got := p.got[:0]
	pending := n
	var grace *time.Timer
	var graceC <-chan time.Time
	failed := false
	// consume reads the outcomes delivered since it last ran.
	consume := func() {
		for _, t := range p.unread() {
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
		}
		failed = failed || res.failed > r.allowFail
	}
loop:
	for {
		consume()
		if failed || pending == 0 {
			break
		}
		if len(got) >= r.need && graceC == nil {
			grace = time.NewTimer(lateGrace(time.Since(start), r.lease))
			graceC = grace.C
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			break loop
		case <-graceC:
			// What came during the grace (it woke nobody) is in.
			consume()
			break loop
		}
	}
	if grace != nil {
		grace.Stop()
	}
	p.decided.Store(true)
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
		p.rest(pending, func(t tried) {
			if t.ok {
				got = append(got, t)
			} else if t.err != nil && permanent(t.err) {
				// The decision did not need it, but the next pass
				// would fail on it too.
				res.failedForGood++
				res.err, res.byError = memberErr(m.members[t.i].Name(), t.err), true
				*cause = res.err
			}
		})
		stop()
		m.unlockAll(ctx, m.heldOf(got, nil))
		return res
	}
	if pending > 0 {
		done := make(chan struct{})
		res.late = done
		go func(pending int) {
			defer close(done)
			stop()
			var late []tried
			p.rest(pending, func(t tried) {
				if t.ok {
					late = append(late, t)
				}
			})
			m.unlockAll(ctx, m.heldOf(late, nil))
		}(pending)
	} else {
		stop()
	}
	slices.SortFunc(got, func(a, b tried) int { return cmp.Compare(a.i, b.i) })
	res.acquired, res.ok = m.heldOf(got, r.lead), true
	return res
}

// rest waits for the pending tries still running once the run is decided
// and passes each outcome to fn.
func (p *parRun) rest(pending int, fn func(tried)) {
	for {
		for _, t := range p.unread() {
			pending--
			fn(t)
		}
		if pending == 0 {
			return
		}
		<-p.wake // the last outcome wakes it
	}
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
		r := m.tryParallel(ctx, owner, newLease, run{need: quorum, allowFail: limit, bound: bound, heldFails: wait > 0, lease: lease}, cause)
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
					m.unlockAll(ctx, []held{{m.members[i], t.h, i}})
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
			first := held{m.members[leader], lh, leader}
			if time.Until(deadline) <= 0 {
				m.unlockAll(ctx, []held{first})
				return nil, false, passErr
			}
			r := m.tryParallel(ctx, owner, newLease, run{from: leader + 1, lead: &first, need: quorum - 1, allowFail: limit - failed, share: perLock, deadline: deadline, lease: lease}, cause)
			if r.ok {
				acquired := r.acquired
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
