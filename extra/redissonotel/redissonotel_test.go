package redissonotel_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/extra/redissonotel"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
)

// env is one test's OpenTelemetry SDK (an in-memory metric reader and span
// recorder), a private redis-server and a client observed by redissonotel.
type env struct {
	t      *testing.T
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	obs    *observe.Observer
	rdb    *redis.Client
	client *redisson.Client
	// kill kills the redis-server at once.
	kill func()
}

func newEnv(t *testing.T, opts ...redissonotel.Option) *env {
	t.Helper()
	e := &env{t: t, reader: sdkmetric.NewManualReader(), spans: tracetest.NewSpanRecorder()}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader))
	e.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	t.Cleanup(func() {
		_ = mp.Shutdown(context.Background())
		_ = e.tp.Shutdown(context.Background())
	})
	obs, err := redissonotel.NewObserver(append([]redissonotel.Option{
		redissonotel.WithMeterProvider(mp), redissonotel.WithTracerProvider(e.tp),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	e.obs = obs
	e.rdb, e.kill = startKillableRedis(t)
	e.client = e.newClient()
	return e
}

// newClient returns another client on the same Redis and observer, over a
// go-redis client whose commands get spans as redisotel's would.
func (e *env) newClient(opts ...redisson.Option) *redisson.Client {
	e.t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: e.rdb.Options().Addr})
	rdb.AddHook(spanHook{e.tp.Tracer("redis-test")})
	c, err := redisson.New(rdb, append([]redisson.Option{redisson.WithObserver(e.obs)}, opts...)...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = c.Close()
		_ = rdb.Close()
	})
	return c
}

// spanHook starts a span per command from the command's context, as
// go-redis' redisotel does.
type spanHook struct{ tracer trace.Tracer }

func (h spanHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h spanHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		ctx, span := h.tracer.Start(ctx, "redis."+cmd.Name())
		defer span.End()
		return next(ctx, cmd)
	}
}

func (h spanHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		ctx, span := h.tracer.Start(ctx, "redis.pipeline")
		defer span.End()
		return next(ctx, cmds)
	}
}

// metrics collects the current metrics.
func (e *env) metrics() metricdata.ResourceMetrics {
	e.t.Helper()
	var rm metricdata.ResourceMetrics
	if err := e.reader.Collect(context.Background(), &rm); err != nil {
		e.t.Fatal(err)
	}
	return rm
}

func find(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

// sum returns the value of the counter (or observable up-down counter)
// name whose attributes are exactly kv, 0 when there is none.
func sum(t *testing.T, rm metricdata.ResourceMetrics, name string, kv ...attribute.KeyValue) int64 {
	t.Helper()
	m, ok := find(rm, name)
	if !ok {
		return 0
	}
	data, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T, not a Sum[int64]", name, m.Data)
	}
	want := attribute.NewSet(kv...)
	for _, p := range data.DataPoints {
		if p.Attributes.Equals(&want) {
			return p.Value
		}
	}
	return 0
}

// points returns the number of data points of the metric name: the
// distinct attribute sets it was recorded with.
func points(rm metricdata.ResourceMetrics, name string) int {
	m, ok := find(rm, name)
	if !ok {
		return 0
	}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		return len(d.DataPoints)
	case metricdata.Histogram[float64]:
		return len(d.DataPoints)
	}
	return -1
}

// count returns how many values the histogram name recorded with exactly
// the attributes kv.
func count(t *testing.T, rm metricdata.ResourceMetrics, name string, kv ...attribute.KeyValue) uint64 {
	t.Helper()
	m, ok := find(rm, name)
	if !ok {
		return 0
	}
	data, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T, not a Histogram[float64]", name, m.Data)
	}
	if m.Unit != "s" {
		t.Fatalf("%s has unit %q, want s", name, m.Unit)
	}
	want := attribute.NewSet(kv...)
	for _, p := range data.DataPoints {
		if p.Attributes.Equals(&want) {
			return p.Count
		}
	}
	return 0
}

var (
	kindLock = redissonotel.KeyKind.String("lock")
	acquired = redissonotel.KeyOutcome.String("acquired")
	noHand   = redissonotel.KeyHandOff.Bool(false)
	released = redissonotel.KeyCause.String("released")
)

