package metrics

import (
	"sort"

	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// DefaultTop is how many of the oldest holds get a series of their own
// (redisson_hold_age_seconds) unless told otherwise.
const DefaultTop = 20

// Record states of a holder's client, the "record" label of
// redisson_client_holds.
const (
	recordLive = "live"
	recordGone = "gone"
	recordNone = "none"
)

// heldName is the oldest hold of one object whose start is known.
type heldName struct {
	name, kind string
	ageMs      int64
}

// clientKey identifies a holder's client as its record (or its absence)
// gives it.
type clientKey struct {
	id, program, host, record string
}

// holdStats is what the hold-age and holder families are made of.
type holdStats struct {
	oldest  map[string]int64 // kind -> oldest known hold age (ms)
	unknown map[string]int   // kind -> holds of unknown age
	gone    map[string]int   // kind -> holds whose client is gone
	names   []heldName
	clients map[clientKey]int
}

// collectHolds goes once over every holder of every object. A hold's age
// is what its client's record says (when the record lists the hold); a
// hold no record lists (a Java client's, one with registration off, a
// semaphore's permits) has no age here: it counts in
// redisson_holds_unknown_age instead, because watching it from outside
// cannot tell one long hold from the same owner taking the lock again
// between two scrapes, and a guessed age would page someone for a busy lock.
func collectHolds(objs []ls.Object) *holdStats {
	h := &holdStats{oldest: map[string]int64{}, unknown: map[string]int{}, gone: map[string]int{}, clients: map[clientKey]int{}}
	for _, o := range objs {
		if len(o.Holders) == 0 {
			continue
		}
		oldest := int64(-1)
		// A kind with holders has these series, 0 when none counts.
		h.gone[o.Kind] += 0
		h.unknown[o.Kind] += 0
		for _, hd := range o.Holders {
			h.clients[holderClient(hd)]++
			if hd.Client != nil && hd.Client.Gone {
				h.gone[o.Kind]++
			}
			if hd.HeldForMs == nil {
				h.unknown[o.Kind]++
				continue
			}
			oldest = max(oldest, *hd.HeldForMs)
		}
		if oldest < 0 {
			continue
		}
		if cur, ok := h.oldest[o.Kind]; !ok || oldest > cur {
			h.oldest[o.Kind] = oldest
		}
		h.names = append(h.names, heldName{name: o.Name, kind: o.Kind, ageMs: oldest})
	}
	return h
}

// holderClient is the client of a hold: its record's identity, or for a
// holder without one the client id its hash field carries.
func holderClient(hd objinfo.Holder) clientKey {
	var k clientKey
	if hd.ClientID != nil {
		k.id = *hd.ClientID
	}
	c := hd.Client
	switch {
	case c == nil:
		k.record = recordNone
	case c.Gone:
		k.record = recordGone
	default:
		k.record = recordLive
	}
	if c != nil {
		k.program, k.host = c.Program, c.Host
	}
	return k
}

// top returns the n names of the oldest holds, oldest first (ties by
// name, so that a scrape's cut is stable).
func (h *holdStats) top(n int) []heldName {
	sort.Slice(h.names, func(i, j int) bool {
		a, b := h.names[i], h.names[j]
		if a.ageMs != b.ageMs {
			return a.ageMs > b.ageMs
		}
		return a.name < b.name
	})
	return h.names[:min(max(n, 0), len(h.names))]
}

// addHolds adds the hold-age and holder families of objs.
func (s *set) addHolds(objs []ls.Object, top int) {
	h := collectHolds(objs)
	for _, k := range sortedKeys(h.oldest) {
		s.add("redisson_oldest_hold_age_seconds", []string{"kind", k}, float64(h.oldest[k])/1000)
	}
	for _, k := range sortedKeys(h.unknown) {
		s.add("redisson_holds_unknown_age", []string{"kind", k}, float64(h.unknown[k]))
	}
	for _, k := range sortedKeys(h.gone) {
		s.add("redisson_gone_holders", []string{"kind", k}, float64(h.gone[k]))
	}
	for _, n := range h.top(top) {
		s.add("redisson_hold_age_seconds", []string{"name", n.name, "kind", n.kind}, float64(n.ageMs)/1000)
	}
	clients := make([]clientKey, 0, len(h.clients))
	for c := range h.clients {
		clients = append(clients, c)
	}
	sort.Slice(clients, func(i, j int) bool {
		a, b := clients[i], clients[j]
		if a.id != b.id {
			return a.id < b.id
		}
		if a.record != b.record {
			return a.record < b.record
		}
		if a.program != b.program {
			return a.program < b.program
		}
		return a.host < b.host
	})
	for _, c := range clients {
		s.add("redisson_client_holds", []string{"client_id", c.id, "program", c.program, "host", c.host, "record", c.record}, float64(h.clients[c]))
	}
	s.add("redisson_hold_age_top", nil, float64(max(top, 0)))
	s.add("redisson_held_objects_with_age", nil, float64(len(h.names)))
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
