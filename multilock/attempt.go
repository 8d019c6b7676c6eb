package multilock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/lockable"
)

// memberGrace is how long a member call may run past its share of the
// wait before the multi-lock gives up on it: its own wait ends first, and a
// server that does not answer costs no more than its share.
const memberGrace = 100 * time.Millisecond

// errorBackoff is how long a waiting pass that failed on an error (rather
// than a held member) pauses before it starts over, so that a server that is
// down does not turn the wait into a busy loop.
const errorBackoff = 50 * time.Millisecond

// attempt is Redisson's tryLock(waitTime, leaseTime) (docs/protocol.md §11.1),
// run under ctx; the hold keeps parent's values (the caller's context,
// without an observer's span). It
// returns the hold, or nil and the error that made it fail (nil when members
// were merely held), terminal when trying again cannot help (a member's
// client is closed, or it refuses the request, and the set cannot be
// taken without it). *cause keeps the last member error across passes and
// calls: it is reported with ctx's cause when ctx ends.
func (m *Lock) attempt(ctx, parent context.Context, owner int64, wait, lease time.Duration, cause *error) (*Hold, bool, error) {
	newLease := provisionalLease(wait, lease)
	if m.red && len(m.clients) > 1 {
		return m.redAttempt(ctx, parent, owner, wait, lease, newLease, cause)
	}
	s := m.newSeqRun(ctx, owner, wait, newLease, *cause)
	defer func() { *cause = s.cause }()
loop:
	for i := 0; i < len(m.members); i++ {
		switch s.take(i) {
		case seqEnough:
			break loop
		case seqAgain:
			i = -1
		case seqOver:
			return nil, s.terminal, s.err
		}
	}
	if len(s.acquired) < m.Quorum() {
		// Only when the loop ended on the last member with too few held.
		m.unlockAll(ctx, s.acquired)
		return nil, false, s.lastErr
	}
	return m.finish(ctx, parent, owner, s.acquired, lease, newLease, s.passStart)
}

// seqRun is the state attempt carries across the members it takes one
// after another and across its passes: a pass that fails more than
// failedLimit members gives back what it took and, while the wait lasts,
// starts again from the first member.
type seqRun struct {
	m        *Lock
	ctx      context.Context
	owner    int64
	wait     time.Duration
	newLease time.Duration
	cause    error // the last member error, for attempt's *cause

	remain   time.Duration // the wait left; -1: no wait
	last     time.Time     // when remain was last counted down
	perLock  time.Duration
	limit    int // failures the pass may still take
	acquired []held
	// passStart is when the current pass sent its first request.
	passStart     time.Time
	lastErr       error // the pass's last member error
	failedByError bool  // a member of the pass failed with an error
	failedForGood int   // members of the pass failed with a permanent error

	// terminal and err are the attempt's result once take says seqOver.
	terminal bool
	err      error
}

// seqStep is what take says attempt does next.
type seqStep int

const (
	seqNext   seqStep = iota // take the next member
	seqEnough                // stop taking: a RedLock's quorum is reached
	seqAgain                 // a new pass: start from the first member
	seqOver                  // the attempt failed: seqRun.terminal, seqRun.err
)

func (m *Lock) newSeqRun(ctx context.Context, owner int64, wait, newLease time.Duration, cause error) seqRun {
	s := seqRun{m: m, ctx: ctx, owner: owner, wait: wait, newLease: newLease, cause: cause,
		remain: -1, limit: m.failedLimit()}
	if wait > 0 {
		s.remain = wait
	}
	s.perLock = m.memberWait(s.remain)
	s.acquired = make([]held, 0, len(m.members))
	s.passStart = time.Now()
	s.last = s.passStart
	return s
}

// take tries member i and says what comes next.
func (s *seqRun) take(i int) seqStep {
	m := s.m
	l := m.members[i]
	var await, bound time.Duration
	if s.remain > 0 {
		// A member must not keep us past its share of the wait, not
		// even a server that does not answer (a RedLock moves on to
		// the next server); the member's own wait ends first.
		await = min(s.perLock, s.remain)
		bound = await + memberGrace
	}
	t := m.tryMember(s.ctx, i, s.owner, s.newLease, await, bound)
	if s.ctx.Err() != nil {
		if t.ok {
			s.acquired = append(s.acquired, held{l, t.h, i})
		}
		return s.fail(false, ended(s.ctx, s.cause))
	}
	step := seqNext
	if t.ok {
		s.acquired = append(s.acquired, held{l, t.h, i})
	} else {
		if s.memberFailed(l, t.err) {
			// The set cannot be taken without this member.
			return s.fail(true, s.lastErr)
		}
		if len(m.members)-len(s.acquired) == m.failedLimit() {
			return seqEnough // a RedLock's quorum is reached: the rest cannot fail it
		}
		if s.limit > 0 {
			s.limit--
		} else {
			m.unlockAll(s.ctx, s.acquired)
			s.acquired = s.acquired[:0]
			if s.wait <= 0 {
				return s.fail(false, s.lastErr)
			}
			if err := s.newPass(); err != nil {
				return s.fail(false, ended(s.ctx, s.cause))
			}
			step = seqAgain
		}
	}
	if s.outOfTime() {
		return s.fail(false, s.lastErr)
	}
	return step
}

// memberFailed records the error a member l failed with, if any, and
// reports whether the pass has more permanent failures than it may take.
func (s *seqRun) memberFailed(l lockable.Lock, err error) bool {
	if err == nil {
		return false
	}
	s.lastErr, s.failedByError = memberErr(l.Name(), err), true
	s.cause = s.lastErr
	if !permanent(err) {
		return false
	}
	s.failedForGood++
	return s.failedForGood > s.m.failedLimit()
}

// newPass begins a new pass, after errorBackoff when the last one failed
// on an error; it returns ctx's cause when ctx ends meanwhile.
func (s *seqRun) newPass() error {
	s.limit = s.m.failedLimit()
	if s.failedByError {
		s.failedByError = false
		if err := sleep(s.ctx, min(errorBackoff, s.remain-time.Since(s.last))); err != nil {
			return err
		}
	}
	// A new pass: its result is its own failures.
	s.lastErr, s.failedForGood = nil, 0
	s.passStart = time.Now()
	return nil
}

// outOfTime counts the time since it last ran off the wait and reports
// whether the wait is over.
func (s *seqRun) outOfTime() bool {
	if s.remain <= 0 {
		return false
	}
	now := time.Now()
	s.remain -= now.Sub(s.last)
	s.last = now
	return s.remain <= 0
}

// fail gives back what the attempt holds and ends it with err.
func (s *seqRun) fail(terminal bool, err error) seqStep {
	s.m.unlockAll(s.ctx, s.acquired)
	s.terminal, s.err = terminal, err
	return seqOver
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
		// Every lease was set by a request sent after passStart.
		validUntil = validFrom(passStart, lease)
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
			conns.ReserveStack(c)
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
