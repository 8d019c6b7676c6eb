package vectors

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
)

func TestDecide(t *testing.T) {
	budget := OverheadBudget(250)
	require.Equal(t, 200*time.Millisecond, budget)
	require.Equal(t, 950*time.Millisecond, OverheadBudget(1000))
	mm := &Mismatch{Where: "step 3", Field: "state"}
	for _, tc := range []struct {
		name    string
		mm      *Mismatch
		over    time.Duration
		attempt int
		want    verdict
	}{
		{"match", nil, 0, 1, pass},
		{"match over budget", nil, time.Second, 1, pass},
		{"match on the last attempt", nil, time.Second, Attempts, pass},
		{"difference under budget", mm, 10 * time.Millisecond, 1, fail},
		{"difference just under budget", mm, budget - time.Millisecond, 1, fail},
		{"difference under budget on a later attempt", mm, 0, 2, fail},
		{"difference at budget", mm, budget, 1, retry},
		{"difference over budget", mm, time.Second, Attempts - 1, retry},
		{"difference over budget on the last attempt", mm, time.Second, Attempts, fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, decide(tc.mm, tc.over, budget, tc.attempt))
		})
	}
}

// fakeT records what the retry loop reports; FailNow ends the loop as
// testing's does, by leaving the function (run recovers it).
type fakeT struct {
	mu     sync.Mutex
	logs   []string
	errs   []string
	failed bool
}

type failedNow struct{}

func (f *fakeT) Helper() {}

func (f *fakeT) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeT) FailNow() {
	f.mu.Lock()
	f.failed = true
	f.mu.Unlock()
	panic(failedNow{})
}

// run runs the retry loop of fn on f until it returns or fails.
func (f *fakeT) run(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(failedNow); !ok {
				panic(r)
			}
		}
	}()
	fn()
}

// TestRetryOnOverheadLoop drives the loop with scripted attempts.
func TestRetryOnOverheadLoop(t *testing.T) {
	shift := &Mismatch{Where: "step 4 (T1 lock lock.lock())", Field: "state", Want: []any{1750.0, 2000.0}, Got: []any{1500.0, 1750.0}}
	type result struct {
		mm   *Mismatch
		over time.Duration
	}
	for _, tc := range []struct {
		name     string
		results  []result // per attempt; the loop must ask for no more
		failed   bool
		retries  int    // attempts logged as replayed
		inReport string // in the failure's report
	}{
		{name: "match", results: []result{{nil, 0}}},
		{name: "shift, then match", results: []result{{shift, 260 * time.Millisecond}, {nil, 0}}, retries: 1},
		{name: "two shifts, then match", results: []result{{shift, 300 * time.Millisecond}, {shift, 200 * time.Millisecond}, {nil, 0}}, retries: 2},
		{name: "difference under budget", results: []result{{shift, 40 * time.Millisecond}}, failed: true, inReport: "step 4 (T1 lock lock.lock()): state"},
		{name: "shift, then difference under budget", results: []result{{shift, 300 * time.Millisecond}, {shift, 10 * time.Millisecond}}, failed: true, retries: 1, inReport: "step 4"},
		{name: "over budget every time", results: []result{{shift, time.Second}, {shift, time.Second}, {shift, time.Second}}, failed: true, retries: 2, inReport: "in the last of 3 attempts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeT{}
			calls := 0
			f.run(func() {
				retryOnOverhead(f, "scenario.x", 250, func() (*Mismatch, time.Duration) {
					require.Less(t, calls, len(tc.results), "an attempt too many")
					r := tc.results[calls]
					calls++
					return r.mm, r.over
				})
			})
			require.Equal(t, len(tc.results), calls)
			require.Equal(t, tc.failed, f.failed)
			require.Len(t, f.logs, tc.retries)
			for i, l := range f.logs {
				require.Contains(t, l, fmt.Sprintf("attempt %d of scenario.x: step 4 (T1 lock lock.lock()): state differs", i+1))
			}
			if tc.failed {
				require.NotEmpty(t, f.errs)
				require.Contains(t, f.errs[0], tc.inReport)
				require.Contains(t, f.errs[0], "1500", "the report carries the diff")
			}
		})
	}
}

// fakeClient is a client of the synthetic scenarios, which only send raw
// steps.
type fakeClient struct {
	mu     sync.Mutex
	closed bool
}

