// Package redissonotel turns a redisson client's events (package
// github.com/goredisson/redisson/observe) into OpenTelemetry metrics and
// traces:
//
//	obs, err := redissonotel.NewObserver() // the global MeterProvider and TracerProvider
//	if err != nil { ... }
//	client, err := redisson.New(rdb, redisson.WithObserver(obs))
//
// Every waiting call (a lock's Lock or TryLock, a semaphore's or rate
// limiter's acquire, a latch's Await, a multi-lock's Lock) gets a span, and
// so does every lock release; go-redis' own spans (redisotel) nest under
// them. docs/observability.md in the repository lists every metric,
// attribute and span.
//
// Each family of objects has its own wait instruments, named for it: a
// lock's wait counts in redisson.lock.wait.duration, a semaphore's in
// redisson.semaphore.wait.duration, a rate limiter's in
// redisson.ratelimit.wait.duration and a latch's in
// redisson.latch.wait.duration. A try that fails for a reason that may
// pass (a refused connection, a timeout) counts in redisson.try.failures
// whether or not a retry follows, so that an outage shows even when a
// wait ends inside go-redis' own retries.
//
// Lock names are unbounded, so metrics carry an object's name only through
// WithNameMapping; spans always carry it.
package redissonotel

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/observe"
)

// ScopeName is the instrumentation scope of the meter and the tracer; its
// version is redisson.Version.
const ScopeName = "github.com/goredisson/redisson/extra/redissonotel"

// Attribute keys, shared with the client's Debug logs.
const (
	KeyKind        = attribute.Key("redisson.object.kind")
	KeyName        = attribute.Key("redisson.object.name")
	KeyOutcome     = attribute.Key("redisson.outcome")
	KeyTries       = attribute.Key("redisson.tries")
	KeyHandOff     = attribute.Key("redisson.handoff")
	KeyCause       = attribute.Key("redisson.end.cause")
	KeyReason      = attribute.Key("redisson.retry.reason")
	KeyPermitsOp   = attribute.Key("redisson.permits.op")
	KeyRateResult  = attribute.Key("redisson.ratelimit.result")
	KeyPermits     = attribute.Key("redisson.permits")
	KeyWait        = attribute.Key("redisson.wait")
	KeyChannel     = attribute.Key("redisson.pubsub.channel")
	KeyResubscribe = attribute.Key("redisson.pubsub.resubscribe")
	KeyFull        = attribute.Key("redisson.release.full")
	KeyTry         = attribute.Key("redisson.try")
	KeyAcquired    = attribute.Key("redisson.acquired")
	KeyAttempt     = attribute.Key("redisson.retry.attempt")
	KeyDelay       = attribute.Key("redisson.retry.delay")
	KeyDuration    = attribute.Key("redisson.duration")
)

// Option configures NewObserver.
type Option func(*config)

type config struct {
	mp      metric.MeterProvider
	tp      trace.TracerProvider
	mapName func(kind observe.Kind, name string) string
}

// WithMeterProvider sets the MeterProvider; default otel.GetMeterProvider().
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithTracerProvider sets the TracerProvider; default
// otel.GetTracerProvider().
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithNameMapping puts the object's name on metrics, as the attribute
// redisson.object.name, mapped by f to a value of bounded cardinality
// (e.g. "orders:42" to "orders"); f returning "" leaves the attribute out.
// Without it metrics carry no name (spans always do).
func WithNameMapping(f func(kind observe.Kind, name string) string) Option {
	return func(c *config) { c.mapName = f }
}

// NewObserver returns an observer that records OpenTelemetry metrics and
// spans; set it with redisson.WithObserver. One observer may serve several
// clients: their gauges are summed.
func NewObserver(opts ...Option) (*observe.Observer, error) {
	c := config{}
	for _, opt := range opts {
		opt(&c)
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	r := &recorder{cfg: c, sources: map[*source]struct{}{},
		tracer: c.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(redisson.Version))}
	if err := r.instruments(c.mp.Meter(ScopeName, metric.WithInstrumentationVersion(redisson.Version))); err != nil {
		return nil, err
	}
	return r.observer(), nil
}

type source struct{ stats func() observe.Stats }

// family is a group of object kinds whose waits share instruments.
type family int

const (
	familyLock family = iota
	familySemaphore
	familyRateLimiter
	familyLatch
	families
)

// familyOf returns the family of kind; a kind this module does not know
// yet counts as a lock, as the span names do.
func familyOf(kind observe.Kind) family {
	switch kind {
	case observe.KindSemaphore, observe.KindExpirableSemaphore:
		return familySemaphore
	case observe.KindRateLimiter:
		return familyRateLimiter
	case observe.KindLatch:
		return familyLatch
	}
	return familyLock
}