// ended returns the ended spans called name, in the order they ended.
func (e *env) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range e.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// children returns the names of the ended spans whose parent is s, in the
// order they ended.
func (e *env) children(s sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, c := range e.spans.Ended() {
		if c.Parent().SpanID() == s.SpanContext().SpanID() {
			out = append(out, c.Name())
		}
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func events(s sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, ev := range s.Events() {
		out = append(out, ev.Name)
	}
	return out
}

// redisChildren checks that a span's children are go-redis command spans,
// among them the script's EVALSHA.
func redisChildren(t *testing.T, what string, names []string) {
	t.Helper()
	sha := false
	for _, n := range names {
		if !strings.HasPrefix(n, "redis.") {
			t.Fatalf("%s: child span %q among %q", what, n, names)
		}
		sha = sha || n == "redis.evalsha"
	}
	if !sha {
		t.Fatalf("%s: no redis.evalsha span among its children %q", what, names)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, 10*time.Second, what, cond)
}

func eventuallyWithin(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equal[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func equalSlice(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
}

func TestUncontendedLock(t *testing.T) {
	e := newEnv(t)
	ctx, work := e.tp.Tracer("app").Start(context.Background(), "work")
	h, err := e.client.Lock("orders:1").Lock(ctx)
	must(t, err)
	rm := e.metrics()
	equal(t, "leases while held", sum(t, rm, "redisson.renewal.leases"), 1)

	// An Unlock after the caller's ctx ended still nests under its span.
	dead, cancel := context.WithCancel(ctx)
	cancel()
	must(t, h.Unlock(dead))
	work.End()

	rm = e.metrics()
	equal(t, "acquisitions", sum(t, rm, "redisson.lock.acquisitions", kindLock, acquired, noHand), 1)
	equal(t, "acquisition points", points(rm, "redisson.lock.acquisitions"), 1)
	equal(t, "wait", count(t, rm, "redisson.lock.wait.duration", kindLock, acquired), 1)
	equal(t, "hold", count(t, rm, "redisson.lock.hold.duration", kindLock, released), 1)
	equal(t, "lost", points(rm, "redisson.lock.lost"), 0)
	equal(t, "handoffs", points(rm, "redisson.lock.handoffs"), 0)
	equal(t, "leases after", sum(t, rm, "redisson.renewal.leases"), 0)

	parent := e.ended("work")[0]
	equalSlice(t, "children of work", e.children(parent), []string{"redisson.lock.acquire", "redisson.lock.release"})
	acq := e.ended("redisson.lock.acquire")[0]
	equal(t, "kind", attr(acq, redissonotel.KeyKind).AsString(), "lock")
	equal(t, "name", attr(acq, redissonotel.KeyName).AsString(), "orders:1")
	equal(t, "outcome", attr(acq, redissonotel.KeyOutcome).AsString(), "acquired")
	equal(t, "tries", attr(acq, redissonotel.KeyTries).AsInt64(), 1)
	equal(t, "status", acq.Status().Code, codes.Unset)
	equalSlice(t, "acquire events", events(acq), []string{"try"})
	// go-redis' spans nest under ours (a fresh server answers the first
	// EVALSHA with NOSCRIPT, then EVAL runs it; INFO reads the replicas).
	redisChildren(t, "acquire", e.children(acq))
	rel := e.ended("redisson.lock.release")[0]
	equal(t, "release full", attr(rel, redissonotel.KeyFull).AsBool(), true)
	redisChildren(t, "release", e.children(rel))
}

func TestContendedWaitHandOff(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	lock := e.client.Lock("contended")
	h, err := lock.Lock(ctx)
	must(t, err)
	got := make(chan error, 1)
	go func() {
		w, err := lock.Lock(ctx)
		if err == nil {
			err = w.Unlock(ctx)
		}
		got <- err
	}()
	eventually(t, "the waiter to subscribe", func() bool {
		return sum(t, e.metrics(), "redisson.pubsub.waiters") == 1
	})
	rm := e.metrics()
	equal(t, "channels", sum(t, rm, "redisson.pubsub.channels"), 1)
	equal(t, "connections", sum(t, rm, "redisson.pubsub.connections"), 1)
	must(t, h.Unlock(ctx))
	must(t, <-got)

	rm = e.metrics()
	equal(t, "acquired at once", sum(t, rm, "redisson.lock.acquisitions", kindLock, acquired, noHand), 1)
	equal(t, "acquired by hand-off", sum(t, rm, "redisson.lock.acquisitions", kindLock, acquired, redissonotel.KeyHandOff.Bool(true)), 1)
	equal(t, "handoffs", sum(t, rm, "redisson.lock.handoffs", kindLock), 1)
	equal(t, "waits", count(t, rm, "redisson.lock.wait.duration", kindLock, acquired), 2)
	equal(t, "holds", count(t, rm, "redisson.lock.hold.duration", kindLock, released), 2)
	equal(t, "subscriptions", sum(t, rm, "redisson.pubsub.subscriptions", redissonotel.KeyResubscribe.Bool(false)), 1)
	equal(t, "confirmations", count(t, rm, "redisson.pubsub.confirm.duration", redissonotel.KeyResubscribe.Bool(false)), 1)

	acqs := e.ended("redisson.lock.acquire")
	equal(t, "acquire spans", len(acqs), 2)
	waiter := acqs[1]
	// A local waiter sends no try while another owner of its client holds
	// the lock: the release hands it over.
	equalSlice(t, "waiter events", events(waiter), []string{"subscribe", "handoff"})
	equal(t, "waiter tries", attr(waiter, redissonotel.KeyTries).AsInt64(), 0)
	// The holder's release span may end after the waiter's: it records
	// the hand-off once the waiter already runs.
	var handed []sdktrace.ReadOnlySpan
	for _, s := range e.ended("redisson.lock.release") {
		if attr(s, redissonotel.KeyHandOff).AsBool() {
			handed = append(handed, s)
		}
	}
	equal(t, "releases that handed off", len(handed), 1)
	equal(t, "releases", len(e.ended("redisson.lock.release")), 2)
	equalSlice(t, "hand-off release events", events(handed[0]), []string{"handoff"})
}

func TestTimeout(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	h, err := e.client.Lock("slow").Lock(ctx)
	must(t, err)
	other := e.newClient()
	_, ok, err := other.Lock("slow").TryLock(ctx, rlock.WithWait(100*time.Millisecond))
	must(t, err)
	equal(t, "acquired", ok, false)
	must(t, h.Unlock(ctx))

	rm := e.metrics()
	timedOut := redissonotel.KeyOutcome.String("timed_out")
	equal(t, "timed out", sum(t, rm, "redisson.lock.acquisitions", kindLock, timedOut, noHand), 1)
	equal(t, "timed-out wait", count(t, rm, "redisson.lock.wait.duration", kindLock, timedOut), 1)
	acq := e.ended("redisson.lock.acquire")[1]
	equal(t, "outcome", attr(acq, redissonotel.KeyOutcome).AsString(), "timed_out")
	equal(t, "status", acq.Status().Code, codes.Unset)
	evs := events(acq)
	equal(t, "first event", evs[0], "try")
	equal(t, "second event", evs[1], "subscribe")
	tries := 0
	for _, ev := range evs {
		if ev == "try" {
			tries++
		}
	}
	equal(t, "tries attribute", attr(acq, redissonotel.KeyTries).AsInt64(), int64(tries))
}

func TestLostLock(t *testing.T) {
	e := newEnv(t)
	c := e.newClient(redisson.WithWatchdogTimeout(300 * time.Millisecond))
	ctx, work := e.tp.Tracer("app").Start(context.Background(), "work")
	h, err := c.Lock("lost").Lock(ctx)
	must(t, err)
	must(t, e.rdb.Del(ctx, "lost").Err())
	select {
	case <-h.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the hold did not end")
	}
	if !errors.Is(h.Err(), redisson.ErrLockLost) {
		t.Fatalf("hold ended with %v", h.Err())
	}
	// The holder is told first; the observer hears of the loss just after,
	// so the caller's span stays open until its event is in.
	eventually(t, "the loss recorded on the caller's span", func() bool {
		return len(work.(sdktrace.ReadOnlySpan).Events()) > 0
	})
	work.End()

	rm := e.metrics()
	equal(t, "lost", sum(t, rm, "redisson.lock.lost", kindLock), 1)
	equal(t, "lost holds", count(t, rm, "redisson.lock.hold.duration", kindLock, redissonotel.KeyCause.String("lost")), 1)
	equal(t, "released holds", count(t, rm, "redisson.lock.hold.duration", kindLock, released), 0)
	if count(t, rm, "redisson.renewal.duration") < 1 {
		t.Fatal("no renewal round recorded")
	}
	// The caller's span learns of the loss.
	equalSlice(t, "work events", events(e.ended("work")[0]), []string{"redisson.lock.lost"})
	if err := h.Unlock(ctx); !errors.Is(err, redisson.ErrLockLost) {
		t.Fatalf("Unlock of a lost hold: %v", err)
	}
}

// A fixed lease that runs out is counted expired, not lost: a lost-lock
// alert must not fire on ordinary TryLock(wait, lease) use. It used to
// count in redisson.lock.lost.
func TestFixedLeaseExpiredNotLost(t *testing.T) {
	e := newEnv(t)
	ctx, work := e.tp.Tracer("app").Start(context.Background(), "work")
	h, ok, err := e.client.Lock("leased").TryLock(ctx, rlock.WithLease(200*time.Millisecond))
	must(t, err)
	if !ok {
		t.Fatal("not acquired")
	}
	select {
	case <-h.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the hold did not end")
	}
	if !errors.Is(h.Err(), redisson.ErrLeaseExpired) || errors.Is(h.Err(), redisson.ErrLockLost) {
		t.Fatalf("hold ended with %v", h.Err())
	}
	expired := redissonotel.KeyCause.String("expired")
	eventually(t, "the hold's end recorded", func() bool {
		return count(t, e.metrics(), "redisson.lock.hold.duration", kindLock, expired) == 1
	})
	work.End()
	rm := e.metrics()
	equal(t, "expired", sum(t, rm, "redisson.lock.expired", kindLock), 1)
	equal(t, "lost", points(rm, "redisson.lock.lost"), 0)
	equalSlice(t, "work events", events(e.ended("work")[0]), nil)
}

func TestFairLockWait(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	h, err := e.client.FairLock("queue").Lock(ctx)
	must(t, err)
	other := e.newClient()
	got := make(chan error, 1)
	go func() {
		w, ok, err := other.FairLock("queue").TryLock(ctx, fairlock.WithWait(10*time.Second))
		if err == nil && !ok {
			err = errors.New("not acquired")
		}
		if err == nil {
			err = w.Unlock(ctx)
		}
		got <- err
	}()
	eventually(t, "the waiter to subscribe", func() bool {
		return sum(t, e.metrics(), "redisson.pubsub.waiters") == 1
	})
	must(t, h.Unlock(ctx))
	must(t, <-got)

	rm := e.metrics()
	fair := redissonotel.KeyKind.String("fair_lock")
	equal(t, "acquisitions", sum(t, rm, "redisson.lock.acquisitions", fair, acquired, noHand), 2)
	equal(t, "acquisition points", points(rm, "redisson.lock.acquisitions"), 1)
	equal(t, "holds", count(t, rm, "redisson.lock.hold.duration", fair, released), 2)
	acqs := e.ended("redisson.lock.acquire")
	equal(t, "acquire spans", len(acqs), 2)
	waiter := acqs[1]
	equal(t, "kind", attr(waiter, redissonotel.KeyKind).AsString(), "fair_lock")
	evs := events(waiter)
	equal(t, "first event", evs[0], "try")
	equal(t, "second event", evs[1], "subscribe")
	equal(t, "last event", evs[len(evs)-1], "try")
	if attr(waiter, redissonotel.KeyTries).AsInt64() < 2 {
		t.Fatalf("the waiter tried %d times", attr(waiter, redissonotel.KeyTries).AsInt64())
	}
	equal(t, "release spans", len(e.ended("redisson.lock.release")), 2)
}

func TestSemaphoreWait(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	sem := e.client.Semaphore("slots")
	_, err := sem.TrySetPermits(ctx, 1)
	must(t, err)
	p, err := sem.AcquirePermits(ctx, 1)
	must(t, err)
	got := make(chan error, 1)
	go func() {
		q, err := e.client.Semaphore("slots").AcquirePermits(ctx, 1)
		if err == nil {
			err = q.Release(ctx)
		}
		got <- err
	}()
	eventually(t, "the waiter to subscribe", func() bool {
		return sum(t, e.metrics(), "redisson.pubsub.waiters") == 1
	})
	must(t, p.Release(ctx))
	must(t, <-got)

	rm := e.metrics()
	kind := redissonotel.KeyKind.String("semaphore")
	equal(t, "taken", sum(t, rm, "redisson.semaphore.permits", kind, redissonotel.KeyPermitsOp.String("taken")), 2)
	equal(t, "released", sum(t, rm, "redisson.semaphore.permits", kind, redissonotel.KeyPermitsOp.String("released")), 2)
	equal(t, "acquisitions", sum(t, rm, "redisson.semaphore.acquisitions", kind, acquired), 2)
	equal(t, "waits", count(t, rm, "redisson.semaphore.wait.duration", kind, acquired), 2)
	equal(t, "not in the lock metrics", sum(t, rm, "redisson.lock.acquisitions", kind, acquired, noHand), 0)
	spans := e.ended("redisson.semaphore.acquire")
	equal(t, "spans", len(spans), 2)
	equal(t, "permits attribute", attr(spans[1], redissonotel.KeyPermits).AsInt64(), 1)
	evs := events(spans[1])
	equal(t, "first event", evs[0], "try")
	equal(t, "second event", evs[1], "subscribe")
	equal(t, "last event", evs[len(evs)-1], "try")
	redisChildren(t, "first acquire", e.children(spans[0]))
}

func TestLatch(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	l := e.client.CountDownLatch("ready")
	_, err := l.TrySetCount(ctx, 1)
	must(t, err)
	got := make(chan error, 1)
	go func() {
		ok, err := e.client.CountDownLatch("ready").Await(ctx, latch.WithTimeout(10*time.Second))
		if err == nil && !ok {
			err = errors.New("the latch did not open")
		}
		got <- err
	}()
	eventually(t, "the waiter to subscribe", func() bool {
		return sum(t, e.metrics(), "redisson.pubsub.waiters") == 1
	})
	must(t, l.CountDown(ctx))
	must(t, <-got)

	rm := e.metrics()
	kind := redissonotel.KeyKind.String("latch")
	equal(t, "count-downs", sum(t, rm, "redisson.latch.countdowns", kind), 1)
	equal(t, "awaits", sum(t, rm, "redisson.latch.awaits", kind, acquired), 1)
	equal(t, "waits", count(t, rm, "redisson.latch.wait.duration", kind, acquired), 1)
	equal(t, "not in the lock metrics", sum(t, rm, "redisson.lock.acquisitions", kind, acquired, noHand), 0)
	spans := e.ended("redisson.latch.await")
	equal(t, "spans", len(spans), 1)
	equal(t, "name", attr(spans[0], redissonotel.KeyName).AsString(), "ready")
	evs := events(spans[0])
	equalSlice(t, "first events", evs[:3], []string{"try", "subscribe", "try"})
	equal(t, "last event", evs[len(evs)-1], "try")
}

func TestRateLimiterRefusal(t *testing.T) {
	e := newEnv(t, redissonotel.WithNameMapping(func(kind observe.Kind, name string) string {
		prefix, _, _ := strings.Cut(name, ":")
		return prefix
	}))
	ctx := context.Background()
	rl := e.client.RateLimiter("api:eu")
	_, err := rl.TrySetRate(ctx, ratelimit.Overall, 1, time.Minute)
	must(t, err)
	ok, err := rl.TryAcquire(ctx, 1)
	must(t, err)
	equal(t, "first", ok, true)
	ok, err = rl.TryAcquire(ctx, 1)
	must(t, err)
	equal(t, "second", ok, false)

	rm := e.metrics()
	kind := redissonotel.KeyKind.String("rate_limiter")
	name := redissonotel.KeyName.String("api")
	equal(t, "granted", sum(t, rm, "redisson.ratelimit.permits", kind, name, redissonotel.KeyRateResult.String("granted")), 1)
	equal(t, "refused", sum(t, rm, "redisson.ratelimit.permits", kind, name, redissonotel.KeyRateResult.String("refused")), 1)
	equal(t, "acquired", sum(t, rm, "redisson.ratelimit.acquisitions", kind, name, acquired), 1)
	equal(t, "not acquired", sum(t, rm, "redisson.ratelimit.acquisitions", kind, name, redissonotel.KeyOutcome.String("not_acquired")), 1)
	equal(t, "waits", count(t, rm, "redisson.ratelimit.wait.duration", kind, name, acquired), 1)
	equal(t, "not in the lock metrics", points(rm, "redisson.lock.acquisitions"), 0)
	spans := e.ended("redisson.ratelimit.acquire")
	equal(t, "spans", len(spans), 2)
	equal(t, "span name attribute", attr(spans[1], redissonotel.KeyName).AsString(), "api:eu")
	equal(t, "outcome", attr(spans[1], redissonotel.KeyOutcome).AsString(), "not_acquired")
	equalSlice(t, "events", events(spans[1]), []string{"try", "ratelimit"})
}

func TestMultiLock(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := multilock.New(e.client.Lock("a"), e.client.Lock("b"))
	h, err := m.Lock(ctx)
	must(t, err)
	must(t, h.Unlock(ctx))

	rm := e.metrics()
	equal(t, "multi", sum(t, rm, "redisson.lock.acquisitions", redissonotel.KeyKind.String("multi_lock"), acquired, noHand), 1)
	equal(t, "members", sum(t, rm, "redisson.lock.acquisitions", kindLock, acquired, noHand), 2)
	equal(t, "member holds", count(t, rm, "redisson.lock.hold.duration", kindLock, released), 2)

	var multi sdktrace.ReadOnlySpan
	for _, s := range e.ended("redisson.lock.acquire") {
		if attr(s, redissonotel.KeyKind).AsString() == "multi_lock" {
			multi = s
		}
	}
	if multi == nil {
		t.Fatal("no multi-lock acquire span")
	}
	equal(t, "name", attr(multi, redissonotel.KeyName).AsString(), "[a,b]")
	equalSlice(t, "members' spans", e.children(multi), []string{"redisson.lock.acquire", "redisson.lock.acquire"})
	var multiRel sdktrace.ReadOnlySpan
	for _, s := range e.ended("redisson.lock.release") {
		if attr(s, redissonotel.KeyKind).AsString() == "multi_lock" {
			multiRel = s
		}
	}
	if multiRel == nil {
		t.Fatal("no multi-lock release span")
	}
	equalSlice(t, "members' releases", e.children(multiRel), []string{"redisson.lock.release", "redisson.lock.release"})
}

// TestSharedObserver: one observer serves several clients; their gauges
// add up, and a closed client leaves them.
func TestSharedObserver(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	other := e.newClient()
	var hs []interface{ Unlock(context.Context) error }
	var mu sync.Mutex
	for i, c := range []*redisson.Client{e.client, other} {
		h, err := c.Lock("shared-" + string(rune('a'+i))).Lock(ctx)
		must(t, err)
		mu.Lock()
		hs = append(hs, h)
		mu.Unlock()
	}
	equal(t, "leases of both", sum(t, e.metrics(), "redisson.renewal.leases"), 2)
	must(t, other.Close())
	equal(t, "leases of the open one", sum(t, e.metrics(), "redisson.renewal.leases"), 1)
	must(t, hs[0].Unlock(ctx))
}

// TestScopeVersion: the meter's and the tracer's instrumentation scope
// carry redisson.Version, which Prometheus shows as otel_scope_version.
func TestScopeVersion(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	h, err := e.client.Lock("versioned").Lock(ctx)
	must(t, err)
	must(t, h.Unlock(ctx))

	rm := e.metrics()
	if len(rm.ScopeMetrics) == 0 {
		t.Fatal("no metrics recorded")
	}
	for _, sm := range rm.ScopeMetrics {
		equal(t, "meter scope", sm.Scope.Name, redissonotel.ScopeName)
		equal(t, "meter scope version", sm.Scope.Version, redisson.Version)
	}
	spans := e.ended("redisson.lock.acquire")
	equal(t, "acquire spans", len(spans), 1)
	equal(t, "tracer scope", spans[0].InstrumentationScope().Name, redissonotel.ScopeName)
	equal(t, "tracer scope version", spans[0].InstrumentationScope().Version, redisson.Version)
	if redisson.Version == "" {
		t.Fatal("redisson.Version is empty")
	}
}
