package conns

import (
	"sync"
	"sync/atomic"
	"time"
)

// A bound set by Within (a release attempt's Timeout, 3 s, where go-redis'
// ReadTimeout is 5 s) is not pulled into the socket's deadlines as a
// context's deadline is. go-redis sets both deadlines before every command from
// a clock it refreshes every few milliseconds, so on a connection that only
// ever sees go-redis' own deadline the runtime's poll timers rarely change.
// A bound call's earlier deadline changed them twice for the unlock and
// twice again for the next lock, and moving a timer that sits in a
// processor's heap may wake an idle thread (timer.modify → wakeNetPoller →
// wakep → futex): fewer pairs/s and more context switches
// (docs/performance.md).
//
// Such a bound is therefore a soft one: the call leaves the socket's
// deadlines to go-redis, and a sweeper, which runs only while bound calls
// exist, looks every softEvery for calls past their bound and cuts their
// socket as a cancellation does. The call then ends at most softEvery after
// its bound. A context's own deadline, which a caller picked and may pick
// short, is still pulled into the socket's deadline exactly (see bind).

// softEvery is how often the sweeper looks for bound calls past their bound.
const softEvery = 25 * time.Millisecond

// softLinger is how many looks without a bound call the sweeper makes
// before it stops: a client that unlocks now and then keeps one goroutine
// waking 40 times a second for a second after, not one start per unlock.
const softLinger = 40

// softConns are a binder's connections and its sweeper's state.
type softConns struct {
	mu    sync.Mutex
	conns map[*boundConn]struct{}
	calls atomic.Int64 // soft-bound calls under way
	on    atomic.Bool  // a sweeper runs
	done  <-chan struct{}
	// epoch: bounds count from it on the monotonic clock (mono), so that
	// a step of the wall clock neither cuts a call early nor late. Set
	// before the first bound call.
	epoch time.Time
}

// mono returns t as ns since the epoch, on the monotonic clock.
func (s *softConns) mono(t time.Time) int64 { return max(int64(t.Sub(s.epoch)), 1) }

func (s *softConns) add(c *boundConn) {
	s.mu.Lock()
	if s.conns == nil {
		s.conns = make(map[*boundConn]struct{})
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
}

func (s *softConns) remove(c *boundConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// begin counts a soft-bound call and makes sure a sweeper runs.
func (s *softConns) begin() {
	s.calls.Add(1)
	if !s.on.Load() && s.on.CompareAndSwap(false, true) {
		go s.sweep()
	}
}

func (s *softConns) end() { s.calls.Add(-1) }

// sweep cuts the calls past their bound until none has been under way for
// softLinger looks, or the runtime stopped and none is under way.
func (s *softConns) sweep() {
	t := time.NewTicker(softEvery)
	defer t.Stop()
	done := s.done
	idle := 0
	var cs []*boundConn
	for {
		select {
		case <-t.C:
		case <-done:
			// Closed: stop once the calls under way are over.
			done, idle = nil, softLinger
			continue
		}
		if s.calls.Load() > 0 {
			idle = 0
			cs = s.snapshot(cs[:0])
			now := s.mono(time.Now())
			for _, c := range cs {
				c.cutPast(now)
			}
			clear(cs)
			continue
		}
		if idle++; idle < softLinger {
			continue
		}
		s.on.Store(false)
		// A call that began after the load above saw a sweeper running
		// and started none: this one goes on for it.
		if s.calls.Load() == 0 || !s.on.CompareAndSwap(false, true) {
			return
		}
		idle = 0
	}
}

func (s *softConns) snapshot(cs []*boundConn) []*boundConn {
	s.mu.Lock()
	for c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	return cs
}
