package vectors

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A replay reproduces the records' wall-clock numbers only in buckets of
// the scenario's grid (testdata/README.md §4.6): a TTL or a "rel" score set
// at one step is observed at a later one as nominal − δ, where the nominal
// part (settles, sleeps, settle_ms) is a multiple of the grid and δ is the
// time the replay spent beyond it. The bucket is the recorded one while
// δ < G; the same δ decides whether a due entry was moved before or after
// a snapshot. The replay's own per-step work (markers, the message capture,
// the snapshot) adds to δ, and under -race on a loaded machine can push it
// past the grid. So a replay that differs from the record while its
// measured overhead could have shifted a bucket is replayed again from
// scratch; the comparison itself stays exact: a pass is an exact match.

// Attempts bounds the replays of one scenario (RetryOnOverhead).
const Attempts = 3

// OverheadBudget is the measured overhead from which a step's difference
// may be the replay's own slowness, for a scenario's grid (its
// ttl_grid_ms). A value set at a step's start shifts bucket only once δ
// reaches the grid. The budget stays below it by the 40 ms the Java
// recorder stayed under (§4.6), for a value set while a step settles (by a
// started call or the library's own task), whose recorded bucket carries
// the recorder's latency, and by a 10 ms margin for what the measurement
// cannot see (values truncated to the millisecond, the clock read an
// instant before the snapshot's own). For the 250 ms grid: 200 ms; for the
// 1000 ms grid of the watchdog scenarios: 950 ms.
func OverheadBudget(gridMS int64) time.Duration {
	return time.Duration(gridMS)*time.Millisecond - 50*time.Millisecond
}

// Clock measures a replay's overhead: the real time since the scenario
// began minus its nominal time so far, read just before a snapshot reads
// its own clock. Nominal time is what the record counts (settles, sleeps,
// settle_ms) plus the time the replay waited for the library (an await of a
// started call, a started call's subscription): that wait is scenario time
// on the library's side, so counting it as nominal keeps the estimate low
// and leaves a late result to fail rather than to be replayed. A call's own
// duration counts as overhead; for a call that waits by design (a tryLock
// with a wait that runs out) the estimate then errs high, which costs a
// genuine difference at most Attempts replays, never a pass.
type Clock struct {
	began   time.Time
	nominal time.Duration
}

// Start begins the scenario's time.
func (c *Clock) Start() { c.began, c.nominal = time.Now(), 0 }

// AddNominal counts d as scenario time.
func (c *Clock) AddNominal(d time.Duration) { c.nominal += d }

// Overhead returns the real time since Start beyond the nominal time.
func (c *Clock) Overhead() time.Duration { return time.Since(c.began) - c.nominal }

// Mismatch is the first field of a step that differs from the record.
type Mismatch struct {
	// Where names the step, e.g. "step 4 (T1 lock lock.lock())".
	Where string
	// Field is the compared field ("state", "messages", ...).
	Field     string
	Want, Got any
}

// reporter is the part of *testing.T the retry loop uses (a fake in its
// own tests).
type reporter interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	FailNow()
}

// verdict is what the retry loop does with one attempt's outcome.
type verdict int

const (
	pass  verdict = iota // the attempt matched the record
	fail                 // the difference is reported and the test ends
	retry                // the scenario is replayed from scratch
)

// decide judges attempt (1-based) of a scenario that ended with mm (nil:
// every step matched) at a measured overhead of over: a difference is the
// replay's possible doing only at or above budget, and only Attempts
// attempts are made.
func decide(mm *Mismatch, over, budget time.Duration, attempt int) verdict {
	switch {
	case mm == nil:
		return pass
	case over < budget || attempt >= Attempts:
		return fail
	}
	return retry
}

// RetryOnOverhead runs replay, one replay of scenario name (grid gridMS)
// from scratch, until it matches the record. replay returns the first
// difference and the overhead measured at its step (Clock), or nil. A
// difference fails the test at once with the usual diff unless that
// overhead reached OverheadBudget; then the scenario is replayed again, up
// to Attempts times, each retry logged, and the last difference fails the
// test.
func RetryOnOverhead(t *testing.T, name string, gridMS int64, replay func() (*Mismatch, time.Duration)) {
	t.Helper()
	retryOnOverhead(t, name, gridMS, replay)
}

func retryOnOverhead(t reporter, name string, gridMS int64, replay func() (*Mismatch, time.Duration)) {
	t.Helper()
	budget := OverheadBudget(gridMS)
	for attempt := 1; ; attempt++ {
		mm, over := replay()
		switch decide(mm, over, budget, attempt) {
		case pass:
			return
		case fail:
			msg := fmt.Sprintf("%s: %s", mm.Where, mm.Field)
			if over >= budget {
				msg += fmt.Sprintf(" (the replay's overhead at this step was %v, at or above the %v budget where a %d ms bucket may shift, in the last of %d attempts)",
					over.Round(time.Millisecond), budget, gridMS, Attempts)
			}
			require.Equal(t, mm.Want, mm.Got, msg)
			// Not reached for a difference of values; a Mismatch whose
			// values are equal is a caller's bug, and still a failure.
			t.Errorf("%s: reported as differing, but want and got are equal: %v", msg, mm.Want)
			t.FailNow()
		case retry:
			t.Logf("attempt %d of %s: %s: %s differs with the replay's overhead at %v (budget %v): replaying from scratch",
				attempt, name, mm.Where, mm.Field, over.Round(time.Millisecond), budget)
		}
	}
}
