package vectors

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// settledQuery runs query q, again until its answer is the record's when
// q is Settling (see Actions.Settling).
func (r *replay[C, H]) settledQuery(st Step, a *Actor[C, H], q string) any {
	v := r.query(st, a, q)
	name, _, _ := strings.Cut(q, "(")
	if !r.acts.Settling[name] {
		return v
	}
	want := st.Raw
	for _, d := range r.deviations {
		if d.Step == st.Step {
			want = r.deviate(want, st, d)
		}
	}
	res, _ := want["result"].(map[string]any)
	w := JSON(res[q])
	for deadline := time.Now().Add(10 * time.Second); !reflect.DeepEqual(w, JSON(v)) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		v = r.query(st, a, q)
	}
	return v
}

func (r *replay[C, H]) query(st Step, a *Actor[C, H], q string) any {
	name, argName, hasArg := strings.Cut(q, "(")
	if vq := r.acts.ValueQueries[name]; vq != nil && hasArg {
		v, err := vq(r.ctx, a, st.Object, strings.TrimSuffix(argName, ")"))
		if err != nil {
			return queryError(err)
		}
		return v
	}
	var arg *Actor[C, H]
	if hasArg {
		arg = r.actors[strings.TrimSuffix(argName, ")")]
		if arg == nil {
			r.t.Fatalf("step %d: query %q names no actor", st.Step, q)
		}
	}
	fn := r.acts.Queries[name]
	if fn == nil {
		r.t.Fatalf("step %d: no action for query %q", st.Step, name)
	}
	v, err := fn(r.ctx, a, st.Object, arg)
	if err != nil {
		return queryError(err)
	}
	if d, ok := v.(time.Duration); ok {
		return r.n.TTL(d)
	}
	return v
}

// queryError records a query's error as its result: no record holds one,
// so it differs from the record, and the difference says what failed. A
// difference rather than a failure on the spot, because a value that
// expired early (the replay's overhead) can make a query fail.
func queryError(err error) string { return fmt.Sprintf("query failed: %v", err) }
