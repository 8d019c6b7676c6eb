package redissonotel_test

import (
	"context"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/extra/redissonotel"
)

// TestOutageCountsFailedTriesAndRetries: with the redis-server killed, a
// try fails with "connection refused" after go-redis' own dial attempts;
// the failure counts in redisson.try.failures whether or not a retry
// follows, and a waiting call's back-off in redisson.retries, both with
// the reason "connection".
func TestOutageCountsFailedTriesAndRetries(t *testing.T) {
	connection := redissonotel.KeyReason.String("connection")
	cases := []struct {
		name string
		kind string
		call func(ctx context.Context, c *redisson.Client) error
		// waits says the call waits, so it backs off and tries again.
		waits bool
	}{
		{"lock wait", "lock", func(ctx context.Context, c *redisson.Client) error {
			_, err := c.Lock("down").Lock(ctx)
			return err
		}, true},
		{"semaphore wait", "semaphore", func(ctx context.Context, c *redisson.Client) error {
			_, err := c.Semaphore("down").AcquirePermits(ctx, 1)
			return err
		}, true},
		{"latch await", "latch", func(ctx context.Context, c *redisson.Client) error {
			_, err := c.CountDownLatch("down").Await(ctx)
			return err
		}, true},
		{"single try", "lock", func(ctx context.Context, c *redisson.Client) error {
			_, _, err := c.Lock("down").TryLock(ctx)
			return err
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.kill()
			kind := redissonotel.KeyKind.String(tc.kind)
			if !tc.waits {
				if err := tc.call(context.Background(), e.client); err == nil {
					t.Fatal("a try against a killed server succeeded")
				}
				rm := e.metrics()
				equal(t, "failed tries", sum(t, rm, "redisson.try.failures", kind, connection), 1)
				equal(t, "retries of a single try", points(rm, "redisson.retries"), 0)
				return
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- tc.call(ctx, e.client) }()
			eventuallyWithin(t, time.Minute, "a failed try and a retry, reason connection", func() bool {
				rm := e.metrics()
				return sum(t, rm, "redisson.try.failures", kind, connection) > 0 &&
					sum(t, rm, "redisson.retries", kind, connection) > 0
			})
			cancel()
			if err := <-done; err == nil {
				t.Fatal("a wait against a killed server succeeded")
			}
		})
	}
}
