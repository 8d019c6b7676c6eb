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
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Kind renews one group of leases that share a Redis Cluster slot and a TTL.
//
// The wheel compares Kinds with == to group leases, so a Kind's dynamic type
// must be comparable (a pointer, or a struct of pointers); Add panics otherwise
// rather than letting a tick panic later in a background goroutine.
type Kind interface {
	// Queue adds to pipe the command(s) that renew leases (at most
	// Config.BatchSize, all in one slot, all with the same TTL) and returns a
	// function that, after the pipeline has been executed, reports per lease
	// (same order) whether it was renewed (true) or is gone / no longer held
	// (false), or an error for the whole group.
	//
	// The result function is called even when the pipeline as a whole
	// failed, so it must judge by the commands it queued itself; a group whose
	// commands succeeded is trusted although another group's failed. leases
	// must not be kept after the result function returned.
	Queue(ctx context.Context, pipe redis.Pipeliner, ttl time.Duration, leases []*Lease) func() ([]bool, error)
}

// Config configures a Wheel. Zero fields take the defaults given per field.
type Config struct {
	// Client makes the renewal pipelines (Client.Pipeline()). It may be nil
	// only if every lease is a fixed lease, which needs no Redis traffic.
	Client redis.UniversalClient
	// BatchSize caps the leases of one Queue call, because one script call
	// with thousands of keys would block Redis. Default 100, Redisson's
	// lockWatchdogBatchSize.
	BatchSize int
	// Tick is the wheel's resolution: a renewal or an expiry happens up to
	// one Tick (plus scheduling delay) after it is due, never before. Default
	// 10ms; values below 1ms are raised to 1ms, since a rotation of the wheel
	// must stay long enough for the idle loop to sleep.
	Tick time.Duration
	// Timeout bounds one renewal round trip so that a hung connection turns
	// into a retry. A round's deadline is further capped at the earliest
	// lease expiry in it, because an answer arriving later proves nothing.
	// Default 3s.
	Timeout time.Duration
	// Margin is how long before a lease's end, besides 1% of the lease (for
	// clock drift) and one Tick (the wheel's resolution), its loss is
	// reported: the holder must learn it lost the lock before Redis can give
	// the lock to someone else. Default 2ms (Redlock's constant).
	Margin time.Duration
	// Slot gives the Redis Cluster hash slot of a key, since a script may
	// only touch keys of one slot. Nil puts every key in one group (a
	// standalone Redis or a Sentinel setup).
	Slot func(key string) int
	// Logger receives failed renewal rounds at Warn level. Nil discards.
	// An ended lease is told to its OnLost, whose owner knows what it
	// was and whether its end is worth a warning (a fixed lease that ran
	// out is not; a renewal that lost the race with the owner's own
	// release is no loss).
	Logger *slog.Logger
	// OnRound, when set, is told about every renewal round once its
	// answers are applied, on the round's goroutine. It must not block.
	OnRound func(Round)
}

// Round describes one renewal round, for OnRound.
type Round struct {
	// Leases in the round; Scripts is its Kind.Queue calls.
	Leases, Scripts int
	// Duration is from the round's send to its answers (or deadline).
	Duration time.Duration
	// Renewed and Lost count the leases the round renewed and lost;
	// Failed counts the groups that failed (retried later).
	Renewed, Lost, Failed int
}

// Margin returns how long before the end of a lease of ttl its loss is
// reported with margin (Config.Margin) and tick (Config.Tick): 1% of ttl
// for clock drift, plus margin, plus one tick, at most half of ttl.
func Margin(ttl, margin, tick time.Duration) time.Duration {
	return min(ttl/100+margin+tick, ttl/2)
}

