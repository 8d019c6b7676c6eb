package vectors

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// zsetState is a step's "state" with one sorted set, key k, holding pairs.
func zsetState(k string, pairs ...[]any) map[string]any {
	members := make([]any, len(pairs))
	for i, p := range pairs {
		members[i] = p
	}
	return map[string]any{k: map[string]any{"type": "zset", "value": members, "pttl": -1}}
}

func rel(lo, hi int) map[string]any { return map[string]any{"rel": []any{lo, hi}} }

func pair(member any, score any) []any { return []any{member, score} }

// TestCompareUntiesSortedSets: the replay's comparison takes the members of
// a sorted set that share a recorded score as a multiset, and still checks
// the order of different scores, the members and their number.
func TestCompareUntiesSortedSets(t *testing.T) {
	b1, b2, b3 := rel(4750, 5000), rel(4500, 4750), rel(9750, 10000)
	grant := "<grant n=1>"
	for _, tc := range []struct {
		name      string
		want, got map[string]any
		equal     bool
	}{
		{"tie in one bucket, recorded order", zsetState("{pes}:timeout", pair("<P1>", b1), pair("<P2>", b1)),
			zsetState("{pes}:timeout", pair("<P1>", b1), pair("<P2>", b1)), true},
		{"tie in one bucket, other order", zsetState("{pes}:timeout", pair("<P1>", b1), pair("<P2>", b1)),
			zsetState("{pes}:timeout", pair("<P2>", b1), pair("<P1>", b1)), true},
		{"exact tie of integer scores, other order", zsetState("{pes}:timeout", pair("<P1>", 922337203685477), pair("<P2>", 922337203685477)),
			zsetState("{pes}:timeout", pair("<P2>", 922337203685477), pair("<P1>", 922337203685477)), true},
		{"tie between other buckets, other order",
			zsetState("z", pair("a", b2), pair("c", b1), pair("b", b1), pair("d", b3)),
			zsetState("z", pair("a", b2), pair("b", b1), pair("c", b1), pair("d", b3)), true},
		{"equal members in one bucket", zsetState("{rl}:permits", pair(grant, b1), pair(grant, b1)),
			zsetState("{rl}:permits", pair(grant, b1), pair(grant, b1)), true},
		{"different buckets out of order", zsetState("z", pair("<P1>", b2), pair("<P2>", b1)),
			zsetState("z", pair("<P2>", b1), pair("<P1>", b2)), false},
		{"members swapped across buckets", zsetState("z", pair("<P1>", b2), pair("<P2>", b1)),
			zsetState("z", pair("<P2>", b2), pair("<P1>", b1)), false},
		{"tie with a run out of order", zsetState("z", pair("a", b2), pair("b", b1), pair("c", b1)),
			zsetState("z", pair("b", b1), pair("c", b1), pair("a", b2)), false},
		{"member missing from a tie", zsetState("{pes}:timeout", pair("<P1>", b1), pair("<P2>", b1)),
			zsetState("{pes}:timeout", pair("<P2>", b1)), false},
		{"member extra in a tie", zsetState("{rl}:permits", pair(grant, b1), pair(grant, b1)),
			zsetState("{rl}:permits", pair(grant, b1), pair(grant, b1), pair(grant, b1)), false},
		{"other member in a tie", zsetState("{pes}:timeout", pair("<P1>", b1), pair("<P2>", b1)),
			zsetState("{pes}:timeout", pair("<P1>", b1), pair("<P3>", b1)), false},
		{"other bucket of a tie", zsetState("{pes}:timeout", pair("<P1>", b1), pair("<P2>", b1)),
			zsetState("{pes}:timeout", pair("<P2>", b2), pair("<P1>", b2)), false},
		{"list order is kept",
			map[string]any{"q": map[string]any{"type": "list", "value": []any{"a", "b"}, "pttl": -1}},
			map[string]any{"q": map[string]any{"type": "list", "value": []any{"b", "a"}, "pttl": -1}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &replay[struct{}, struct{}]{}
			st := Step{Step: 4, Kind: "call"}
			mm := r.compare(st, map[string]any{"state": tc.want}, map[string]any{"state": tc.got})
			if tc.equal {
				require.Nil(t, mm)
				return
			}
			require.NotNil(t, mm)
			require.Equal(t, "state", mm.Field)
			require.NotEqual(t, mm.Want, mm.Got)
		})
	}
}

// TestUntiedLeavesItsArgument: the records are shared by every attempt, so
// Untied reorders a copy.
func TestUntiedLeavesItsArgument(t *testing.T) {
	b := rel(0, 250)
	v := JSON(zsetState("z", pair("b", b), pair("a", b)))
	before := JSON(v)
	u := Untied(v)
	require.Equal(t, before, v)
	require.Equal(t, JSON(zsetState("z", pair("a", b), pair("b", b))), u)
}

// TestUntiedOnlyStateEntries: a list of pairs outside a zset entry, and a
// zset entry whose value is not pairs, keep their order.
func TestUntiedOnlyStateEntries(t *testing.T) {
	b := rel(0, 250)
	pairs := JSON([]any{pair("b", b), pair("a", b)})
	require.Equal(t, pairs, Untied(pairs))
	odd := JSON(map[string]any{"type": "zset", "value": []any{"b", "a"}})
	require.Equal(t, odd, Untied(odd))
}
