// Package inflight keeps the client's work that Close must wait for: an
// acquire that must not be cut off (Tracker, Work), a call whose caller may
// stop waiting for it (Settle, Pending), and the give-back of what was taken
// for a caller who left (Tracker.GiveBack).
package inflight

import (
	"context"
	"sync"
	"time"

	"github.com/goredisson/redisson/internal/conns"
)

// A non-idempotent acquire (a semaphore's decrement) that Close cuts off
// loses what it took for good: its reply, or the give-back of permits whose
// caller had left, would come after the application closed its go-redis
// client. Close therefore waits, for a bounded time, for the work
// registered here: acquires from before they are sent until their outcome
// is with their caller or given back, and give-backs of acquires whose
// caller left. Registration fails once Close has begun, so Close never
// waits for work that starts after it.

// Config is what a Tracker is made of; New copies it.
type Config struct {
	// Conns gives go-redis' ReadTimeout and decides which calls Settle
	// runs on the caller's goroutine.
	Conns *conns.Pool
	// Timeout bounds one exchange that must finish without the caller's
	// context (a give-back).
	Timeout time.Duration
	// Synced is true when replica sync is on: an acquire's reply then
	// comes after WAIT's timeout, SyncTimeout (zero: a second).
	Synced      bool
	SyncTimeout time.Duration
	// Lifetime is done when the client's Close has begun.
	Lifetime context.Context
	// Closed is the error of work registered, or given back, too late.
	Closed error
	// Refused reports whether Redis turned a give-back away before it
	// changed anything, so that it may be sent again.
	Refused func(error) bool
}

// Tracker counts registered work.
type Tracker struct {
	cfg     Config
	mu      sync.Mutex
	n       int
	closing bool
	idle    chan struct{} // closed when n reaches 0 after closing
	// stop is done when Close has returned: what is still running must not
	// send anything (the application may have closed its go-redis client).
	stop       context.Context
	cancelStop context.CancelFunc
}

// New returns a Tracker with no work registered.
func New(cfg Config) *Tracker {
	t := &Tracker{cfg: cfg}
	t.stop, t.cancelStop = context.WithCancel(context.Background())
	return t
}

// Work is one piece of registered work; End it exactly once (further
// calls do nothing).
type Work struct {
	t    *Tracker
	once sync.Once
}

// Begin registers work Close must wait for: an acquire that must not be
// cut off, from before it is sent until its outcome is handed to its
// caller or undone. It returns Config.Closed once Close has begun; nothing
// must then be sent.
func (t *Tracker) Begin() (*Work, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing {
		return nil, t.cfg.Closed
	}
	t.n++
	return &Work{t: t}, nil
}

// Fork registers more work on behalf of open work w (a check that outlives
// the call that started it). Unlike Tracker.Begin it succeeds while Close
// waits: w keeps Close waiting until the fork is registered.
func (w *Work) Fork() *Work {
	w.t.mu.Lock()
	w.t.n++
	w.t.mu.Unlock()
	return &Work{t: w.t}
}

// End ends the work.
func (w *Work) End() {
	w.once.Do(func() {
		t := w.t
		t.mu.Lock()
		t.n--
		if t.n == 0 && t.closing {
			close(t.idle)
		}
		t.mu.Unlock()
	})
}

// Count returns how much registered work is open (tests).
func (t *Tracker) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// ForUndo returns a context for undoing an acquire (giving permits back):
// it keeps ctx's values but not its cancellation, is bounded by the client's
// timeout, and is done once Close has stopped waiting. Check Drained before
// sending on it: an undo that Close gave up on must not be sent.
func (t *Tracker) ForUndo(ctx context.Context) (context.Context, context.CancelFunc) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.cfg.Timeout)
	stop := context.AfterFunc(t.stop, cancel)
	return dctx, func() {
		stop()
		cancel()
	}
}

// Drained is done once Close has stopped waiting for registered work (it
// then returns): nothing may be sent any more on behalf of the client's own
// background work, since the application may close its go-redis client.
func (t *Tracker) Drained() context.Context { return t.stop }

// CloseWait is how long Close waits for registered work: an acquire sent
// just before Close gets its reply within go-redis' ReadTimeout (or,
// without one, the client's timeout), and its give-back then takes at most
// the client's timeout.
func (t *Tracker) CloseWait() time.Duration {
	reply := t.cfg.Conns.ReadTimeout()
	if reply <= 0 {
		reply = t.cfg.Timeout
	}
	if t.cfg.Synced {
		// A synced acquire's reply comes after WAIT's own timeout.
		w := t.cfg.SyncTimeout
		if w <= 0 {
			w = time.Second
		}
		reply += w
	}
	return reply + t.cfg.Timeout
}

// Drain refuses new work and waits until the registered work has ended or
// CloseWait has passed; it reports how much work it stopped waiting for.
// Afterwards Drained is done. A second call waits again for what is left.
func (t *Tracker) Drain() (left int, waited time.Duration) {
	defer t.cancelStop()
	t.mu.Lock()
	t.closing = true
	if t.idle == nil {
		t.idle = make(chan struct{})
	}
	if t.n == 0 {
		t.mu.Unlock()
		return 0, 0
	}
	t.mu.Unlock()
	start := time.Now()
	bound := t.CloseWait()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case <-t.idle:
		return 0, time.Since(start)
	case <-timer.C:
	}
	t.mu.Lock()
	left = t.n
	t.mu.Unlock()
	return left, bound
}