// Spec describes a lease to track.
type Spec struct {
	// Key is the Redis key of the lock; leases are grouped by its slot and the
	// Kind gets it back through Lease.Key.
	Key string
	// Owner is the holder identity (the lock's hash field); the wheel only
	// hands it to the Kind.
	Owner string
	// Data is anything else the Kind needs per lease, handed back by
	// Lease.Data.
	Data any
	// Kind renews the lease. Nil makes a fixed lease: never renewed, lost
	// when it runs out.
	Kind Kind
	// TTL is the lease length (> 0). A watchdog lease is renewed every TTL/3,
	// as Redisson does, which leaves two thirds of the lease for retries.
	TTL time.Duration
	// Start is when the acquire request was sent: Redis applied the TTL no
	// earlier than that, so the lease is known to be valid until Start+TTL and
	// no later. The zero value means "now" at Add, which overestimates the
	// lease by the acquire round trip; pass the real send time.
	Start time.Time
	// Cap, when set, bounds the lease: it is never counted valid past Cap,
	// whatever Reset and renewals say (see Wheel.Cap).
	Cap time.Time
	// OnLost is told why the lease ended without Cancel: ErrKeyGone or
	// ErrLeaseExpired (wrapped; test with errors.Is). It is called at most
	// once, from a wheel goroutine and without wheel locks held, so it may
	// call Add, Reset and Cancel, but it must not block and must not call
	// Close, which waits for those goroutines. It is never called for a lease
	// whose Cancel returned true, nor after Close returned.
	OnLost func(cause error)
}

var (
	// ErrKeyGone means Redis answered that the lock no longer exists or has
	// another holder, so the holder must stop acting as the lock owner.
	ErrKeyGone = errors.New("the key is gone or held by another owner")
	// ErrLeaseExpired means the lease's time (less the safety margin) ran
	// out before it could be renewed; the lock may be taken by another
	// client from then on.
	ErrLeaseExpired = errors.New("the lease ran out before it could be renewed")
	// ErrFixedLeaseEnded means a fixed lease (no watchdog, or a watchdog
	// lease that Fix stopped renewing) reached its end less the safety
	// margin. errors.Is(ErrFixedLeaseEnded, ErrLeaseExpired) holds: the
	// lease ran out either way; only the text does not talk of renewing.
	ErrFixedLeaseEnded error = fixedLeaseEnded{}
)

// fixedLeaseEnded is ErrFixedLeaseEnded: its own text, and ErrLeaseExpired
// for errors.Is.
type fixedLeaseEnded struct{}

func (fixedLeaseEnded) Error() string { return "the fixed lease ended" }

// Is reports whether target is ErrLeaseExpired.
func (fixedLeaseEnded) Is(target error) bool { return target == ErrLeaseExpired }

// Stats are cumulative counters since New, for metrics and tests.
type Stats struct {
	// Rounds counts renewal pipelines executed (at most one per tick).
	Rounds uint64
	// Scripts counts Kind.Queue calls, i.e. groups of at most BatchSize leases.
	Scripts uint64
	// Renewed counts successful lease renewals.
	Renewed uint64
	// Lost counts watchdog leases that ended through OnLost: found gone,
	// or run out before they could be renewed.
	Lost uint64
	// Expired counts fixed leases (Spec.Kind nil, or fixed by Fix) that
	// reached their end through OnLost.
	Expired uint64
	// Errors counts groups whose renewal failed (Queue's result error, or a
	// malformed result) and are retried.
	Errors uint64
}

// Lease states; guarded by Wheel.mu.
const (
	stateScheduled uint8 = iota // linked in a bucket
	stateInFlight               // in exactly one renewal round, linked at its loss tick
	stateDone                   // cancelled, lost or dropped by Close
)

