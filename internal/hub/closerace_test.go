package hub_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/redistest"
)

// warnings is a slog handler that keeps every record at Warn or above.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		msg += fmt.Sprintf(" %s=%v", a.Key, a.Value)
		return true
	})
	w.mu.Lock()
	w.seen = append(w.seen, msg)
	w.mu.Unlock()
	return nil
}

func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// Closing the hub while the last waiter's unsubscribe is queued is a clean
// shutdown: the queued op is dropped, not written on the closed connection
// (which failed with "redis: client is closed" and was logged as a
// subscription failure that replaces the connection).
func TestCloseWithQueuedUnsubscribeLogsNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	cluster := redistest.StartCluster(t, 3)
	crdb := cluster.Client(t)
	// Enough rounds that the control goroutine meets the close both
	// before and after it took the queued op (a few rounds in ten did
	// with the old code).
	const rounds = 60
	for _, tc := range []struct {
		name    string
		client  redis.UniversalClient
		sharded bool
	}{
		{"subscribe", rdb, false},
		{"sharded on one node", rdb, true},
		{"cluster sharded", crdb, true},
		{"cluster", crdb, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs warnings
			ctx := context.Background()
			for i := range rounds {
				h := hub.New(hub.Config{Client: tc.client, Sharded: tc.sharded, Logger: slog.New(&logs)})
				var ws []*hub.Waiter
				// Channels of several slots: one connection per master
				// in a sharded cluster.
				for j := range 3 {
					w, err := h.Subscribe(ctx, "ch"+strconv.Itoa(i)+"-"+strconv.Itoa(j), hub.LockPolicy)
					require.NoError(t, err)
					ws = append(ws, w)
				}
				for _, w := range ws {
					w.Close(false)
				}
				h.Close()
			}
			if got := logs.all(); len(got) > 0 {
				t.Fatalf("%d warnings, the first: %q", len(got), got[0])
			}
		})
	}
}
