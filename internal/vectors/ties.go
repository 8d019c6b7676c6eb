package vectors

import (
	"encoding/json"
	"slices"
	"strings"
)

// A sorted set's members are recorded in ascending score order, but a
// wall-clock score is recorded only as its bucket (testdata/README.md
// §4.6), and exact ties are ordered by normalized member in the record,
// by raw bytes in Redis. Two members that share a recorded score were
// ordered by Java's timing (two permits taken within one bucket) or by
// random bytes, which a replay cannot reproduce. So a comparison takes the
// members of one recorded score as a multiset: Untied puts them in one
// fixed order on both sides. Order across different scores and the number
// of members are still compared.

// Untied returns a copy of v, a record or a part of one as JSON values
// (see JSON), with the members of every sorted set of a "state" entry
// ({"type": "zset", "value": [[member, score], ...]}) that share a
// recorded score in one fixed order: by their JSON text. Maps and slices
// are copied, so v is not modified; everything else is kept as it is.
func Untied(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Untied(e)
		}
		if members, ok := out["value"].([]any); ok && out["type"] == "zset" {
			out["value"] = untieMembers(members)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Untied(e)
		}
		return out
	}
	return v
}

// untieMembers returns a sorted set's [member, score] pairs with every run
// of equal scores sorted by the member's JSON text; a list that is not
// such pairs is returned as it is.
func untieMembers(members []any) []any {
	type entry struct {
		pair          any
		member, score string
	}
	entries := make([]entry, len(members))
	for i, m := range members {
		pair, ok := m.([]any)
		if !ok || len(pair) != 2 {
			return members
		}
		entries[i] = entry{m, jsonText(pair[0]), jsonText(pair[1])}
	}
	for start := 0; start < len(entries); {
		end := start + 1
		for end < len(entries) && entries[end].score == entries[start].score {
			end++
		}
		slices.SortStableFunc(entries[start:end], func(a, b entry) int { return strings.Compare(a.member, b.member) })
		start = end
	}
	out := make([]any, len(entries))
	for i, e := range entries {
		out[i] = e.pair
	}
	return out
}

// jsonText is v's JSON encoding (a map's keys sorted), a total order for
// values of a record.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