// Lease is one tracked lease, returned by Add; its handle for Reset and
// Cancel.
type Lease struct {
	w      *Wheel
	key    string
	owner  string
	data   any
	kind   Kind
	onLost func(error)
	slot   int

	// Guarded by w.mu. Times are nanoseconds since w.epoch so that they
	// compare on the monotonic clock and cost 8 bytes.
	state      uint8
	linked     bool // in a bucket: scheduled, or in flight with its loss tick
	reset      bool // Reset while in flight: the round's answer is stale
	ttl        time.Duration
	validUntil int64 // lease known valid until then
	lossAt     int64 // validUntil less the safety margin: reported lost from then on
	pending    int64 // next due time from set; kept for a round that a Reset overtook
	tick       int64 // absolute tick of the bucket it is linked in
	prev, next *Lease
	lastErr    error // last renewal error, reported if the lease runs out
	fixed      bool  // Fix stopped its renewal: a fixed lease from then on
	capped     bool  // validUntil is never later than cap (Cap)
	cap        int64
	// roundDone is closed once go-redis has ended the pipeline of the last
	// round the lease was in (Fix waits for it).
	roundDone chan struct{}

	// roundTTL is the TTL the current round renews with: set by collect, read
	// by that round without w.mu, because Reset may change ttl meanwhile.
	roundTTL time.Duration
}

// renews reports whether the wheel renews the lease (a watchdog lease that
// Fix has not stopped). w.mu held.
func (l *Lease) renews() bool { return l.kind != nil && !l.fixed }

// Key returns Spec.Key.
func (l *Lease) Key() string { return l.key }

// Owner returns Spec.Owner.
func (l *Lease) Owner() string { return l.owner }

// Data returns Spec.Data.
func (l *Lease) Data() any { return l.data }

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

// Add starts tracking a lease. It panics on TTL <= 0, a nil OnLost, a
// non-comparable Kind, or a Kind without Config.Client, since each is a
// programming error that would otherwise surface on a background goroutine.
// After Close it returns a lease that is already cancelled.
func (w *Wheel) Add(spec Spec) *Lease {
	if spec.TTL <= 0 {
		panic("renewal: Add with TTL <= 0")
	}
	if spec.OnLost == nil {
		panic("renewal: Add with nil OnLost")
	}
	if spec.Kind != nil {
		if w.cfg.Client == nil {
			panic("renewal: watchdog lease on a Wheel without Config.Client")
		}
		if !reflect.TypeOf(spec.Kind).Comparable() {
			panic(fmt.Sprintf("renewal: Kind type %T is not comparable", spec.Kind))
		}
	}
	l := &Lease{
		w:      w,
		key:    spec.Key,
		owner:  spec.Owner,
		data:   spec.Data,
		kind:   spec.Kind,
		onLost: spec.OnLost,
	}
	if spec.Kind != nil && w.cfg.Slot != nil {
		l.slot = w.cfg.Slot(spec.Key)
	}
	start := w.now()
	if !spec.Start.IsZero() {
		start = int64(spec.Start.Sub(w.epoch))
	}
	if !spec.Cap.IsZero() {
		l.capped, l.cap = true, int64(spec.Cap.Sub(w.epoch))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		l.state = stateDone
		return l
	}
	w.n++
	w.set(l, start, spec.TTL)
	w.schedule(l, l.pending)
	return l
}

// set records that the lease was (re)applied at start with ttl and computes
// its next due time into l.pending. A cap bounds the validity.
func (w *Wheel) set(l *Lease, start int64, ttl time.Duration) {
	l.ttl = ttl
	l.validUntil = start + int64(ttl)
	if l.capped && l.validUntil > l.cap {
		l.validUntil = l.cap
	}
	l.lossAt = l.validUntil - int64(w.marginOf(ttl))
	l.lastErr = nil
	if !l.renews() {
		l.pending = l.lossAt
	} else {
		l.pending = start + int64(ttl/3)
	}
}

// marginOf is Margin with the wheel's settings.
func (w *Wheel) marginOf(ttl time.Duration) time.Duration {
	return Margin(ttl, w.margin, time.Duration(w.tick))
}

