package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
)

// derivations are the ways Redisson derives keys and channels from a name.
var derivations = map[string]func(name string) string{
	"prefix": func(n string) string { return core.PrefixName("redisson_lock__channel", n) },
	"suffix": func(n string) string { return core.SuffixName(n, "timeout") },
	// The fair lock's per-waiter channel and the read lock's timeout keys
	// add an owner field after the derived name.
	"prefix+field": func(n string) string { return core.PrefixName("redisson_lock__channel", n) + ":5f1d:7" },
	"suffix+field": func(n string) string { return core.SuffixName(n, "5f1d:7") + ":rwlock_timeout:1" },
	// The latch's channel adds braces even to a name that has some.
	"latch": func(n string) string { return "redisson_countdownlatch__channel__{" + n + "}" },
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tagged bool // refused by prefix/suffix derivations
		latch  bool // refused by the latch's
	}{
		{"orders", false, false},
		{"a:b", false, false},
		{"héllo wörld", false, false},
		{"{tag}x", false, true},
		{"{app}:x", false, true},
		{"a{b}c", false, true},
		{"{a}{b}", false, true},
		{"x}y", true, true},
		{"}", true, true},
		{"}x{", true, true},
		{"{", true, false},
		{"x{", true, false},
		{"a{b", true, false},
		{"a{}b", true, true},
		{"{}", true, true},
		{"a{}{b}", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for d, derive := range derivations {
				want := tc.tagged
				if d == "latch" {
					want = tc.latch
				}
				derived := derive(tc.name)
				err := core.CheckName(tc.name, derived)
				if !want {
					require.NoError(t, err, d)
					require.Equal(t, core.Slot(tc.name), core.Slot(derived), d)
					continue
				}
				require.ErrorIs(t, err, core.ErrInvalidName, d)
				require.ErrorContains(t, err, derived, d)
				require.ErrorContains(t, err, "not in one slot and", d)
				require.NotEqual(t, core.Slot(tc.name), core.Slot(derived), "%s: a refused name must really split", d)
			}
		})
	}
	require.ErrorIs(t, core.CheckName(""), core.ErrInvalidName)
	require.ErrorContains(t, core.CheckName(""), "must not be empty")
	require.NoError(t, core.CheckName("x}y"), "nothing derived: nothing to split")
}

// TestCheckNameRule checks, for every name of up to five characters from
// "a{}:", the rule docs/interop.md states for names derived as Redisson's
// prefixName/suffixName do: a name is accepted when it has no braces or a
// non-empty hash tag, and an accepted name shares its slot with every
// derived key whatever follows it.
func TestCheckNameRule(t *testing.T) {
	names := []string{""}
	for range 5 {
		for _, n := range names {
			for _, c := range "a{}:" {
				names = append(names, n+string(c))
			}
		}
	}
	for _, n := range names[1:] {
		stated := !strings.ContainsAny(n, "{}") || core.HasHashTag(n)
		for d, derive := range derivations {
			if d == "latch" {
				continue
			}
			err := core.CheckName(n, derive(n))
			require.Equal(t, stated, err == nil, "%q %s: %v", n, d, err)
			if err == nil {
				for _, tail := range []string{"", ":1", ":ffee:12:write"} {
					require.Equal(t, core.Slot(n), core.Slot(derive(n)+tail), "%q %s%s", n, d, tail)
				}
			}
		}
	}
}
