package renewal

import (
	"context"
	"errors"
	"log/slog"
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