// Reset records that the lease was re-taken or extended: the request sent at
// start set ttl (a re-entrant acquire, a PEXPIRE on a partial unlock). The
// lease is valid until start+ttl (or its cap, if earlier) and next renewed
// at start+ttl/3 (a fixed lease runs out at start+ttl); a zero start means
// now, as in Spec. If a renewal round for the lease is in flight, its
// answer is discarded in favour of this newer information. No-op for a
// cancelled or lost lease, or after Close.
func (w *Wheel) Reset(l *Lease, start time.Time, ttl time.Duration) {
	if ttl <= 0 {
		panic("renewal: Reset with TTL <= 0")
	}
	if l.w != w {
		panic("renewal: Reset of a lease from another Wheel")
	}
	s := w.now()
	if !start.IsZero() {
		s = int64(start.Sub(w.epoch))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return
	}
	w.set(l, s, ttl)
	switch l.state {
	case stateInFlight:
		l.reset = true // the round reschedules it at l.pending
		w.unlink(l)
		w.linkLoss(l)
	case stateScheduled:
		w.unlink(l)
		w.schedule(l, l.pending)
	}
}

// Fix stops renewing a watchdog lease for good: from now on it is a fixed
// lease that runs out at its current validity (or as a later Reset says),
// and its end is reported with ErrFixedLeaseEnded. A renewal round for it in
// flight has its answer discarded, but its command may still be on its way
// to Redis: Fix returns a channel that is closed once go-redis has ended
// that round's pipeline (nil when no round of the lease is unfinished), so
// that a caller about to set the lease itself can send after it. Fixing a
// fixed lease changes nothing. It reports false for a cancelled or lost
// lease, or after Close.
func (w *Wheel) Fix(l *Lease) (<-chan struct{}, bool) {
	if l.w != w {
		panic("renewal: Fix of a lease from another Wheel")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return nil, false
	}
	var busy <-chan struct{}
	if l.roundDone != nil {
		select {
		case <-l.roundDone:
		default:
			busy = l.roundDone
		}
	}
	if !l.renews() {
		return busy, true
	}
	l.fixed = true
	l.pending = l.lossAt
	switch l.state {
	case stateInFlight:
		// The round would renew a lease that is fixed now: its answer is
		// stale (the lease stays linked at its loss tick meanwhile).
		l.reset = true
	case stateScheduled:
		w.unlink(l)
		w.schedule(l, l.pending)
	}
	return busy, true
}

// Cap bounds the lease's validity: from now on it is never counted valid
// past until, whatever Reset and renewals say, and a validity later than
// until now is brought forward to it (its loss is then reported before
// until, by the safety margin of its TTL). A zero until removes the bound;
// the validity stays as it is until the next Reset or renewal. No-op for
// a cancelled or lost lease, or after Close.
func (w *Wheel) Cap(l *Lease, until time.Time) {
	if l.w != w {
		panic("renewal: Cap of a lease from another Wheel")
	}
	c := int64(until.Sub(w.epoch))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return
	}
	if until.IsZero() {
		l.capped = false
		return
	}
	l.capped, l.cap = true, c
	if l.validUntil <= c {
		return
	}
	l.validUntil = c
	l.lossAt = c - int64(w.marginOf(l.ttl))
	if !l.renews() {
		l.pending = l.lossAt
	}
	w.unlink(l)
	switch l.state {
	case stateInFlight:
		w.linkLoss(l)
	case stateScheduled:
		w.schedule(l, l.pending)
	}
}

// Cancel stops tracking the lease. It returns true if the lease was active;
// then OnLost is never called for it, even if a renewal round for it is in
// flight (that round's answer is ignored). False means it had already been
// cancelled, dropped by Close, or lost, in which case OnLost has been or is
// being called: like time.Timer.Stop, Cancel does not wait for it, so that
// OnLost itself may call Cancel.
func (w *Wheel) Cancel(l *Lease) bool {
	if l.w != w {
		panic("renewal: Cancel of a lease from another Wheel")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return false
	}
	w.unlink(l)
	l.state = stateDone
	l.reset = false
	w.n--
	return true
}

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

