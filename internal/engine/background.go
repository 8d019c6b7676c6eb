package engine

import (
	"context"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/retry"
)

// Background work per owner field (Engine.undos): undos, settles and
// extends whose callers left run one after another, and an acquire of the
// field waits for them, so that none of them lands after a later hold.

// later runs fn for field in the background, registered with the runtime
// so that Close waits for it (bounded), after the background work of field
// already registered (in the order of the acquires it compensates), and
// returns a channel closed when fn has run. Until then an acquire of field
// waits for it (awaitUndo), and so does the compensation of a later
// acquire. bg keeps ctx's values only. Once Close has begun fn runs on the
// caller's goroutine, after the registered work (bounded by the client's
// timeout): Close waits for nothing new.
func (l *Lock) later(ctx context.Context, field string, fn func(bg context.Context)) chan struct{} {
	key := undoKey{l.queueKey, field}
	done := make(chan struct{})
	e := l.e
	e.undoMu.Lock()
	prev := e.undos[key]
	w, err := l.rt.Inflight().Begin()
	if err == nil {
		if e.undos == nil {
			e.undos = make(map[undoKey]chan struct{})
		}
		e.undos[key] = done
	}
	e.undoMu.Unlock()
	bg := context.WithoutCancel(ctx)
	if err != nil {
		if prev != nil {
			l.awaitDone(prev)
		}
		fn(bg)
		close(done)
		return done
	}
	go func() {
		defer w.End()
		defer func() {
			e.undoMu.Lock()
			if e.undos[key] == done {
				delete(e.undos, key)
			}
			e.undoMu.Unlock()
			close(done)
		}()
		if prev != nil {
			<-prev
		}
		fn(bg)
	}()
	return done
}

// awaitDone waits for background work's done channel, bounded by how long
// Close would wait for it: a cancelled call does not stay past that while
// Redis does not answer (the work goes on, and Close waits for it).
func (l *Lock) awaitDone(done <-chan struct{}) {
	t := time.NewTimer(l.rt.Inflight().CloseWait())
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// undoPending reports whether an undo of field runs in the background.
func (l *Lock) undoPending(field string) bool { return l.undoRunning(field) != nil }

// undoRunning returns the done channel of an undo running in the
// background that an acquire of field must wait for, or nil: one of field,
// or, when counts overlap between identities (Config.Overlaps), one of any
// identity of the object, whose undo could release counts field takes.
func (l *Lock) undoRunning(field string) chan struct{} {
	l.e.undoMu.Lock()
	defer l.e.undoMu.Unlock()
	if done := l.e.undos[undoKey{l.queueKey, field}]; done != nil {
		return done
	}
	if l.cfg.Overlaps != nil {
		for k, done := range l.e.undos {
			if k.object == l.queueKey {
				return done
			}
		}
	}
	return nil
}

// awaitUndo waits until no undo an acquire of field must wait for runs in
// the background (undoRunning), or ctx is done, or the client closes. It
// reports false when deadline (zero: none) comes first: a TryLock's wait
// bounds this wait too (an undo retried through an outage can take
// seconds).
func (l *Lock) awaitUndo(ctx context.Context, field string, deadline time.Time) (bool, error) {
	var over <-chan time.Time
	for {
		done := l.undoRunning(field)
		if done == nil {
			return true, nil
		}
		if over == nil && !deadline.IsZero() {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			over = t.C
		}
		select {
		case <-done:
		case <-over:
			return false, nil
		case <-ctx.Done():
			return false, context.Cause(ctx)
		case <-l.rt.Closed():
			return false, core.ErrClosed
		}
	}
}

// backOff reports whether background work whose send failed with err
// should send again, per its retry budget r, and sleeps the back-off
// first (cut short when the client closes): not once the client is
// closing.
func (l *Lock) backOff(bg context.Context, r *retry.Retry, err error) bool {
	if l.rt.Lifetime().Err() != nil {
		return false
	}
	d, again := r.After(bg, err)
	if !again {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.rt.Closed():
	}
	return true
}
