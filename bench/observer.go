package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/extra/redissonotel"
)

// Issue #18's row: what the OpenTelemetry observer costs on the hot path,
// uncontended lock+unlock pairs without an observer beside the same pairs
// with extra/redissonotel recording metrics and spans into the SDK.

const (
	libObsNone = "redisson-go, no observer" // redisson.New(rdb)
	libObsOtel = "redisson-go + OTel"       // redisson.New(rdb, WithObserver(redissonotel.NewObserver(mp, tp)))

	grpObserver = "Observer cost: redisson-go without an observer and with the OpenTelemetry observer (#18)"

	scObserver = "observer" // worker scenario
)

var observerLibs = []string{libObsNone, libObsOtel}

func init() {
	groupBases[grpObserver] = [2]string{libObsOtel, "otel"}
	register(scenarioDef{Name: "observer", Run: (*Runner).observer, Libs: observerLibs,
		Workers: map[string]prepareFunc{scObserver: prepareObserver}, Evaluate: evaluateObserver})
}

const observerScenario = "uncontended lock+unlock, 1 goroutine, one key"

// observer runs both libraries round after round, interleaved.
func (r *Runner) observer(ctx context.Context) error {
	return r.rounds(observerLibs, func(round int, lib string) error {
		job := Job{Scenario: scObserver, Lib: lib, Addr: r.cfg.Addr, Key: r.key("ob", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
			CPUProfile: r.profilePath("observer", lib, round, "")}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
		if err != nil {
			return err
		}
		res := s.results[0]
		if res.Ops == 0 {
			return errors.New("no pairs")
		}
		rate := float64(res.Ops) / res.Seconds
		r.report.add(grpObserver, observerScenario, "lock+unlock pairs/s", lib, higher, rate)
		r.addCPUTo(grpObserver, observerScenario, "pair", lib, s, float64(res.Ops))
		m := res.Metrics
		if lib == libObsOtel {
			r.report.add(grpObserver, observerScenario, "spans ended per pair (exported to a discarding exporter)", lib, higher, m["spans"]/float64(res.Ops))
			r.report.add(grpObserver, observerScenario, "metric data points collected at the end", lib, higher, m["metric_points"])
		}
		r.logf("observer      round %d %-26s %8.0f pairs/s  %.2f spans/pair  %.0f metric points",
			round, lib, rate, m["spans"]/float64(res.Ops), m["metric_points"])
		return nil
	})
}

// evaluateObserver prints the ratios (the issue gives no target) and
// checks that the observer did record: a span per call and metrics.
func evaluateObserver(rep *Report) {
	for _, metric := range []string{"lock+unlock pairs/s", "client CPU µs per pair", "client allocations per pair"} {
		o := rep.find(grpObserver, observerScenario, metric, libObsOtel)
		n := rep.find(grpObserver, observerScenario, metric, libObsNone)
		if o == nil || n == nil || n.Value == 0 {
			continue
		}
		rep.Targets = append(rep.Targets, Target{Name: "observer " + metric + ", OTel ÷ none", Want: "–",
			Got: fmt.Sprintf("%.2f (%s vs %s)", o.Value/n.Value, formatNum(o.Value), formatNum(n.Value)), Info: true})
	}
	if m := rep.find(grpObserver, observerScenario, "spans ended per pair (exported to a discarding exporter)", libObsOtel); m != nil {
		// Lock and Unlock get a span each.
		rep.Targets = append(rep.Targets, Target{Name: "observer: spans per lock+unlock (OTel)", Want: "≥ 2",
			Got: formatNum(m.Value), Pass: m.Value >= 2})
	}
}

// observerSettings are the group's printed settings.
func observerSettings(lib string) []Setting {
	switch lib {
	case libObsNone:
		return []Setting{
			{"client", "redisson.New(rdb) defaults (no observer)"},
			{"loop", "h, _ := client.Lock(key).Lock(ctx); h.Unlock(ctx), one goroutine"},
		}
	case libObsOtel:
		return []Setting{
			{"client", "redisson.New(rdb, redisson.WithObserver(obs)), obs = redissonotel.NewObserver(WithMeterProvider(mp), WithTracerProvider(tp))"},
			{"metrics", "sdkmetric.NewMeterProvider(WithReader(NewManualReader())): every instrument aggregates; collected once at the end"},
			{"traces", "sdktrace.NewTracerProvider(AlwaysSample, NewBatchSpanProcessor(an exporter that counts and drops))"},
			{"loop", "as without an observer"},
		}
	}
	return nil
}

// countingExporter drops the spans it is handed, counting them.
type countingExporter struct{ n atomic.Int64 }

func (e *countingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.n.Add(int64(len(spans)))
	return nil
}

func (e *countingExporter) Shutdown(context.Context) error { return nil }

// prepareObserver opens the client (with the OTel observer for its
// library) and warms it up.
func prepareObserver(job Job) (func(goSignal) (Result, error), func(), error) {
	rec := &addrRecorder{}
	rdb := redis.NewClient(goRedisOptions(job.Addr, rec))
	var opts []redisson.Option
	var reader *sdkmetric.ManualReader
	var mp *sdkmetric.MeterProvider
	var tp *sdktrace.TracerProvider
	exp := &countingExporter{}
	if job.Lib == libObsOtel {
		reader = sdkmetric.NewManualReader()
		mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(exp))
		obs, err := redissonotel.NewObserver(redissonotel.WithMeterProvider(mp), redissonotel.WithTracerProvider(tp))
		if err != nil {
			rdb.Close()
			return nil, nil, err
		}
		opts = append(opts, redisson.WithObserver(obs))
	}
	c, err := redisson.New(rdb, opts...)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	cleanup := func() {
		c.Close()
		rdb.Close()
		if mp != nil {
			_ = mp.Shutdown(context.Background())
			_ = tp.Shutdown(context.Background())
		}
	}
	lock := c.Lock(job.Key)
	step := func(ctx context.Context, _ int) error {
		h, err := lock.Lock(ctx)
		if err != nil {
			return err
		}
		return h.Unlock(ctx)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 200 {
		if err := step(ctx, i); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	run := func(sig goSignal) (Result, error) {
		var spans0 int64
		if tp != nil {
			_ = tp.ForceFlush(context.Background())
			spans0 = exp.n.Load()
		}
		res, err := runLoop(job, sig, step)
		res.Addrs = rec.list()
		if tp != nil {
			// Outside the measured CPU: what the batch processor still
			// holds, and one collection of every instrument.
			_ = tp.ForceFlush(context.Background())
			res.Metrics["spans"] = float64(exp.n.Load() - spans0)
			var rm metricdata.ResourceMetrics
			if cerr := reader.Collect(context.Background(), &rm); cerr != nil && err == nil {
				err = cerr
			}
			res.Metrics["metric_points"] = float64(countPoints(rm))
		}
		return res, err
	}
	return run, cleanup, nil
}

// countPoints counts the data points of a collection.
func countPoints(rm metricdata.ResourceMetrics) int {
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				n += len(d.DataPoints)
			case metricdata.Sum[float64]:
				n += len(d.DataPoints)
			case metricdata.Gauge[int64]:
				n += len(d.DataPoints)
			case metricdata.Gauge[float64]:
				n += len(d.DataPoints)
			case metricdata.Histogram[int64]:
				n += len(d.DataPoints)
			case metricdata.Histogram[float64]:
				n += len(d.DataPoints)
			}
		}
	}
	return n
}
