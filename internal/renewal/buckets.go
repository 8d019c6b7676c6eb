package renewal

import (
	"math"
	"math/bits"
)

// schedule links l into the bucket of the first tick at or after due (never
// one already processed), or of the tick before its loss time if that comes
// first, and wakes the loop if it sleeps past it. w.mu held.
func (w *Wheel) schedule(l *Lease, due int64) {
	t := ceilDiv(due, w.tick)
	if lt := floorDiv(l.lossAt, w.tick); lt < t {
		t = lt
	}
	l.state = stateScheduled
	w.link(l, t)
}

// linkLoss links an in-flight lease into the bucket of its loss time, so
// that the tick reports it lost at that time whatever its round is doing.
// w.mu held.
func (w *Wheel) linkLoss(l *Lease) {
	w.link(l, floorDiv(l.lossAt, w.tick))
}

// link puts l into the bucket of tick t (or the next unprocessed one).
// w.mu held.
func (w *Wheel) link(l *Lease, t int64) {
	if t <= w.cur {
		t = w.cur + 1
	}
	l.linked = true
	l.tick = t
	b := t & wheelMask
	l.prev = nil
	l.next = w.heads[b]
	if l.next != nil {
		l.next.prev = l
	}
	w.heads[b] = l
	w.sizes[b]++
	w.used[b>>6] |= 1 << (b & 63)
	if t < w.wakeTick {
		w.wakeTick = t
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// unlink removes a lease from its bucket, if it is in one. w.mu held.
func (w *Wheel) unlink(l *Lease) {
	if !l.linked {
		return
	}
	l.linked = false
	b := l.tick & wheelMask
	if l.prev != nil {
		l.prev.next = l.next
	} else {
		w.heads[b] = l.next
	}
	if l.next != nil {
		l.next.prev = l.prev
	}
	l.prev, l.next = nil, nil
	w.sizes[b]--
	if w.heads[b] == nil {
		w.used[b>>6] &^= 1 << (b & 63)
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 {
	if a > 0 {
		return (a-1)/b + 1
	}
	return a / b // truncation toward zero is the ceiling here
}

// nextTick returns the tick of the first non-empty bucket after w.cur, or
// MaxInt64 if all are empty. Its entries may belong to a later rotation; the
// loop then wakes once for nothing, at most once per rotation. w.mu held.
func (w *Wheel) nextTick() int64 {
	start := (w.cur + 1) & wheelMask
	wi := start >> 6
	off := uint(start & 63)
	for k := int64(0); k <= words; k++ {
		word := w.used[(wi+k)%words]
		switch k {
		case 0:
			word &= ^uint64(0) << off
		case words: // back at the first word: only the buckets before start
			word &= (1 << off) - 1
		}
		if word != 0 {
			b := ((wi+k)%words)<<6 + int64(bits.TrailingZeros64(word))
			return w.cur + 1 + (b-start)&wheelMask
		}
	}
	return math.MaxInt64
}
