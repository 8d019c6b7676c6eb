package redisson_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/rlock"
)

type ctxKey string

// recorder is an Observer that keeps every event it gets, as "Type" plus
// the event, in order.
type recorder struct {
	mu     sync.Mutex
	events []any
}

func (r *recorder) add(e any) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]any(nil), r.events...)
}

// of returns the recorded events of type T.
func of[T any](r *recorder) []T {
	var out []T
	for _, e := range r.all() {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func (r *recorder) observer() *observe.Observer {
	return &observe.Observer{
		AcquireStart: func(ctx context.Context, e observe.AcquireStart) context.Context {
			r.add(e)
			return context.WithValue(ctx, ctxKey("span"), "acquire "+e.Name)
		},
		AcquireTry: func(ctx context.Context, e observe.AcquireTry) { r.add(e) },
		AcquireEnd: func(ctx context.Context, e observe.AcquireEnd) {
			if ctx.Value(ctxKey("span")) != "acquire "+e.Name {
				panic("AcquireEnd did not get the context AcquireStart returned")
			}
			r.add(e)
		},
		HoldEnd: func(ctx context.Context, e observe.HoldEnd) { r.add(e) },
		ReleaseStart: func(ctx context.Context, e observe.ReleaseStart) context.Context {
			r.add(e)
			return context.WithValue(ctx, ctxKey("span"), "release "+e.Name)
		},
		ReleaseEnd:   func(ctx context.Context, e observe.ReleaseEnd) { r.add(e) },
		Retry:        func(ctx context.Context, e observe.Retry) { r.add(e) },
		Subscribe:    func(ctx context.Context, e observe.Subscribe) { r.add(e) },
		Subscription: func(e observe.Subscription) { r.add(e) },
		Renewal:      func(e observe.Renewal) { r.add(e) },
		Permits:      func(ctx context.Context, e observe.Permits) { r.add(e) },
		RateLimit:    func(ctx context.Context, e observe.RateLimit) { r.add(e) },
		CountDown:    func(ctx context.Context, e observe.CountDown) { r.add(e) },
	}
}

// noopObserver sets every func to one that does nothing, so that every
// event is built and delivered.
func noopObserver() *observe.Observer {
	return &observe.Observer{
		AcquireStart: func(ctx context.Context, e observe.AcquireStart) context.Context { return ctx },
		AcquireTry:   func(context.Context, observe.AcquireTry) {},
		AcquireEnd:   func(context.Context, observe.AcquireEnd) {},
		HoldEnd:      func(context.Context, observe.HoldEnd) {},
		ReleaseStart: func(ctx context.Context, e observe.ReleaseStart) context.Context { return ctx },
		ReleaseEnd:   func(context.Context, observe.ReleaseEnd) {},
		Retry:        func(context.Context, observe.Retry) {},
		Subscribe:    func(context.Context, observe.Subscribe) {},
		Subscription: func(observe.Subscription) {},
		Renewal:      func(observe.Renewal) {},
		Permits:      func(context.Context, observe.Permits) {},
		RateLimit:    func(context.Context, observe.RateLimit) {},
		CountDown:    func(context.Context, observe.CountDown) {},
	}
}

func newObservedClient(t *testing.T, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestObserverCostsNoAllocations: delivering every event of a lock+unlock
// pair allocates nothing beyond what the pair allocates without an
// observer (events are values on the caller's stack), and a logger below
// Debug adds nothing either.
func TestObserverCostsNoAllocations(t *testing.T) {
	srv := redistest.StartServer(t)
	pair := func(c *redisson.Client) float64 {
		lock := c.Lock("allocs")
		ctx := context.Background()
		run := func() {
			h, err := lock.Lock(ctx)
			if err != nil {
				panic(err)
			}
			if err := h.Unlock(ctx); err != nil {
				panic(err)
			}
		}
		run() // load the scripts, open the connections
		// AllocsPerRun counts every allocation in the process, the
		// clients' background work included, and a loaded machine
		// stretches a measurement over more of that work: it only ever
		// adds, so the least of a few measurements is the pair's cost.
		least := testing.AllocsPerRun(200, run)
		for range 2 {
			least = min(least, testing.AllocsPerRun(200, run))
		}
		return least
	}
	info := slog.New(slog.NewTextHandler(nopWriter{}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	off := pair(newObservedClient(t, srv))
	withInfoLogger := pair(newObservedClient(t, srv, redisson.WithLogger(info)))
	on := pair(newObservedClient(t, srv, redisson.WithObserver(noopObserver())))
	t.Logf("allocs per lock+unlock: no observer %.1f, Info logger %.1f, no-op observer %.1f", off, withInfoLogger, on)
	require.Equal(t, off, withInfoLogger, "a logger below Debug must cost no allocation")
	require.Equal(t, off, on, "delivering the events must cost no allocation")
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestObserverLockEvents: an uncontended lock+unlock reports its
// acquisition (one try), its release and its hold's end, in that order;
// the acquisition runs under the observer's context, while the hold keeps
// the caller's values, and an Unlock with a cancelled ctx still reports
// under the caller's values.
func TestObserverLockEvents(t *testing.T) {
	srv := redistest.StartServer(t)
	rec := &recorder{}
	c := newObservedClient(t, srv, redisson.WithObserver(rec.observer()))
	ctx := context.WithValue(context.Background(), ctxKey("caller"), "yes")
	h, err := c.Lock("orders:1").Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, "yes", h.Context().Value(ctxKey("caller")))
	require.Nil(t, h.Context().Value(ctxKey("span")), "the hold must not carry the acquisition's span")

	dead, cancel := context.WithCancel(ctx)
	cancel()
	require.NoError(t, h.Unlock(dead))

	evs := rec.all()
	require.Len(t, evs, 6, "%#v", evs)
	require.Equal(t, observe.AcquireStart{Kind: observe.KindLock, Name: "orders:1", Wait: true}, evs[0])
	require.Equal(t, observe.AcquireTry{Kind: observe.KindLock, Name: "orders:1", Try: 1, Acquired: true}, evs[1])
	end := evs[2].(observe.AcquireEnd)
	require.Equal(t, observe.Acquired, end.Outcome)
	require.Equal(t, 1, end.Tries)
	require.False(t, end.HandOff)
	require.Positive(t, end.Wait)
	require.Equal(t, observe.ReleaseStart{Kind: observe.KindLock, Name: "orders:1"}, evs[3])
	held := evs[4].(observe.HoldEnd)
	require.Equal(t, observe.Released, held.Cause)
	require.Equal(t, "orders:1", held.Name)
	require.Positive(t, held.Held)
	rel := evs[5].(observe.ReleaseEnd)
	require.NoError(t, rel.Err)
	require.True(t, rel.Full)
}

// TestObserverOutcomes: a single try on a held lock is not_acquired, a
// bounded wait that runs out timed_out, a cancelled wait cancelled, and a
// closed client's hold ends closed.
func TestObserverOutcomes(t *testing.T) {
	srv := redistest.StartServer(t)
	rec := &recorder{}
	c := newObservedClient(t, srv, redisson.WithObserver(rec.observer()))
	ctx := context.Background()
	lock := c.Lock("busy")
	h, err := lock.Lock(ctx)
	require.NoError(t, err)

	_, ok, err := lock.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	_, ok, err = lock.TryLock(ctx, rlock.WithWait(50*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = lock.Lock(cctx)
	require.ErrorIs(t, err, context.Canceled)

	var outcomes []observe.Outcome
	for _, e := range of[observe.AcquireEnd](rec) {
		outcomes = append(outcomes, e.Outcome)
	}
	require.Equal(t, []observe.Outcome{observe.Acquired, observe.NotAcquired, observe.TimedOut, observe.Cancelled}, outcomes)
	subs := of[observe.Subscribe](rec)
	require.Len(t, subs, 2, "the two waits subscribed")
	require.Equal(t, keys.LockChannel("busy"), subs[0].Channel)

	require.NoError(t, c.Close())
	ends := of[observe.HoldEnd](rec)
	require.Len(t, ends, 1)
	require.Equal(t, observe.Closed, ends[0].Cause)
	require.ErrorIs(t, ends[0].Err, redisson.ErrClosed)
	_ = h
}

// TestObserverDebugLogs: a logger enabled for Debug gets one record per
// acquisition, release and hold end, with the metrics' attribute names.
func TestObserverDebugLogs(t *testing.T) {
	srv := redistest.StartServer(t)
	var mu sync.Mutex
	var records []map[string]any
	handler := &captureHandler{add: func(m map[string]any) {
		mu.Lock()
		records = append(records, m)
		mu.Unlock()
	}}
	c := newObservedClient(t, srv, redisson.WithLogger(slog.New(handler)))
	ctx := context.Background()
	h, err := c.Lock("logged").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, records, 3)
	require.Equal(t, "redisson: acquisition ended", records[0]["msg"])
	require.Equal(t, "lock", records[0]["redisson.object.kind"])
	require.Equal(t, "logged", records[0]["redisson.object.name"])
	require.Equal(t, "acquired", records[0]["redisson.outcome"])
	require.Equal(t, int64(1), records[0]["redisson.tries"])
	require.Equal(t, "redisson: hold ended", records[1]["msg"])
	require.Equal(t, "released", records[1]["redisson.end.cause"])
	require.Equal(t, "redisson: released", records[2]["msg"])
	require.Equal(t, "logged", records[2]["redisson.object.name"])
}

// captureHandler keeps each Debug record's message and attributes.
type captureHandler struct{ add func(map[string]any) }

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level != slog.LevelDebug {
		return nil
	}
	m := map[string]any{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.Any()
		return true
	})
	h.add(m)
	return nil
}

func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

// An observer that prints how each acquisition ended; extra/redissonotel
// makes one that records OpenTelemetry metrics and spans.
func ExampleWithObserver() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	obs := &redisson.Observer{
		AcquireEnd: func(ctx context.Context, e observe.AcquireEnd) {
			fmt.Printf("%s %q: %s after %d try\n", e.Kind, e.Name, e.Outcome, e.Tries)
		},
		HoldEnd: func(ctx context.Context, e observe.HoldEnd) {
			fmt.Printf("%s %q: %s\n", e.Kind, e.Name, e.Cause)
		},
	}
	client, err := redisson.New(rdb, redisson.WithObserver(obs))
	if err != nil {
		panic(err)
	}
	defer client.Close()

	ctx := context.Background()
	h, err := client.Lock("invoices:7").Lock(ctx)
	if err != nil {
		panic(err)
	}
	_ = h.Unlock(ctx)
	// Output:
	// lock "invoices:7": acquired after 1 try
	// lock "invoices:7": released
}

// TestObserverExpirableSemaphore: a permit-expirable semaphore's acquire
// and release report the acquisition and the permits, taken and given back.
func TestObserverExpirableSemaphore(t *testing.T) {
	srv := redistest.StartServer(t)
	rec := &recorder{}
	c := newObservedClient(t, srv, redisson.WithObserver(rec.observer()))
	ctx := context.Background()
	sem := c.PermitExpirableSemaphore("slots")
	_, err := sem.TrySetPermits(ctx, 1)
	require.NoError(t, err)
	id, err := sem.Acquire(ctx)
	require.NoError(t, err)
	_, ok, err := sem.TryAcquire(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, sem.Release(ctx, id))

	ends := of[observe.AcquireEnd](rec)
	require.Len(t, ends, 2)
	require.Equal(t, observe.KindExpirableSemaphore, ends[0].Kind)
	require.Equal(t, observe.Acquired, ends[0].Outcome)
	require.Equal(t, int64(1), ends[0].Permits)
	require.Equal(t, observe.NotAcquired, ends[1].Outcome)
	require.Equal(t, 1, ends[1].Tries)
	require.Equal(t, []observe.Permits{
		{Kind: observe.KindExpirableSemaphore, Name: "slots", Op: observe.PermitsTaken, Count: 1},
		{Kind: observe.KindExpirableSemaphore, Name: "slots", Op: observe.PermitsReleased, Count: 1},
	}, of[observe.Permits](rec))
}