func (c *fakeClient) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// ttlScenario sets a key with a 2 s TTL, sleeps 500 ms and expects its
// value and TTL buckets on grid; wantValue is the value the record holds.
func ttlScenario(grid int64, wantValue string) Scenario {
	state := func(lo, hi float64) map[string]any {
		return map[string]any{"k": map[string]any{"type": "string", "value": wantValue, "pttl": []any{lo, hi}}}
	}
	g := float64(grid)
	return Scenario{
		Name:      "synthetic.ttl",
		TTLGridMS: grid,
		Actors:    map[string]string{"T1": "C1", "T2": "C1", "T3": "C2"},
		Steps: []Step{
			{Step: 1, Kind: "raw", Raw: map[string]any{
				"command": []any{"SET", "k", "v", "PX", 2000.0}, "reply": "OK",
				"messages": []any{}, "state": state(2000-g, 2000),
			}},
			{Step: 2, Kind: "sleep", MS: 500, Raw: map[string]any{
				"messages": []any{}, "state": state(1500-g, 1500),
			}},
		},
	}
}

// syntheticReplay replays sc through the retry loop on f, spending
// stall(attempt, step) before a step's snapshot, and returns the number of
// attempts made. It checks that every attempt starts with the clients of
// the one before closed, and leaves a stray key behind each attempt, which
// the next one's empty database must not show.
func syntheticReplay(t *testing.T, f *fakeT, sc Scenario, stall func(attempt, step int) time.Duration) int {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	var clients []*fakeClient
	attempts := 0
	newActions := func(at testing.TB) Actions[*fakeClient, struct{}] {
		for _, c := range clients {
			require.True(t, c.isClosed(), "a client of the previous attempt is still open")
		}
		return Actions[*fakeClient, struct{}]{
			NewClient: func(at testing.TB, _ *redistest.Server, _ Scenario) (*fakeClient, string) {
				c := &fakeClient{}
				at.Cleanup(func() {
					c.mu.Lock()
					defer c.mu.Unlock()
					c.closed = true
				})
				clients = append(clients, c)
				return c, uuid.NewString()
			},
			ErrorClass: func(err error) string { return err.Error() },
		}
	}
	f.run(func() {
		retryOnOverhead(f, sc.Name, sc.TTLGridMS, func() (*Mismatch, time.Duration) {
			attempts++
			attempt := attempts
			defer func() { require.NoError(t, raw.Set(t.Context(), "stray", "x", 0).Err()) }()
			return replayOnce(t, srv, raw, sc, newActions, func(step int) time.Duration { return stall(attempt, step) })
		})
	})
	require.Len(t, clients, 2*attempts, "two new clients per attempt")
	for _, c := range clients {
		require.True(t, c.isClosed(), "a client still open after its attempt")
	}
	return attempts
}

// TestReplayRerunsShiftedBucket: an attempt whose TTL bucket shifts
// because the replay was slow (300 ms spent before step 2's snapshot, as a
// loaded machine would) is replayed from scratch, and the next attempt
// matches the record exactly.
func TestReplayRerunsShiftedBucket(t *testing.T) {
	f := &fakeT{}
	attempts := syntheticReplay(t, f, ttlScenario(250, "v"), func(attempt, step int) time.Duration {
		if attempt == 1 && step == 2 {
			return 300 * time.Millisecond
		}
		return 0
	})
	require.False(t, f.failed, "%v", f.errs)
	require.GreaterOrEqual(t, attempts, 2)
	require.NotEmpty(t, f.logs)
	require.Contains(t, f.logs[0], "attempt 1 of synthetic.ttl: step 2 (  ): state differs with the replay's overhead at")
	for _, l := range f.logs {
		t.Log(l)
	}
}

// TestReplayFailsAtOnceUnderBudget: a difference the replay's overhead
// cannot explain (a value other than the record's, at a step whose
// overhead is far under the 950 ms budget of the 1000 ms grid) fails the
// first attempt with the diff, and nothing is replayed.
func TestReplayFailsAtOnceUnderBudget(t *testing.T) {
	f := &fakeT{}
	attempts := syntheticReplay(t, f, ttlScenario(1000, "w"), func(int, int) time.Duration { return 0 })
	require.Equal(t, 1, attempts)
	require.True(t, f.failed)
	require.Empty(t, f.logs)
	require.NotEmpty(t, f.errs)
	require.Contains(t, f.errs[0], "step 1 (  ): state")
	require.Contains(t, f.errs[0], `"value":"w"`, "the report carries the diff")
	require.False(t, strings.Contains(f.errs[0], "budget"), "under budget, the report says nothing of overhead")
}

// TestReplayFailsAfterAttempts: a step slow in every attempt is replayed
// Attempts times, then its difference fails the test.
func TestReplayFailsAfterAttempts(t *testing.T) {
	f := &fakeT{}
	attempts := syntheticReplay(t, f, ttlScenario(250, "v"), func(_, step int) time.Duration {
		if step == 2 {
			return 300 * time.Millisecond
		}
		return 0
	})
	require.Equal(t, Attempts, attempts)
	require.True(t, f.failed)
	require.Len(t, f.logs, Attempts-1)
	require.Contains(t, f.errs[0], "in the last of 3 attempts")
}
