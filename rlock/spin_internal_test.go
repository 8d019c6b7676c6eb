package rlock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBackOffPolicy: the sleeps of a waiter are Redisson's BackOffPolicy's
// for each BackOff.
func TestBackOffPolicy(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		b    BackOff
		// lo and hi bound each of the first sleeps; the exponential
		// ones add a jitter below the count of tries so far.
		lo, hi []time.Duration
		last   time.Duration // what it settles at
	}{
		{"default", BackOff{},
			[]time.Duration{1 * ms, 2 * ms, 4 * ms, 8 * ms}, []time.Duration{1 * ms, 2 * ms, 7 * ms, 17 * ms}, 128 * ms},
		{"exponential", BackOff{InitialDelay: 10 * ms, MaxDelay: 50 * ms, Multiplier: 3},
			[]time.Duration{10 * ms, 30 * ms, 50 * ms}, []time.Duration{10 * ms, 30 * ms, 50 * ms}, 50 * ms},
		{"constant default", BackOff{Constant: true}, []time.Duration{64 * ms, 64 * ms}, []time.Duration{64 * ms, 64 * ms}, 64 * ms},
		{"constant", BackOff{Constant: true, Delay: 5 * ms}, []time.Duration{5 * ms}, []time.Duration{5 * ms}, 5 * ms},
		{"constant below a ms", BackOff{Constant: true, Delay: time.Microsecond}, []time.Duration{ms}, []time.Duration{ms}, ms},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next := tc.b.policy()
			for i := range tc.lo {
				d := next()
				require.GreaterOrEqual(t, d, tc.lo[i], "sleep %d", i)
				require.LessOrEqual(t, d, tc.hi[i], "sleep %d", i)
			}
			var d time.Duration
			for range 40 {
				d = next()
			}
			require.Equal(t, tc.last, d)
		})
	}
}

// TestBackOffCheck: negative delays or a negative multiplier are refused;
// the zero value and positive values are not.
func TestBackOffCheck(t *testing.T) {
	require.NoError(t, BackOff{}.check())
	require.NoError(t, BackOff{Constant: true, Delay: time.Second}.check())
	for _, b := range []BackOff{{Delay: -1}, {InitialDelay: -1}, {MaxDelay: -1}, {Multiplier: -1}} {
		require.Error(t, b.check(), "%+v", b)
	}
}
