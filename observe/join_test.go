package observe_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/observe"
)

// callLog records "<observer>:<field>" for every call of a logging
// observer's funcs.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *callLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.calls
	l.calls = nil
	return c
}

var ctxType = reflect.TypeFor[context.Context]()

// loggingObserver sets every func field of an Observer, found by
// reflection so that a field added later is covered too: each logs its
// call; a start returns its ctx, Register an unregister that logs too.
func loggingObserver(id string, l *callLog) *observe.Observer {
	o := &observe.Observer{}
	v := reflect.ValueOf(o).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Type.Kind() != reflect.Func {
			continue
		}
		v.Field(i).Set(reflect.MakeFunc(f.Type, func(args []reflect.Value) []reflect.Value {
			l.add(id + ":" + f.Name)
			if f.Type.NumOut() == 0 {
				return nil
			}
			if f.Type.Out(0) == ctxType {
				return []reflect.Value{args[0]}
			}
			return []reflect.Value{reflect.ValueOf(func() { l.add(id + ":unregister") })}
		}))
	}
	return o
}

// call calls the func field name of o with zero events and a background
// context, and calls what a func it returns (Register's unregister).
func call(o *observe.Observer, name string) {
	f := reflect.ValueOf(o).Elem().FieldByName(name)
	args := make([]reflect.Value, f.Type().NumIn())
	for i := range args {
		switch in := f.Type().In(i); {
		case in == ctxType:
			args[i] = reflect.ValueOf(context.Background())
		case in.Kind() == reflect.Func:
			args[i] = reflect.ValueOf(func() observe.Stats { return observe.Stats{} })
		default:
			args[i] = reflect.Zero(in)
		}
	}
	out := f.Call(args)
	if len(out) == 1 && out[0].Kind() == reflect.Func && !out[0].IsNil() {
		out[0].Call(nil)
	}
}

// TestJoinCallsEveryFieldInOrder: each func of the joined observer calls
// the observers' funcs in the order given, skipping nil observers.
func TestJoinCallsEveryFieldInOrder(t *testing.T) {
	l := &callLog{}
	j := observe.Join(loggingObserver("a", l), nil, loggingObserver("b", l))
	fields := reflect.TypeFor[observe.Observer]()
	for i := range fields.NumField() {
		name := fields.Field(i).Name
		t.Run(name, func(t *testing.T) {
			require.False(t, reflect.ValueOf(j).Elem().Field(i).IsNil(), "joined")
			call(j, name)
			want := []string{"a:" + name, "b:" + name}
			if name == "Register" {
				want = append(want, "a:unregister", "b:unregister")
			}
			require.Equal(t, want, l.take())
		})
	}
}

// TestJoinNilsAndOne: no observer is no observer; one is itself.
func TestJoinNilsAndOne(t *testing.T) {
	o := &observe.Observer{}
	for _, tc := range []struct {
		name string
		obs  []*observe.Observer
		want *observe.Observer
	}{
		{"none", nil, nil},
		{"nils", []*observe.Observer{nil, nil}, nil},
		{"one among nils", []*observe.Observer{nil, o, nil}, o},
	} {
		require.Same(t, tc.want, observe.Join(tc.obs...), tc.name)
	}
}

// TestJoinSetsOnlyWhatOneSets: a field no observer sets stays nil, so the
// client keeps skipping that event at the cost of a nil check.
func TestJoinSetsOnlyWhatOneSets(t *testing.T) {
	var got []string
	j := observe.Join(
		&observe.Observer{Renewal: func(observe.Renewal) { got = append(got, "a") }},
		&observe.Observer{Permits: func(context.Context, observe.Permits) { got = append(got, "b") }},
	)
	require.NotNil(t, j.Renewal)
	require.NotNil(t, j.Permits)
	require.Nil(t, j.AcquireStart)
	require.Nil(t, j.Register)
	j.Renewal(observe.Renewal{})
	j.Permits(context.Background(), observe.Permits{})
	require.Equal(t, []string{"a", "b"}, got)
}

type spanKey struct{}

// tracer keeps a "span" under one context key, as OpenTelemetry does, and
// records which span each event of its own sees.
func tracer(name string, seen *[]string) *observe.Observer {
	span := func(ctx context.Context) string { s, _ := ctx.Value(spanKey{}).(string); return s }
	return &observe.Observer{
		AcquireStart: func(ctx context.Context, e observe.AcquireStart) context.Context {
			*seen = append(*seen, name+" starts under "+span(ctx))
			return context.WithValue(ctx, spanKey{}, name+"/"+e.Name)
		},
		AcquireTry: func(ctx context.Context, _ observe.AcquireTry) {
			*seen = append(*seen, name+" try in "+span(ctx))
		},
		AcquireEnd: func(ctx context.Context, _ observe.AcquireEnd) {
			*seen = append(*seen, name+" ends "+span(ctx))
		},
	}
}

// TestJoinGivesEachObserverItsContext: two observers that keep a value
// under the same context key each get their own back in the call's later
// events; the call runs under the last one's, derived from the first's.
func TestJoinGivesEachObserverItsContext(t *testing.T) {
	var seen []string
	for _, tc := range []struct {
		name string
		j    *observe.Observer
	}{
		{"flat", observe.Join(tracer("a", &seen), tracer("b", &seen))},
		{"join of joins", observe.Join(observe.Join(tracer("a", &seen)), observe.Join(tracer("b", &seen), nil))},
	} {
		seen = nil
		ctx := tc.j.AcquireStart(context.WithValue(context.Background(), spanKey{}, "root"), observe.AcquireStart{Name: "x"})
		require.Equal(t, "b/x", ctx.Value(spanKey{}), tc.name)
		tc.j.AcquireTry(ctx, observe.AcquireTry{})
		tc.j.AcquireEnd(ctx, observe.AcquireEnd{})
		require.Equal(t, []string{
			"a starts under root", "b starts under a/x",
			"a try in a/x", "b try in b/x",
			"a ends a/x", "b ends b/x",
		}, seen, tc.name)
	}
	seen = nil
	j := observe.Join(tracer("a", &seen), tracer("b", &seen))
	j.AcquireEnd(context.WithValue(context.Background(), spanKey{}, "other"), observe.AcquireEnd{})
	require.Equal(t, []string{"a ends other", "b ends other"}, seen, "a context no joined start made is handed on as it is")
}

// TestJoinRegisterWithoutUnregister: observers whose Register returns no
// unregister give none.
func TestJoinRegisterWithoutUnregister(t *testing.T) {
	var n int
	reg := func(func() observe.Stats) func() { n++; return nil }
	j := observe.Join(&observe.Observer{Register: reg}, &observe.Observer{Register: reg})
	require.Nil(t, j.Register(func() observe.Stats { return observe.Stats{} }))
	require.Equal(t, 2, n)
}
