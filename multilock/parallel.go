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
)

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
// owner when it ends is cancelled (the lock is ours already), and without
// it holds of exactly a quorum would be the rule there. A fixed lease's
// validity runs meanwhile, so the grace takes at most a tenth of it.
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
	p, stop := m.newParRun(ctx, start, owner, lease, r)
	// Every client's members on a goroutine of their own, the first's
	// included: the caller decides as soon as the replies allow, not once
	// its own server has answered (it may be the silent one).
	for _, g := range m.clients {
		if k, _ := slices.BinarySearch(g, r.from); k < len(g) {
			go p.tryGroup(g[k:])
		}
	}
	d := tally{got: p.got[:0], pending: p.n, cause: *cause}
	p.decide(ctx, &d, start)
	p.decided.Store(true)
	var res ran
	if d.failed || ctx.Err() != nil || len(d.got) < r.need {
		res = p.lost(ctx, &d, stop)
	} else {
		res = p.won(ctx, &d, stop)
	}
	*cause = d.cause
	return res
}

// newParRun prepares the run r for owner, starting at start; stop cancels
// its context.
func (m *Lock) newParRun(ctx context.Context, start time.Time, owner int64, lease time.Duration, r run) (*parRun, context.CancelFunc) {
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
	return p, stop
}

// tally is what the caller of tryParallel has read of the run's outcomes
// while it decides.
type tally struct {
	res     ran
	got     []tried // the members taken
	pending int     // tries whose outcome was not read yet
	failed  bool    // the run has failed
	cause   error   // the last member error, for tryParallel's *cause
}

// decide reads the outcomes until the run is decided: it failed, every
// outcome is in, ctx ended, or the quorum was reached and lateGrace
// passed since.
func (p *parRun) decide(ctx context.Context, d *tally, start time.Time) {
	var grace *time.Timer
	var graceC <-chan time.Time
	defer func() {
		if grace != nil {
			grace.Stop()
		}
	}()
	for {
		p.consume(d)
		if d.failed || d.pending == 0 {
			return
		}
		if len(d.got) >= p.r.need && graceC == nil {
			grace = time.NewTimer(lateGrace(time.Since(start), p.r.lease))
			graceC = grace.C
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			return
		case <-graceC:
			// What came during the grace (it woke nobody) is in.
			p.consume(d)
			return
		}
	}
}

// consume reads the outcomes delivered since it last ran.
func (p *parRun) consume(d *tally) {
	for _, t := range p.unread() {
		d.pending--
		switch {
		case t.skipped:
		case t.ok:
			d.got = append(d.got, t)
		default:
			d.res.failed++
			d.res.held = d.res.held || t.held
			d.failed = d.failed || (t.held && p.r.heldFails)
			if t.err != nil {
				d.noteErr(p.m, t)
			}
		}
	}
	d.failed = d.failed || d.res.failed > p.r.allowFail
}

// noteErr records the error of the try t.
func (d *tally) noteErr(m *Lock, t tried) {
	d.res.err, d.res.byError = memberErr(m.members[t.i].Name(), t.err), true
	d.cause = d.res.err
	if permanent(t.err) {
		d.res.failedForGood++
	}
}

// lost ends a run that failed: it waits for the tries still running and
// gives back everything the run took.
func (p *parRun) lost(ctx context.Context, d *tally, stop context.CancelFunc) ran {
	if p.r.share > 0 {
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
	p.rest(d.pending, func(t tried) {
		if t.ok {
			d.got = append(d.got, t)
		} else if t.err != nil && permanent(t.err) {
			// The decision did not need it, but the next pass
			// would fail on it too.
			d.noteErr(p.m, t)
		}
	})
	stop()
	p.m.unlockAll(ctx, p.m.heldOf(d.got, nil))
	return d.res
}

// won ends a run that reached its quorum: the tries still running are
// cancelled, and what they take is given back in the background
// (ran.late is closed after).
func (p *parRun) won(ctx context.Context, d *tally, stop context.CancelFunc) ran {
	if d.pending > 0 {
		done := make(chan struct{})
		d.res.late = done
		go func(pending int) {
			defer close(done)
			stop()
			var late []tried
			p.rest(pending, func(t tried) {
				if t.ok {
					late = append(late, t)
				}
			})
			p.m.unlockAll(ctx, p.m.heldOf(late, nil))
		}(d.pending)
	} else {
		stop()
	}
	slices.SortFunc(d.got, func(a, b tried) int { return cmp.Compare(a.i, b.i) })
	d.res.acquired, d.res.ok = p.m.heldOf(d.got, p.r.lead), true
	return d.res
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