// waitInstruments are one family's: how long its acquisitions took and
// how many ended, by outcome.
type waitInstruments struct {
	wait  metric.Float64Histogram
	count metric.Int64Counter
}

type recorder struct {
	cfg    config
	tracer trace.Tracer

	waits                                              [families]waitInstruments
	hold, renewal, confirm                             metric.Float64Histogram
	lost, expired, handoffs, retries, tryFailures      metric.Int64Counter
	semPermits, ratePermits, countDowns, subscriptions metric.Int64Counter
	leases, connections, channels, waiters             metric.Int64ObservableUpDownCounter
	cache                                              cacheEvents

	mu      sync.Mutex
	sources map[*source]struct{}
}

func (r *recorder) instruments(m metric.Meter) error {
	var err error
	seconds := func(name, desc string) metric.Float64Histogram {
		if err != nil {
			return nil
		}
		var h metric.Float64Histogram
		h, err = m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300))
		return h
	}
	counter := func(name, unit, desc string) metric.Int64Counter {
		if err != nil {
			return nil
		}
		var c metric.Int64Counter
		c, err = m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		return c
	}
	gauge := func(name, unit, desc string) metric.Int64ObservableUpDownCounter {
		if err != nil {
			return nil
		}
		var g metric.Int64ObservableUpDownCounter
		g, err = m.Int64ObservableUpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		return g
	}
	r.waits[familyLock] = waitInstruments{
		seconds("redisson.lock.wait.duration", "How long lock acquisitions (Lock, TryLock) took, by lock kind and outcome."),
		counter("redisson.lock.acquisitions", "{acquisition}", "Lock acquisitions, by lock kind, outcome and hand-off."),
	}
	r.waits[familySemaphore] = waitInstruments{
		seconds("redisson.semaphore.wait.duration", "How long semaphore acquisitions took, by semaphore kind and outcome."),
		counter("redisson.semaphore.acquisitions", "{acquisition}", "Semaphore acquisitions, by semaphore kind and outcome."),
	}
	r.waits[familyRateLimiter] = waitInstruments{
		seconds("redisson.ratelimit.wait.duration", "How long rate-limiter acquisitions took, by outcome."),
		counter("redisson.ratelimit.acquisitions", "{acquisition}", "Rate-limiter acquisitions, by outcome."),
	}
	r.waits[familyLatch] = waitInstruments{
		seconds("redisson.latch.wait.duration", "How long latch awaits took, by outcome."),
		counter("redisson.latch.awaits", "{await}", "Latch awaits, by outcome."),
	}
	r.hold = seconds("redisson.lock.hold.duration", "How long lock holds lasted, by object kind and end cause.")
	r.renewal = seconds("redisson.renewal.duration", "How long watchdog renewal rounds took.")
	r.confirm = seconds("redisson.pubsub.confirm.duration", "How long Redis took to confirm a subscription (or, after a reconnect, from the loss to the resubscription).")
	r.lost = counter("redisson.lock.lost", "{hold}", "Holds that ended lost (watchdog lease not renewed, key gone or taken, force-unlocked, unlock failed).")
	r.expired = counter("redisson.lock.expired", "{hold}", "Holds whose fixed lease ran out, as asked (not a loss).")
	r.handoffs = counter("redisson.lock.handoffs", "{handoff}", "Releases that handed the lock straight to a waiter of the same client.")
	r.retries = counter("redisson.retries", "{retry}", "Back-offs of waiting calls after a try that failed for a reason that may pass, by reason.")
	r.tryFailures = counter("redisson.try.failures", "{try}", "Tries that failed for a reason that may pass (no reply from Redis, a refusal for a passing state), by reason, whether or not a retry followed.")
	r.semPermits = counter("redisson.semaphore.permits", "{permit}", "Semaphore permits taken and given back.")
	r.ratePermits = counter("redisson.ratelimit.permits", "{permit}", "Rate-limiter permits granted and refused.")
	r.countDowns = counter("redisson.latch.countdowns", "{countdown}", "Latch count-downs.")
	r.subscriptions = counter("redisson.pubsub.subscriptions", "{subscription}", "Subscriptions Redis confirmed, new or made again after a reconnect.")
	r.leases = gauge("redisson.renewal.leases", "{lease}", "Leases on the renewal wheel (held locks this client watches).")
	r.connections = gauge("redisson.pubsub.connections", "{connection}", "Redis connections carrying subscriptions.")
	r.channels = gauge("redisson.pubsub.channels", "{channel}", "Subscribed channels.")
	r.waiters = gauge("redisson.pubsub.waiters", "{waiter}", "Goroutines waiting on a channel.")
	r.cacheInstruments(counter)
	if err != nil {
		return err
	}
	_, err = m.RegisterCallback(r.observeStats, r.leases, r.connections, r.channels, r.waiters)
	return err
}

