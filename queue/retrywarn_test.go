package queue_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// logRecords keeps what a logger was given, as attribute maps.
type logRecords struct {
	mu   sync.Mutex
	list []map[string]any
}

func (r *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecords) WithGroup(string) slog.Handler            { return r }
func (r *logRecords) Handle(_ context.Context, rec slog.Record) error {
	m := map[string]any{"msg": rec.Message}
	rec.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.Any(); return true })
	r.mu.Lock()
	r.list = append(r.list, m)
	r.mu.Unlock()
	return nil
}

func (r *logRecords) find(msg string) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.list {
		if m["msg"] == msg {
			return m
		}
	}
	return nil
}

// A blocking call that rides out a failure warns naming its object: kind
// and name (they were empty).
func TestBlockingRetryWarningNamesObject(t *testing.T) {
	srv := redistest.StartServer(t)
	rec := &logRecords{}
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithLogger(slog.New(rec)),
		redisson.WithRetry(redisson.RetryOptions{Attempts: 3, Delay: 20 * time.Millisecond}))
	raw := redistest.Client(t, srv)
	q := redisson.NewBlockingQueue[string](c, "jobs", codec.String())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := q.Take(ctx)
		done <- err
	}()
	redistest.Eventually(t, within, "the take blocks", func() bool {
		n, err := raw.Do(t.Context(), "INFO", "clients").Text()
		return err == nil && !strings.Contains(n, "blocked_clients:0")
	})
	require.NoError(t, srv.Kill())
	const msg = "redisson: a try failed for a reason that may pass; trying again"
	redistest.Eventually(t, within, "a retry warning", func() bool { return rec.find(msg) != nil })
	w := rec.find(msg)
	require.Equal(t, "blocking_queue", w["redisson.object.kind"])
	require.Equal(t, "jobs", w["redisson.object.name"])
	cancel()
	select {
	case <-done:
	case <-time.After(within):
		t.Fatal("the take did not end")
	}
}
