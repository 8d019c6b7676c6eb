// Command example serves a redisson client's OpenTelemetry metrics on a
// Prometheus /metrics endpoint while a few goroutines contend for locks, a
// semaphore and a rate limiter, so that every panel of dashboard.json has
// something to show:
//
//	go run . -redis localhost:6379 -listen :2112
//	curl -s localhost:2112/metrics | grep redisson_
//
// In a service, the part to copy is setupMetrics and the WithObserver
// option; the workload is only there to make numbers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/extra/redissonotel"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
)

func main() {
	addr := flag.String("redis", "localhost:6379", "Redis address")
	listen := flag.String("listen", ":2112", "address of the /metrics endpoint")
	workers := flag.Int("workers", 8, "goroutines contending for the locks")
	duration := flag.Duration("duration", 0, "stop after this long (0: until interrupted)")
	flag.Parse()
	if err := run(*addr, *listen, *workers, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

// setupMetrics registers an OTel MeterProvider whose metrics the
// Prometheus exporter serves, and returns the redisson observer on it and
// the /metrics handler.
func setupMetrics() (*observe.Observer, http.Handler, func(context.Context) error, error) {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, nil, nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	obs, err := redissonotel.NewObserver(
		redissonotel.WithMeterProvider(mp),
		// "orders:42" → "orders": a label per lock family, not per lock.
		redissonotel.WithNameMapping(func(_ observe.Kind, name string) string {
			family, _, _ := strings.Cut(name, ":")
			return family
		}),
	)
	if err != nil {
		return nil, nil, nil, err
	}
	return obs, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), mp.Shutdown, nil
}

func run(addr, listen string, workers int, duration time.Duration) error {
	obs, handler, shutdown, err := setupMetrics()
	if err != nil {
		return err
	}
	defer shutdown(context.Background())

	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	client, err := redisson.New(rdb, redisson.WithObserver(obs))
	if err != nil {
		return err
	}
	defer client.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, duration)
		defer cancel()
	}

	srv := &http.Server{Addr: listen, Handler: http.NewServeMux(), ReadHeaderTimeout: 5 * time.Second}
	srv.Handler.(*http.ServeMux).Handle("/metrics", handler)
	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Print(err)
			stop()
		}
	}()
	defer srv.Shutdown(context.Background())
	log.Printf("serving metrics on http://%s/metrics", listen)

	if _, err := client.Semaphore("encoders").TrySetPermits(ctx, 2); err != nil {
		return err
	}
	if _, err := client.RateLimiter("api:eu").TrySetRate(ctx, ratelimit.Overall, 20, time.Second); err != nil {
		return err
	}
	done := make(chan struct{})
	for i := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			work(ctx, client, i)
		}()
	}
	for range workers {
		<-done
	}
	return nil
}

// work contends for a few locks, a semaphore and a rate limiter until ctx
// ends.
func work(ctx context.Context, c *redisson.Client, i int) {
	for ctx.Err() == nil {
		name := fmt.Sprintf("orders:%d", rand.IntN(3))
		h, ok, err := c.Lock(name).TryLock(ctx, rlock.WithWait(200*time.Millisecond))
		if err == nil && ok {
			sleep(ctx, time.Duration(rand.IntN(20))*time.Millisecond)
			_ = h.Unlock(context.Background())
		}
		if i%2 == 0 {
			if p, err := c.Semaphore("encoders").AcquirePermits(ctx, 1); err == nil {
				sleep(ctx, 5*time.Millisecond)
				_ = p.Release(context.Background())
			}
		}
		_, _ = c.RateLimiter("api:eu").TryAcquire(ctx, 1)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}