func (r *recorder) observeStats(_ context.Context, o metric.Observer) error {
	r.mu.Lock()
	var sum observe.Stats
	n := len(r.sources)
	for s := range r.sources {
		st := s.stats()
		sum.Leases += st.Leases
		sum.PubSubConnections += st.PubSubConnections
		sum.PubSubChannels += st.PubSubChannels
		sum.PubSubWaiters += st.PubSubWaiters
	}
	r.mu.Unlock()
	if n == 0 {
		return nil
	}
	o.ObserveInt64(r.leases, int64(sum.Leases))
	o.ObserveInt64(r.connections, int64(sum.PubSubConnections))
	o.ObserveInt64(r.channels, int64(sum.PubSubChannels))
	o.ObserveInt64(r.waiters, int64(sum.PubSubWaiters))
	return nil
}

// attrs returns the metric attributes of an object: its kind, and its
// mapped name when WithNameMapping gives one, plus more.
func (r *recorder) attrs(kind observe.Kind, name string, more ...attribute.KeyValue) metric.MeasurementOption {
	kv := make([]attribute.KeyValue, 0, 2+len(more))
	kv = append(kv, KeyKind.String(string(kind)))
	if r.cfg.mapName != nil {
		if n := r.cfg.mapName(kind, name); n != "" {
			kv = append(kv, KeyName.String(n))
		}
	}
	kv = append(kv, more...)
	return metric.WithAttributeSet(attribute.NewSet(kv...))
}

// acquireSpan names the span of an acquisition of kind.
func acquireSpan(kind observe.Kind) string {
	switch kind {
	case observe.KindSemaphore, observe.KindExpirableSemaphore:
		return "redisson.semaphore.acquire"
	case observe.KindLatch:
		return "redisson.latch.await"
	case observe.KindRateLimiter:
		return "redisson.ratelimit.acquire"
	}
	return "redisson.lock.acquire"
}

func (r *recorder) observer() *observe.Observer {
	return &observe.Observer{
		AcquireStart: r.acquireStart,
		AcquireTry:   r.acquireTry,
		AcquireEnd:   r.acquireEnd,
		HoldEnd:      r.holdEnd,
		ReleaseStart: r.releaseStart,
		ReleaseEnd:   r.releaseEnd,
		Retry:        r.retry,
		Subscribe:    r.subscribe,
		Subscription: r.subscription,
		Renewal:      r.renewalRound,
		Permits:      r.permits,
		RateLimit:    r.rateLimit,
		CountDown:    r.countDown,
		LocalCache:   r.localCache,
		Register:     r.register,
	}
}

func (r *recorder) acquireStart(ctx context.Context, e observe.AcquireStart) context.Context {
	attrs := []attribute.KeyValue{KeyKind.String(string(e.Kind)), KeyName.String(e.Name), KeyWait.Bool(e.Wait)}
	if e.Permits != 0 {
		attrs = append(attrs, KeyPermits.Int64(e.Permits))
	}
	ctx, _ = r.tracer.Start(ctx, acquireSpan(e.Kind), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx
}

func (r *recorder) acquireTry(ctx context.Context, e observe.AcquireTry) {
	if e.Reason != "" {
		r.tryFailures.Add(ctx, 1, r.attrs(e.Kind, e.Name, KeyReason.String(string(e.Reason))))
	}
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{KeyTry.Int(e.Try), KeyAcquired.Bool(e.Acquired)}
	if e.Err != nil {
		attrs = append(attrs, attribute.String("exception.message", e.Err.Error()))
	}
	if e.Reason != "" {
		attrs = append(attrs, KeyReason.String(string(e.Reason)))
	}
	span.AddEvent("try", trace.WithAttributes(attrs...))
}

func (r *recorder) acquireEnd(ctx context.Context, e observe.AcquireEnd) {
	f := familyOf(e.Kind)
	r.waits[f].wait.Record(ctx, e.Wait.Seconds(), r.attrs(e.Kind, e.Name, KeyOutcome.String(string(e.Outcome))))
	if f == familyLock {
		// Only a lock is handed over by a release of the same client.
		r.waits[f].count.Add(ctx, 1, r.attrs(e.Kind, e.Name, KeyOutcome.String(string(e.Outcome)), KeyHandOff.Bool(e.HandOff)))
	} else {
		r.waits[f].count.Add(ctx, 1, r.attrs(e.Kind, e.Name, KeyOutcome.String(string(e.Outcome))))
	}
	span := trace.SpanFromContext(ctx)
	if e.HandOff {
		span.AddEvent("handoff")
	}
	span.SetAttributes(KeyOutcome.String(string(e.Outcome)), KeyTries.Int(e.Tries), KeyHandOff.Bool(e.HandOff))
	if e.Outcome == observe.Error {
		span.RecordError(e.Err)
		span.SetStatus(codes.Error, e.Err.Error())
	}
	span.End()
}

func (r *recorder) holdEnd(ctx context.Context, e observe.HoldEnd) {
	r.hold.Record(ctx, e.Held.Seconds(), r.attrs(e.Kind, e.Name, KeyCause.String(string(e.Cause))))
	switch e.Cause {
	case observe.Expired:
		r.expired.Add(ctx, 1, r.attrs(e.Kind, e.Name))
		return
	case observe.Lost:
	default:
		return
	}
	r.lost.Add(ctx, 1, r.attrs(e.Kind, e.Name))
	// The hold's context keeps the caller's span, which learns of the loss.
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		attrs := []attribute.KeyValue{KeyKind.String(string(e.Kind)), KeyName.String(e.Name)}
		if e.Err != nil {
			attrs = append(attrs, attribute.String("exception.message", e.Err.Error()))
		}
		span.AddEvent("redisson.lock.lost", trace.WithAttributes(attrs...))
	}
}

