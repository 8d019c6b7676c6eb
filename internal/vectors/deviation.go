package vectors

import (
	"maps"
	"slices"
)

// Deviation is a decided difference between this library and the Java
// record at one step of one scenario. It is applied to that step only; a
// deviation that matches nothing fails the replay, so none can go stale.
type Deviation struct {
	Scenario string
	Step     int
	// Why says what was decided and where it is documented.
	Why string
	// Unpublished are messages ([channel, payload], as recorded) that Java
	// publishes at this step and this library deliberately does not: each
	// is removed once from the step's expected messages.
	Unpublished [][2]string
	// State replaces the record's expected state of these keys at this
	// step; a nil value expects the key to be absent.
	State map[string]any
	// Fields replaces these fields of the step's record ("ok", "error",
	// "commands" in AllCommands' form, ...); a nil value expects none.
	Fields map[string]any
	// Commands, when set, replaces the step's expected "commands".
	Commands []any
}

// deviate returns record, the record of st as the table expects it so
// far, with deviation d applied.
func (r *replay[C, H]) deviate(record map[string]any, st Step, d Deviation) map[string]any {
	want := maps.Clone(record)
	msgs, _ := record["messages"].([]any)
	msgs = slices.Clone(msgs)
	for _, drop := range d.Unpublished {
		i := slices.IndexFunc(msgs, func(m any) bool {
			pair, ok := m.([]any)
			return ok && len(pair) == 2 && pair[0] == drop[0] && pair[1] == drop[1]
		})
		if i < 0 {
			r.t.Fatalf("deviation at %s step %d: the record publishes no %v (%s)", d.Scenario, d.Step, drop, d.Why)
		}
		msgs = slices.Delete(msgs, i, i+1)
	}
	want["messages"] = msgs
	if d.Commands != nil {
		want["commands"] = d.Commands
	}
	for k, v := range d.Fields {
		if v == nil {
			delete(want, k)
		} else {
			want[k] = v
		}
	}
	if d.State != nil {
		recorded, _ := record["state"].(map[string]any)
		state := make(map[string]any, len(recorded))
		for k, v := range recorded {
			state[k] = v
		}
		for k, v := range d.State {
			if v == nil {
				delete(state, k)
			} else {
				state[k] = v
			}
		}
		want["state"] = state
	}
	return want
}
