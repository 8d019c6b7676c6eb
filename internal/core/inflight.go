package core

import (
	"context"
	"sync"
	"time"
)

// A non-idempotent acquire (a semaphore's decrement) that Close cuts off
// loses what it took for good: its reply, or the give-back of permits whose
// caller had left, would come after the application closed its go-redis
// client. Close therefore waits, for a bounded time, for the work
// registered here: acquires from before they are sent until their outcome
// is with their caller or given back, and give-backs of acquires whose
// caller left. Registration fails once Close has begun, so Close never
// waits for work that starts after it.

// inflight counts registered work.
type inflight struct {
	mu      sync.Mutex
	n       int
	closing bool
	idle    chan struct{} // closed when n reaches 0 after closing
	// stop is done when Close has returned: what is still running must not
	// send anything (the application may have closed its go-redis client).
	stop       context.Context
	cancelStop context.CancelFunc
}

func (f *inflight) init() {
	f.stop, f.cancelStop = context.WithCancel(context.Background())
}

// Inflight is one piece of registered work; End it exactly once (further
// calls do nothing).
type Inflight struct {
	f    *inflight
	once sync.Once
}

// Inflight registers work Close must wait for: an acquire that must not be
// cut off, from before it is sent until its outcome is handed to its
// caller or undone. It returns ErrClosed once Close has begun; nothing must
// then be sent.
func (rt *Runtime) Inflight() (*Inflight, error) {
	f := &rt.inflight
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing {
		return nil, ErrClosed
	}
	f.n++
	return &Inflight{f: f}, nil
}

// Fork registers more work on behalf of open work w (a check that outlives
// the call that started it). Unlike Runtime.Inflight it succeeds while Close waits:
// w keeps Close waiting until the fork is registered.
func (w *Inflight) Fork() *Inflight {
	w.f.mu.Lock()
	w.f.n++
	w.f.mu.Unlock()
	return &Inflight{f: w.f}
}

// End ends the work.
func (w *Inflight) End() {
	w.once.Do(func() {
		f := w.f
		f.mu.Lock()
		f.n--
		if f.n == 0 && f.closing {
			close(f.idle)
		}
		f.mu.Unlock()
	})
}

// InflightCount returns how much registered work is open (tests).
func (rt *Runtime) InflightCount() int {
	f := &rt.inflight
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// ForUndo returns a context for undoing an acquire (giving permits back):
// it keeps ctx's values but not its cancellation, is bounded by the client's
// timeout, and is done once Close has stopped waiting. Check Drained before
// sending on it: an undo that Close gave up on must not be sent.
func (rt *Runtime) ForUndo(ctx context.Context) (context.Context, context.CancelFunc) {
	dctx, cancel := rt.ForRelease(ctx)
	stop := context.AfterFunc(rt.inflight.stop, cancel)
	return dctx, func() {
		stop()
		cancel()
	}
}

// Drained is done once Close has stopped waiting for registered work (it
// then returns): nothing may be sent any more on behalf of the client's own
// background work, since the application may close its go-redis client.
func (rt *Runtime) Drained() context.Context { return rt.inflight.stop }

// CloseWait is how long Close waits for registered work: an acquire sent
// just before Close gets its reply within go-redis' ReadTimeout (or,
// without one, the client's timeout), and its give-back then takes at most
// the client's timeout.
func (rt *Runtime) CloseWait() time.Duration {
	reply := rt.conns.ReadTimeout()
	if reply <= 0 {
		reply = rt.timeout
	}
	if rt.sync.Enabled {
		// A synced acquire's reply comes after WAIT's own timeout.
		t := rt.sync.Timeout
		if t <= 0 {
			t = time.Second
		}
		reply += t
	}
	return reply + rt.timeout
}

// drain refuses new work and waits until the registered work has ended or
// CloseWait has passed; it reports how much work it stopped waiting for.
// Afterwards Drained is done. A second call waits again for what is left.
func (rt *Runtime) drain() (left int, waited time.Duration) {
	f := &rt.inflight
	defer f.cancelStop()
	f.mu.Lock()
	f.closing = true
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	if f.n == 0 {
		f.mu.Unlock()
		return 0, 0
	}
	f.mu.Unlock()
	start := time.Now()
	bound := rt.CloseWait()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-f.idle:
		return 0, time.Since(start)
	case <-t.C:
	}
	f.mu.Lock()
	left = f.n
	f.mu.Unlock()
	return left, bound
}