// group is one Queue call.
type group struct {
	kind   Kind
	ttl    time.Duration
	leases []*Lease
	ok     []bool
	err    error
}

type groupKey struct {
	kind Kind
	ttl  time.Duration
	slot int
}

// groups splits the round by (Kind, TTL, slot) and chunks each part to at
// most BatchSize leases. The usual round has a single part and is chunked in
// place; otherwise a counting sort keeps the allocations independent of the
// number of leases.
func (w *Wheel) groups(r *round) []group {
	key := func(l *Lease) groupKey { return groupKey{l.kind, l.roundTTL, l.slot} }
	first := key(r.leases[0])
	single := true
	for _, l := range r.leases[1:] {
		if key(l) != first {
			single = false
			break
		}
	}
	if single {
		return w.chunk(nil, first, r.leases)
	}

	// Map by slot only (a fast integer hash); the few parts per slot (Kinds,
	// TTLs) are chained and compared directly.
	bySlot := make(map[int]int)
	var counts, chain []int
	var keys []groupKey
	gi := make([]int32, len(r.leases))
	last, lastG := first, -1
	for i, l := range r.leases {
		k := key(l)
		if lastG < 0 || k != last { // leases of a bucket often come in runs
			g, ok := bySlot[k.slot]
			for ok && keys[g] != k {
				g = chain[g]
				ok = g >= 0
			}
			if !ok {
				g = len(counts)
				counts = append(counts, 0)
				keys = append(keys, k)
				head, had := bySlot[k.slot]
				if !had {
					head = -1
				}
				chain = append(chain, head)
				bySlot[k.slot] = g
			}
			last, lastG = k, g
		}
		gi[i] = int32(lastG)
		counts[lastG]++
	}
	offs := make([]int, len(counts))
	nChunks := 0
	for g, c := range counts {
		if g > 0 {
			offs[g] = offs[g-1] + counts[g-1]
		}
		nChunks += (c + w.cfg.BatchSize - 1) / w.cfg.BatchSize
	}
	sorted := make([]*Lease, len(r.leases))
	next := slices.Clone(offs)
	for i, l := range r.leases {
		sorted[next[gi[i]]] = l
		next[gi[i]]++
	}
	out := make([]group, 0, nChunks)
	for g, k := range keys {
		out = w.chunk(out, k, sorted[offs[g]:offs[g]+counts[g]])
	}
	return out
}

// chunk appends the groups of at most BatchSize leases of one part.
func (w *Wheel) chunk(out []group, k groupKey, part []*Lease) []group {
	if out == nil {
		out = make([]group, 0, (len(part)+w.cfg.BatchSize-1)/w.cfg.BatchSize)
	}
	for len(part) > 0 {
		n := min(len(part), w.cfg.BatchSize)
		out = append(out, group{kind: k.kind, ttl: k.ttl, leases: part[:n:n]})
		part = part[n:]
	}
	return out
}

