package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	coreholds "github.com/goredisson/redisson/internal/holds"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
)

// holds is a hold source the test changes by hand.
type holds struct {
	mu      sync.Mutex
	list    []coreholds.Held
	changed chan struct{}
}

func newHolds() *holds { return &holds{changed: make(chan struct{}, 1)} }

func (h *holds) Held() []coreholds.Held {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]coreholds.Held(nil), h.list...)
}

func (h *holds) set(list ...coreholds.Held) {
	h.mu.Lock()
	h.list = list
	h.mu.Unlock()
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

func get(t *testing.T, rdb redis.UniversalClient, id string) *registry.Record {
	t.Helper()
	data, err := rdb.Get(context.Background(), registry.Key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	require.NoError(t, err)
	rec, err := registry.Parse(data)
	require.NoError(t, err)
	return rec
}

// TestExpiresAfterKill: a registrar that stops refreshing without Close (a
// process that died) leaves a record that expires within its TTL.
func TestExpiresAfterKill(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	src := newHolds()
	since := time.Now().Add(-time.Minute)
	src.set(coreholds.Held{Key: "k", Owner: "id-1:7", Object: "lock", Since: since, Depth: 2})
	r := registry.Start(registry.Config{Redis: rdb, ID: "id-1", Held: src.Held, Changed: src.changed,
		Period: 100 * time.Millisecond, TTL: 400 * time.Millisecond, Timeout: time.Second})
	var rec *registry.Record
	redistest.Eventually(t, 5*time.Second, "the record", func() bool {
		rec = get(t, rdb, "id-1")
		return rec != nil
	})
	h, ok := rec.Find("k", "id-1:7")
	require.True(t, ok)
	require.Equal(t, registry.Hold{Key: "k", Owner: "id-1:7", Object: "lock", SinceMs: since.UnixMilli(), Depth: 2}, h)
	// Refreshed: it outlives its first TTL while the registrar runs.
	first := rec.WrittenMs
	redistest.Eventually(t, 5*time.Second, "refreshed past the first TTL", func() bool {
		rec = get(t, rdb, "id-1")
		return rec != nil && rec.WrittenMs >= first+500
	})
	r.Abandon()
	ttl, err := rdb.PTTL(context.Background(), registry.Key("id-1")).Result()
	require.NoError(t, err)
	require.LessOrEqual(t, ttl, 400*time.Millisecond, "the record keeps its PX after the refresher stopped")
	redistest.Eventually(t, 5*time.Second, "the record expires", func() bool { return get(t, rdb, "id-1") == nil })
}

// TestCoalesced: a burst of changes costs a write per MinGap, not one per
// change, and the last state is written.
func TestCoalesced(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	src := newHolds()
	var r *registry.Registrar
	const gap = 100 * time.Millisecond
	var elapsed time.Duration
	cmds := redistest.SentAll(t, srv, rdb, func() {
		start := time.Now()
		r = registry.Start(registry.Config{Redis: rdb, ID: "id-2", Held: src.Held, Changed: src.changed,
			Period: time.Hour, TTL: time.Hour, MinGap: gap, Timeout: time.Second})
		for i := range 500 {
			src.set(coreholds.Held{Key: "k", Owner: "id-2:1", Since: time.Now(), Depth: i + 1})
		}
		redistest.Eventually(t, 5*time.Second, "the last state written", func() bool {
			rec := get(t, rdb, "id-2")
			return rec != nil && len(rec.Holds) == 1 && rec.Holds[0].Depth == 500
		})
		elapsed = time.Since(start)
		r.Abandon()
	})
	sets := 0
	for _, c := range redistest.Mentioning(cmds, registry.KeyPrefix) {
		if c.Command == "set" {
			sets++
		}
	}
	// The first write, then at most one per gap.
	require.LessOrEqual(t, sets, 2+int(elapsed/gap), "%d writes in %v", sets, elapsed)
	require.Positive(t, sets)
}

// TestCloseDeletes: Close removes the record; a second Close is harmless.
func TestCloseDeletes(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	src := newHolds()
	r := registry.Start(registry.Config{Redis: rdb, ID: "id-3", Held: src.Held, Changed: src.changed,
		Period: time.Hour, TTL: time.Hour, Timeout: time.Second})
	redistest.Eventually(t, 5*time.Second, "the record", func() bool { return get(t, rdb, "id-3") != nil })
	r.Close()
	require.Nil(t, get(t, rdb, "id-3"))
	r.Close()
}

// TestUnreachable: a Redis that cannot be reached is logged once at Warn
// (then at Debug), and Close still returns.
func TestUnreachable(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer rdb.Close()
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	src := newHolds()
	r := registry.Start(registry.Config{Redis: rdb, ID: "id-4", Held: src.Held, Changed: src.changed,
		Period: 20 * time.Millisecond, TTL: time.Hour, Timeout: 200 * time.Millisecond, Logger: logger})
	redistest.Eventually(t, 5*time.Second, "two failed writes logged", func() bool {
		return strings.Contains(buf.String(), "failed again")
	})
	r.Close()
	out := buf.String()
	require.Equal(t, 1, strings.Count(out, "level=WARN"), out)
	require.Contains(t, out, "cannot write the client's registration record")
	require.Contains(t, out, "key=redisson-go:client:id-4")
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutine and the
// test's.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAge(t *testing.T) {
	rec := registry.Record{WrittenMs: 10_000, TTLms: 4000}
	for _, tc := range []struct {
		at   int64
		pttl time.Duration
		want time.Duration
	}{
		{9000, 4 * time.Second, time.Second},                   // just written
		{9000, 3 * time.Second, 2 * time.Second},               // written 1 s ago
		{9000, -1, time.Second},                                // PTTL unknown
		{11_000, 4 * time.Second, 0},                           // a clock ahead: never negative
		{0, 1500 * time.Millisecond, 12500 * time.Millisecond}, // 10 s + 2.5 s
	} {
		require.Equal(t, tc.want, rec.Age(tc.at, tc.pttl), "%+v", tc)
	}
}

// TestParseVersion: a record without the version field (a client older
// than it) still parses, with Version unknown; a reader that predates the
// field ignores it.
func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		data, version, library string
	}{
		{`{"id":"a","library":"v0.0.1","go":"go1.26.0","holds":[]}`, "", "v0.0.1"},
		{`{"id":"a","library":"(devel)","version":"0.1.0","go":"go1.26.0","holds":[]}`, "0.1.0", "(devel)"},
	} {
		rec, err := registry.Parse([]byte(tc.data))
		require.NoError(t, err, tc.data)
		require.Equal(t, "a", rec.ID, tc.data)
		require.Equal(t, tc.version, rec.Version, tc.data)
		require.Equal(t, tc.library, rec.Library, tc.data)
		var older struct {
			ID      string `json:"id"`
			Library string `json:"library"`
		}
		require.NoError(t, json.Unmarshal([]byte(tc.data), &older), tc.data)
		require.Equal(t, tc.library, older.Library, tc.data)
	}
}

