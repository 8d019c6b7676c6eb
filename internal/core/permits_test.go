package core

import (
	"fmt"
	"reflect"
	"testing"
)

// TestPermitLedger: a plain semaphore's permits are counted down to zero
// (any client may release them), a permit-expirable semaphore's are
// listed by id; past MaxPermitIDs the oldest ids go.
func TestPermitLedger(t *testing.T) {
	type op struct {
		took bool
		name string
		n    int
		ids  []string
		id   string
	}
	for _, tc := range []struct {
		name string
		ops  []op
		want []PermitsHeld
	}{
		{"none", nil, []PermitsHeld{}},
		{"plain", []op{{took: true, name: "s", n: 3}, {name: "s", n: 1}}, []PermitsHeld{{Name: "s", Count: 2}}},
		{"plain released past zero", []op{{took: true, name: "s", n: 1}, {name: "s", n: 5}}, []PermitsHeld{}},
		{"release of another's permits", []op{{name: "s", n: 2}}, []PermitsHeld{}},
		{"expirable", []op{{took: true, name: "e", n: 2, ids: []string{"a1", "b2"}}, {name: "e", n: 1, id: "a1"}},
			[]PermitsHeld{{Name: "e", Count: 1, IDs: []string{"b2"}}}},
		{"unknown id", []op{{took: true, name: "e", n: 1, ids: []string{"a1"}}, {name: "e", n: 1, id: "zz"}},
			[]PermitsHeld{{Name: "e", Count: 1, IDs: []string{"a1"}}}},
		{"by name", []op{{took: true, name: "z", n: 1}, {took: true, name: "a", n: 2}}, []PermitsHeld{{Name: "a", Count: 2}, {Name: "z", Count: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l PermitLedger
			for _, o := range tc.ops {
				if o.took {
					l.Took(o.name, o.n, o.ids)
				} else {
					l.Gave(o.name, o.n, o.id)
				}
			}
			if got := l.Held(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	var l PermitLedger
	for i := range MaxPermitIDs + 5 {
		l.Took("e", 1, []string{fmt.Sprint(i)})
	}
	h := l.Held()
	if len(h) != 1 || h[0].Count != MaxPermitIDs || h[0].IDs[0] != "5" {
		t.Errorf("capped: count %d, first %q", h[0].Count, h[0].IDs[0])
	}
}