// runRound sends one pipeline with every group of the round and applies the
// answers. It runs on its own goroutine so that a slow Redis never delays
// the ticks of other leases.
func (w *Wheel) runRound(r *round) {
	defer w.wg.Done()
	gs := w.groups(r)
	ctx, cancel := context.WithDeadline(w.ctx, w.epoch.Add(time.Duration(r.deadline)))
	defer cancel()
	pipe := w.cfg.Client.Pipeline()
	results := make([]func() ([]bool, error), len(gs))
	for i := range gs {
		results[i] = gs[i].kind.Queue(ctx, pipe, gs[i].ttl, gs[i].leases)
	}
	w.rounds.Add(1)
	w.scripts.Add(uint64(len(gs)))
	// Exec's error is the first failed command's; each group judges its own
	// commands below, so one bad group does not fail the others. go-redis
	// ignores ctx's deadline unless the client enables it, so the round
	// stops waiting at the deadline itself; the pipeline goes on until
	// go-redis gives up, and its late answers are discarded.
	execDone := r.done
	go func() {
		_, _ = pipe.Exec(ctx)
		close(execDone)
	}()
	select {
	case <-execDone:
	case <-ctx.Done():
		select {
		case <-execDone:
		default:
			w.errs.Add(uint64(len(gs)))
			w.log.Warn("renewal: no reply to a renewal round before its deadline; will retry",
				"leases", len(r.leases), "key", r.leases[0].key)
			timeout := fmt.Errorf("no reply before the round's deadline: %w", context.DeadlineExceeded)
			for i := range gs {
				gs[i].err = timeout
			}
			lost, renewed := w.apply(r, gs)
			w.report(r, len(gs), renewed, len(lost), len(gs))
			w.notify(lost)
			return
		}
	}
	var failed, failedLeases int
	var firstErr *group
	for i := range gs {
		g := &gs[i]
		if results[i] == nil {
			g.err = errors.New("renewal: Kind.Queue returned a nil result function")
		} else {
			g.ok, g.err = results[i]()
			if g.err == nil && len(g.ok) != len(g.leases) {
				g.err = fmt.Errorf("renewal: Kind returned %d results for %d leases", len(g.ok), len(g.leases))
			}
		}
		if g.err != nil {
			failed++
			failedLeases += len(g.leases)
			if firstErr == nil {
				firstErr = g
			}
		}
	}
	if failed > 0 {
		// One line per round, not per group: an outage fails every group.
		w.errs.Add(uint64(failed))
		w.log.Warn("renewal: renewing leases failed; will retry",
			"groups", failed, "leases", failedLeases, "key", firstErr.leases[0].key, "err", firstErr.err)
	}
	lost, renewed := w.apply(r, gs)
	w.report(r, len(gs), renewed, len(lost), failed)
	w.notify(lost)
}

// report tells OnRound about round r.
func (w *Wheel) report(r *round, scripts, renewed, lost, failed int) {
	if w.cfg.OnRound == nil {
		return
	}
	w.cfg.OnRound(Round{
		Leases: len(r.leases), Scripts: scripts,
		Duration: time.Duration(w.now() - r.sent),
		Renewed:  renewed, Lost: lost, Failed: failed,
	})
}

// retryDelay spaces retries after an error so that a failing Redis is not
// hammered every tick, yet leaves about 20 attempts before the lease runs
// out.
func (w *Wheel) retryDelay(ttl time.Duration) int64 {
	return max(w.tick, int64(ttl/30))
}

// apply records a round's answers and returns the leases lost by it and
// how many it renewed.
func (w *Wheel) apply(r *round, gs []group) (lost []lostLease, renewed int) {
	w.mu.Lock()
	defer func() {
		w.mu.Unlock()
		w.renewed.Add(uint64(renewed))
	}()
	now := w.now()
	defer func() {
		if w.n == 0 {
			// The loop may sleep until a loss tick of a lease this round
			// settled: let it see that the wheel is empty.
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}()
	for gi := range gs {
		g := &gs[gi]
		for i, l := range g.leases {
			if l.state != stateInFlight {
				continue // cancelled meanwhile: the answer is nobody's business
			}
			if w.closed {
				l.state = stateDone
				continue
			}
			w.unlink(l) // from its loss tick
			if l.reset {
				l.reset = false
				w.schedule(l, l.pending)
				continue
			}
			switch {
			case g.err != nil:
				l.lastErr = g.err
				if now >= l.lossAt {
					l.state = stateDone
					w.n--
					lost = append(lost, lostLease{l, expired(l)})
				} else {
					// schedule caps it at the loss tick, where the tick
					// declares it lost.
					w.schedule(l, now+w.retryDelay(l.ttl))
				}
			case g.ok[i]:
				renewed++
				l.lastErr = nil
				w.set(l, r.sent, g.ttl)
				w.schedule(l, l.pending)
			default:
				l.state = stateDone
				w.n--
				lost = append(lost, lostLease{l, ErrKeyGone})
			}
		}
	}
	return lost, renewed
}
