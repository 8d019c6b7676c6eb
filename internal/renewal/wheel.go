// Package renewal keeps the leases of held locks alive the way Redisson's lock
// watchdog does: one periodic task renews every lease that is due, in batches
// of scripts grouped by cluster slot, instead of one timer and one round trip
// per lock. It also watches fixed leases (no watchdog) so that their holders
// learn when the lease ran out.
//
// Leases live on a hashed timing wheel so that taking and releasing a lock
// costs O(1) no matter how many locks the process holds, and a tick costs
// O(leases due), not O(leases held).
package renewal

import (
	"context"
	"log/slog"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// wheelSize buckets of 10ms span 40.96s: one rotation covers the default
	// 10s renewal interval of the 30s watchdog lease, so the entries of a
	// bucket are normally all due when it is visited. Longer delays stay
	// correct (entries carry their absolute tick) and are merely revisited
	// once per rotation.
	wheelBits = 12
	wheelSize = 1 << wheelBits
	wheelMask = wheelSize - 1
	words     = wheelSize / 64
)

// Wheel renews watchdog leases and expires fixed ones. It is safe for
// concurrent use. New starts its tick goroutine at once; the goroutine sleeps
// until the next non-empty bucket (indefinitely while the wheel is empty), so
// an idle Wheel costs no CPU, but Close must be called to end it.
type Wheel struct {
	cfg    Config
	log    *slog.Logger
	tick   int64 // Config.Tick in ns
	margin time.Duration
	epoch  time.Time
	ctx    context.Context // parent of round contexts; cancelled by Close
	cancel context.CancelFunc
	wake   chan struct{} // an entry was scheduled before the planned wake-up
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	n        int   // active leases (scheduled or in flight)
	cur      int64 // last tick whose bucket has been processed
	wakeTick int64 // tick the loop sleeps until; MaxInt64 when idle
	heads    [wheelSize]*Lease
	sizes    [wheelSize]int32 // entries per bucket: sizes a round's slice up front
	used     [words]uint64    // bit per non-empty bucket: find the next one fast

	rounds, scripts, renewed, lost, expired, errs atomic.Uint64
}

// New returns a running Wheel with cfg's defaults filled in.
func New(cfg Config) *Wheel {
	w := newWheel(cfg)
	w.wg.Add(1)
	go w.loop()
	return w
}

// newWheel builds a Wheel without its tick goroutine, so benchmarks can drive
// ticks by hand.
func newWheel(cfg Config) *Wheel {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 100
	}
	if cfg.Tick <= 0 {
		cfg.Tick = 10 * time.Millisecond
	}
	cfg.Tick = max(cfg.Tick, time.Millisecond)
	if cfg.Timeout <= 0 {
		cfg.Timeout = 3 * time.Second
	}
	if cfg.Margin <= 0 {
		cfg.Margin = 2 * time.Millisecond
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Wheel{
		cfg:      cfg,
		log:      log,
		tick:     int64(cfg.Tick),
		margin:   cfg.Margin,
		epoch:    time.Now(),
		ctx:      ctx,
		cancel:   cancel,
		wake:     make(chan struct{}, 1),
		wakeTick: math.MaxInt64,
	}
}

// now is the wheel's clock: monotonic nanoseconds since epoch.
func (w *Wheel) now() int64 { return int64(time.Since(w.epoch)) }

// Close stops the wheel: it cancels in-flight rounds' contexts and waits for
// them and the tick goroutine to end (a round ends at the latest at its
// deadline, Timeout, if the client ignores cancellation). Leases are dropped
// without calling OnLost. Close is idempotent; it must not be called from
// OnLost or a Kind.
func (w *Wheel) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		for i, word := range w.used {
			for word != 0 {
				b := i*64 + bits.TrailingZeros64(word)
				word &= word - 1
				for l := w.heads[b]; l != nil; {
					next := l.next
					l.prev, l.next, l.state, l.linked = nil, nil, stateDone, false
					l = next
				}
				w.heads[b] = nil
				w.sizes[b] = 0
			}
			w.used[i] = 0
		}
		w.n = 0
	}
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
}

// Len returns the number of active leases.
func (w *Wheel) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Stats returns the counters.
func (w *Wheel) Stats() Stats {
	return Stats{
		Rounds:  w.rounds.Load(),
		Scripts: w.scripts.Load(),
		Renewed: w.renewed.Load(),
		Lost:    w.lost.Load(),
		Expired: w.expired.Load(),
		Errors:  w.errs.Load(),
	}
}