func TestLibraryVersion(t *testing.T) {
	require.Equal(t, "(devel)", registry.LibraryVersion())
	require.True(t, registry.IsKey(registry.Key("x")))
	require.False(t, registry.IsKey("redisson_lock__channel:{x}"))
}

// TestGone: a client counts as gone once its record has not been written
// for a period plus a grace of another period (at least MinGrace); a
// record of an older client, without period_ms, had a TTL of 4 periods.
func TestGone(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rec        registry.Record
		pttl       time.Duration
		gone       bool
		silent     time.Duration
		goneAfter  time.Duration
		wantPeriod time.Duration
	}{
		{"just written", registry.Record{TTLms: 900_000, PeriodMs: 5000}, 900 * time.Second, false, 0, 10 * time.Second, 5 * time.Second},
		{"one period late", registry.Record{TTLms: 900_000, PeriodMs: 5000}, 891 * time.Second, false, 9 * time.Second, 10 * time.Second, 5 * time.Second},
		{"two periods late", registry.Record{TTLms: 900_000, PeriodMs: 5000}, 889 * time.Second, true, 11 * time.Second, 10 * time.Second, 5 * time.Second},
		{"short period, grace floor", registry.Record{TTLms: 900_000, PeriodMs: 1000}, 897 * time.Second, false, 3 * time.Second, 4 * time.Second, time.Second},
		{"short period, past grace", registry.Record{TTLms: 900_000, PeriodMs: 1000}, 895 * time.Second, true, 5 * time.Second, 4 * time.Second, time.Second},
		{"older writer", registry.Record{TTLms: 40_000}, 15 * time.Second, true, 25 * time.Second, 20 * time.Second, 10 * time.Second},
		{"PTTL unknown", registry.Record{TTLms: 900_000, PeriodMs: 1000}, -1, false, 0, 4 * time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gone, silent := tc.rec.Gone(tc.pttl)
			require.Equal(t, tc.gone, gone)
			require.Equal(t, tc.silent, silent)
			require.Equal(t, tc.goneAfter, tc.rec.GoneAfter())
			require.Equal(t, tc.wantPeriod, tc.rec.Period())
		})
	}
}

