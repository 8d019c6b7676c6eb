package redissonotel_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/extra/redissonotel"
)

// BenchmarkLockUnlock: one uncontended lock+unlock pair per op, without an
// observer and with redissonotel recording metrics (an SDK MeterProvider)
// and sampled spans (an SDK TracerProvider that samples every span and
// exports none), against a private redis-server.
func BenchmarkLockUnlock(b *testing.B) {
	for _, tc := range []struct {
		name string
		otel bool
	}{{"off", false}, {"otel", true}} {
		b.Run(tc.name, func(b *testing.B) {
			rdb := startRedis(b)
			var opts []redisson.Option
			if tc.otel {
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
				b.Cleanup(func() {
					_ = mp.Shutdown(context.Background())
					_ = tp.Shutdown(context.Background())
				})
				obs, err := redissonotel.NewObserver(redissonotel.WithMeterProvider(mp), redissonotel.WithTracerProvider(tp))
				if err != nil {
					b.Fatal(err)
				}
				opts = append(opts, redisson.WithObserver(obs))
			}
			c, err := redisson.New(redis.NewClient(&redis.Options{Addr: rdb.Options().Addr}), opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = c.Close() })
			lock := c.Lock("bench")
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				h, err := lock.Lock(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := h.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}
