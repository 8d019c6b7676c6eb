package retry_test

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/observe"
)

// outageLog keeps the failed tries and the retries an observer saw.
type outageLog struct {
	mu      sync.Mutex
	tries   []observe.AcquireTry
	retries []observe.Retry
}

func (l *outageLog) observer() *observe.Observer {
	return &observe.Observer{
		AcquireTry: func(_ context.Context, e observe.AcquireTry) {
			l.mu.Lock()
			defer l.mu.Unlock()
			if e.Err != nil {
				l.tries = append(l.tries, e)
			}
		},
		Retry: func(_ context.Context, e observe.Retry) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.retries = append(l.retries, e)
		},
	}
}

// seen reports whether a failed try and a retry of kind were observed,
// both classified as a connection failure and wrapping the refusal.
func (l *outageLog) seen(kind observe.Kind) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	var try, retry bool
	for _, e := range l.tries {
		try = try || e.Kind == kind && e.Reason == observe.RetryConnection && errors.Is(e.Err, syscall.ECONNREFUSED)
	}
	for _, e := range l.retries {
		retry = retry || e.Kind == kind && e.Reason == observe.RetryConnection && errors.Is(e.Err, syscall.ECONNREFUSED)
	}
	return try && retry
}

// TestOutageRetriesObserved: with the redis-server killed, a waiting
// call's tries fail with "connection refused" (after go-redis' own dial
// attempts), and the observer sees each failed try classified as a
// connection failure and the call's back-offs as retries.
func TestOutageRetriesObserved(t *testing.T) {
	cases := []struct {
		name string
		kind observe.Kind
		wait func(ctx context.Context, c *redisson.Client) error
	}{
		{"lock", observe.KindLock, func(ctx context.Context, c *redisson.Client) error {
			_, err := c.Lock("down").Lock(ctx)
			return err
		}},
		{"semaphore", observe.KindSemaphore, func(ctx context.Context, c *redisson.Client) error {
			_, err := c.Semaphore("down").AcquirePermits(ctx, 1)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			var log outageLog
			c, err := redisson.New(redistest.Client(t, srv), redisson.WithObserver(log.observer()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			if err := srv.Kill(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- tc.wait(ctx, c) }()
			redistest.Eventually(t, time.Minute, "a failed try and a retry, reason connection", func() bool { return log.seen(tc.kind) })
			cancel()
			if err := <-done; err == nil {
				t.Fatal("a wait against a killed server succeeded")
			}
		})
	}
}