// TestWaitersAndPeriod: the record carries the refresh period and the
// waiters by channel; an older reader's decoding ignores both.
func TestWaitersAndPeriod(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	src := newHolds()
	var mu sync.Mutex
	waiters := map[string]int{"redisson_lock__channel:{a}": 3}
	r := registry.Start(registry.Config{Redis: rdb, ID: "id-w", Held: src.Held, Changed: src.changed,
		Waiters: func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			return maps.Clone(waiters)
		},
		Period: 100 * time.Millisecond, TTL: time.Hour, Timeout: time.Second})
	defer r.Close()
	var rec *registry.Record
	redistest.Eventually(t, 5*time.Second, "the record with its waiters", func() bool {
		rec = get(t, rdb, "id-w")
		return rec != nil && rec.Waiters["redisson_lock__channel:{a}"] == 3
	})
	require.Equal(t, int64(100), rec.PeriodMs)
	require.Equal(t, int64(time.Hour/time.Millisecond), rec.TTLms)
	mu.Lock()
	waiters = nil
	mu.Unlock()
	redistest.Eventually(t, 5*time.Second, "no waiters after the next refresh", func() bool {
		rec = get(t, rdb, "id-w")
		return rec != nil && rec.Waiters == nil
	})
	data, err := rdb.Get(context.Background(), registry.Key("id-w")).Bytes()
	require.NoError(t, err)
	require.NotContains(t, string(data), `"waiters"`, "omitted when none wait")
	var older struct {
		ID        string `json:"id"`
		WrittenMs int64  `json:"written_ms"`
		TTLms     int64  `json:"ttl_ms"`
	}
	require.NoError(t, json.Unmarshal(data, &older))
	require.Equal(t, "id-w", older.ID)
	require.Equal(t, rec.WrittenMs, older.WrittenMs)
}

// TestWaitersCapped: past MaxWaiters channels, those with the most waiters
// are kept.
func TestWaitersCapped(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	src := newHolds()
	w := map[string]int{"busy": 50}
	for i := range registry.MaxWaiters + 10 {
		w[fmt.Sprintf("ch%05d", i)] = 1
	}
	r := registry.Start(registry.Config{Redis: rdb, ID: "id-c", Held: src.Held, Changed: src.changed,
		Waiters: func() map[string]int { return w }, Period: time.Hour, TTL: time.Hour, Timeout: time.Second})
	defer r.Close()
	rec := r.Snapshot()
	require.Len(t, rec.Waiters, registry.MaxWaiters)
	require.Equal(t, 50, rec.Waiters["busy"])
}

// TestWaitersChangedWrites: a change of the waiters rewrites the record
// (coalesced like hold changes), not only the next refresh: waiters piling
// up behind a holder that does not change show at once.
func TestWaitersChangedWrites(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	src := newHolds()
	var mu sync.Mutex
	waiters := map[string]int{}
	changed := make(chan struct{}, 1)
	r := registry.Start(registry.Config{Redis: rdb, ID: "id-wc", Held: src.Held, Changed: src.changed,
		Waiters: func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			return maps.Clone(waiters)
		},
		WaitersChanged: changed,
		Period:         time.Hour, TTL: time.Hour, Timeout: time.Second})
	defer r.Close()
	redistest.Eventually(t, 5*time.Second, "the first record", func() bool { return get(t, rdb, "id-wc") != nil })
	for n := 1; n <= 3; n++ {
		mu.Lock()
		waiters["redisson_lock__channel:{a}"] = n
		mu.Unlock()
		changed <- struct{}{}
		redistest.Eventually(t, 5*time.Second, fmt.Sprintf("%d waiter(s) in the record with no refresh due", n), func() bool {
			rec := get(t, rdb, "id-wc")
			return rec != nil && rec.Waiters["redisson_lock__channel:{a}"] == n
		})
	}
}
