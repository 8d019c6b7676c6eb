package integration

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// logRecords is a slog.Handler that keeps the records at Warn and above.
type logRecords struct {
	mu   *sync.Mutex
	recs *[]string
}

func newLogRecords() logRecords { return logRecords{mu: new(sync.Mutex), recs: new([]string)} }

func (l logRecords) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelWarn }
func (l logRecords) WithAttrs([]slog.Attr) slog.Handler            { return l }
func (l logRecords) WithGroup(string) slog.Handler                 { return l }
func (l logRecords) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	*l.recs = append(*l.recs, b.String())
	l.mu.Unlock()
	return nil
}

// all returns the records kept so far.
func (l logRecords) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), *l.recs...)
}

// matching returns the records that contain s.
func (l logRecords) matching(s string) []string {
	var out []string
	for _, r := range l.all() {
		if strings.Contains(r, s) {
			out = append(out, r)
		}
	}
	return out
}

// aclUser creates the ACL user name with password "pw" and rules, and
// returns a go-redis client of it.
func aclUser(t *testing.T, srv *redistest.Server, admin *redis.Client, name, rules string) *redis.Client {
	t.Helper()
	args := []any{"ACL", "SETUSER", name, "reset", "on", ">pw"}
	for _, r := range strings.Fields(rules) {
		args = append(args, r)
	}
	require.NoError(t, admin.Do(t.Context(), args...).Err(), "ACL SETUSER %s %s", name, rules)
	return redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = name, "pw" })
}

// TestACLRefusalsLogOnce: a client whose ACL refuses the registration
// record's key and INFO (-@dangerous) works, and says so once each, naming
// what the ACL must allow, instead of a warning per refresh or per lock
// call; a success in between (the rights granted, then taken back) earns
// one more warning.
func TestACLRefusalsLogOnce(t *testing.T) {
	srv := redistest.StartServer(t)
	redistest.StartReplica(t, srv) // lock writes read the replica count
	admin := redistest.Client(t, srv)
	ctx := t.Context()
	const noRecord = "~app:* ~redisson_*{app:* &redisson_*{app:* +@all -@dangerous"
	rdb := aclUser(t, srv, admin, "app", noRecord)
	logs := newLogRecords()
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(3*time.Second), redisson.WithLogger(slog.New(logs)))
	require.NoError(t, err)
	defer c.Close()

	// Lock calls for 3 s: a record refresh every second, a replica-count
	// read due every few seconds.
	lockFor := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			h, err := c.Lock("app:lock").Lock(ctx)
			require.NoError(t, err)
			require.NoError(t, h.Unlock(ctx))
			time.Sleep(20 * time.Millisecond)
		}
	}
	lockFor(3 * time.Second)
	redistest.Eventually(t, 30*time.Second, "the refusals logged", func() bool {
		return len(logs.matching("registration record")) > 0 && len(logs.matching("replica count")) > 0
	})
	lockFor(3 * time.Second)
	reg, info := logs.matching("registration record"), logs.matching("replica count")
	require.Equal(t, 1, len(reg), "registration warnings in 6 s of lock calls; the first: %q", reg)
	require.Equal(t, 1, len(info), "replica-count warnings in 6 s of lock calls; the first: %q", first(info))
	require.Contains(t, reg[0], "~redisson-go:client:*", "the warning names the key pattern the ACL must allow")
	require.Contains(t, reg[0], "NOPERM")
	require.Contains(t, info[0], "+info", "the warning names the command the ACL must allow")

	// Granted, then refused again: one more warning each.
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "~redisson-go:client:*", "+info").Err())
	redistest.Eventually(t, 30*time.Second, "the record written once allowed", func() bool {
		return admin.Exists(ctx, "redisson-go:client:"+c.ID()).Val() == 1
	})
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "resetkeys", "~app:*", "~redisson_*{app:*", "-info").Err())
	redistest.Eventually(t, 30*time.Second, "the refusal logged again", func() bool {
		return len(logs.matching("registration record")) == 2
	})
	lockFor(3 * time.Second)
	require.Len(t, logs.matching("registration record"), 2, "%q", logs.matching("registration record"))
}

// first returns the first of ss, "" when there is none.
func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}
