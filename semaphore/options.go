package semaphore

import "time"

// acquireOptions are one acquisition's options, of either semaphore.
type acquireOptions struct {
	wait     time.Duration
	hasWait  bool
	lease    time.Duration
	hasLease bool
}

// Option changes one Semaphore.TryAcquire or TryAcquirePermits call:
// WithWait. A Semaphore's permits have no lease, so WithLease, which
// would be lost on it, does not compile there.
type Option interface{ applyTry(*acquireOptions) }

// ExpirableTryOption changes one ExpirableSemaphore.TryAcquire or
// TryAcquireN call: WithWait and WithLease.
type ExpirableTryOption interface{ applyExpirableTry(*acquireOptions) }

// ExpirableAcquireOption changes one ExpirableSemaphore.Acquire or AcquireN
// call: WithLease. Those wait until ctx is done, so WithWait, which they
// could only ignore, does not compile there.
type ExpirableAcquireOption interface{ applyExpirableAcquire(*acquireOptions) }

// WaitOption is what WithWait returns: an Option and an
// ExpirableTryOption.
type WaitOption struct{ wait time.Duration }

// WithWait makes TryAcquire wait up to wait for the permits (and no longer
// than ctx allows): 0 tries once, the default. A negative wait is an error.
func WithWait(wait time.Duration) WaitOption { return WaitOption{wait} }

func (w WaitOption) applyTry(o *acquireOptions)          { o.wait, o.hasWait = w.wait, true }
func (w WaitOption) applyExpirableTry(o *acquireOptions) { w.applyTry(o) }

// LeaseOption is what WithLease returns: an ExpirableAcquireOption and an
// ExpirableTryOption.
type LeaseOption struct{ lease time.Duration }

// WithLease gives the permits an ExpirableSemaphore's Acquire, AcquireN,
// TryAcquire or TryAcquireN takes a lease: each comes back to the pool
// lease after it was taken unless released first. Without it (Redisson's
// leaseTime -1) permits are held until released. lease must be at least
// 1ms.
func WithLease(lease time.Duration) LeaseOption { return LeaseOption{lease} }

func (l LeaseOption) applyExpirableAcquire(o *acquireOptions) { o.lease, o.hasLease = l.lease, true }
func (l LeaseOption) applyExpirableTry(o *acquireOptions)     { l.applyExpirableAcquire(o) }

// apply applies opts with the method of their option type.
func apply[O any](opts []O, method func(O, *acquireOptions)) acquireOptions {
	var o acquireOptions
	for _, opt := range opts {
		if any(opt) != nil { // a nil option is ignored
			method(opt, &o)
		}
	}
	return o
}
