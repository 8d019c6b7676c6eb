package renewal

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// round is the renewal work of one tick.
type round struct {
	sent     int64 // taken before the request is sent: renewed leases are valid until sent+TTL
	deadline int64
	leases   []*Lease
	// done is closed once go-redis has ended the round's pipeline, which
	// may be after the round's answers were applied (at its deadline).
	done chan struct{}
}

// lostLease is an OnLost call to make once w.mu is released.
type lostLease struct {
	l   *Lease
	err error
}

// loop is the tick goroutine: it processes every bucket up to now, hands the
// due renewals to a round goroutine and sleeps until the next non-empty
// bucket.
func (w *Wheel) loop() {
	defer w.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var lost []lostLease
	for {
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return
		}
		now := w.now()
		var r *round
		r, lost = w.collect(now, lost[:0])
		if r != nil {
			w.wg.Add(1) // under w.mu and before Close's Wait
			go w.runRound(r)
		}
		next := w.nextTick()
		w.wakeTick = next
		w.mu.Unlock()
		w.notify(lost)
		clear(lost) // drop references until the next tick

		var timeout <-chan time.Time
		if next != math.MaxInt64 {
			d := time.Duration(next*w.tick - w.now())
			if d <= 0 {
				continue
			}
			timer.Reset(d)
			timeout = timer.C
		}
		select {
		case <-timeout:
		case <-w.wake:
			timer.Stop()
		case <-w.ctx.Done():
			timer.Stop()
			return
		}
	}
}

// collect processes the buckets of every tick up to now: fixed leases and
// leases past their validity are lost, the other due leases go into the
// returned round. It visits only non-empty buckets and, in them, the entries
// of later rotations besides the due ones. w.mu held.
func (w *Wheel) collect(now int64, lost []lostLease) (*round, []lostLease) {
	nowTick := now / w.tick
	span := nowTick - w.cur
	if span <= 0 {
		return nil, lost
	}
	if span > wheelSize {
		span = wheelSize // one pass over all buckets catches up any gap
	}
	var r *round
	capacity := 0 // upper bound of the round's size, to allocate once
	for t := w.cur + 1; t <= w.cur+span; t++ {
		if b := t & wheelMask; w.used[b>>6]&(1<<(b&63)) != 0 {
			capacity += int(w.sizes[b])
		}
	}
	for t := w.cur + 1; t <= w.cur+span; t++ {
		b := t & wheelMask
		if w.used[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		for l := w.heads[b]; l != nil; {
			next := l.next
			if l.tick <= nowTick {
				w.unlink(l)
				// A lease is linked at or before its loss tick: a fixed one
				// and one still in flight there are lost now, a scheduled
				// one once its loss time has passed.
				if !l.renews() || l.state == stateInFlight || now >= l.lossAt {
					err := expired(l)
					l.state = stateDone
					w.n--
					lost = append(lost, lostLease{l, err})
				} else {
					if r == nil {
						r = &round{sent: now, deadline: now + int64(w.cfg.Timeout), leases: make([]*Lease, 0, capacity), done: make(chan struct{})}
					}
					l.state = stateInFlight
					l.roundDone = r.done
					l.roundTTL = l.ttl
					r.leases = append(r.leases, l)
					r.deadline = min(r.deadline, l.lossAt)
					w.linkLoss(l)
				}
			}
			l = next
		}
	}
	w.cur = nowTick
	return r, lost
}

func expired(l *Lease) error {
	switch {
	case !l.renews():
		return ErrFixedLeaseEnded
	case l.lastErr != nil:
		return fmt.Errorf("%w (last renewal error: %w)", ErrLeaseExpired, l.lastErr)
	case l.state == stateInFlight:
		return fmt.Errorf("%w (no reply to the renewal in time)", ErrLeaseExpired)
	}
	return ErrLeaseExpired
}

// notify calls OnLost outside w.mu, since it may call back into the wheel.
func (w *Wheel) notify(lost []lostLease) {
	for _, x := range lost {
		if errors.Is(x.err, ErrFixedLeaseEnded) {
			w.expired.Add(1)
		} else {
			w.lost.Add(1)
		}
		x.l.onLost(x.err)
	}
}