func (r *recorder) releaseStart(ctx context.Context, e observe.ReleaseStart) context.Context {
	ctx, _ = r.tracer.Start(ctx, "redisson.lock.release", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(KeyKind.String(string(e.Kind)), KeyName.String(e.Name)))
	return ctx
}

func (r *recorder) releaseEnd(ctx context.Context, e observe.ReleaseEnd) {
	if e.HandOff {
		r.handoffs.Add(ctx, 1, r.attrs(e.Kind, e.Name))
	}
	span := trace.SpanFromContext(ctx)
	if e.HandOff {
		span.AddEvent("handoff")
	}
	span.SetAttributes(KeyFull.Bool(e.Full), KeyHandOff.Bool(e.HandOff))
	if e.Err != nil {
		span.RecordError(e.Err)
		span.SetStatus(codes.Error, e.Err.Error())
	}
	span.End()
}

func (r *recorder) retry(ctx context.Context, e observe.Retry) {
	r.retries.Add(ctx, 1, r.attrs(e.Kind, e.Name, KeyReason.String(string(e.Reason))))
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		attrs := []attribute.KeyValue{KeyReason.String(string(e.Reason)), KeyAttempt.Int(e.Attempt), KeyDelay.Float64(e.Delay.Seconds())}
		if e.Err != nil {
			attrs = append(attrs, attribute.String("exception.message", e.Err.Error()))
		}
		span.AddEvent("retry", trace.WithAttributes(attrs...))
	}
}

func (r *recorder) subscribe(ctx context.Context, e observe.Subscribe) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		attrs := []attribute.KeyValue{KeyChannel.String(e.Channel), KeyDuration.Float64(e.Duration.Seconds())}
		if e.Err != nil {
			attrs = append(attrs, attribute.String("exception.message", e.Err.Error()))
		}
		span.AddEvent("subscribe", trace.WithAttributes(attrs...))
	}
}

func (r *recorder) subscription(e observe.Subscription) {
	ctx := context.Background()
	set := metric.WithAttributeSet(attribute.NewSet(KeyResubscribe.Bool(e.Resubscribe)))
	r.subscriptions.Add(ctx, 1, set)
	r.confirm.Record(ctx, e.Confirm.Seconds(), set)
}

func (r *recorder) renewalRound(e observe.Renewal) {
	r.renewal.Record(context.Background(), e.Duration.Seconds())
}

func (r *recorder) permits(ctx context.Context, e observe.Permits) {
	r.semPermits.Add(ctx, e.Count, r.attrs(e.Kind, e.Name, KeyPermitsOp.String(string(e.Op))))
}

func (r *recorder) rateLimit(ctx context.Context, e observe.RateLimit) {
	result := "refused"
	if e.Granted {
		result = "granted"
	}
	r.ratePermits.Add(ctx, e.Permits, r.attrs(observe.KindRateLimiter, e.Name, KeyRateResult.String(result)))
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("ratelimit", trace.WithAttributes(KeyRateResult.String(result), KeyPermits.Int64(e.Permits)))
	}
}

func (r *recorder) countDown(ctx context.Context, e observe.CountDown) {
	r.countDowns.Add(ctx, 1, r.attrs(observe.KindLatch, e.Name))
}

func (r *recorder) register(stats func() observe.Stats) func() {
	s := &source{stats: stats}
	r.mu.Lock()
	r.sources[s] = struct{}{}
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.sources, s)
		r.mu.Unlock()
	}
}
