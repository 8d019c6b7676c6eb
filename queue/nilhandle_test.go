package queue_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/queue"
)

// TestNilHandles calls every exported method of a nil handle of each queue
// type, found by reflection so that a new method is covered too, the ones
// a type gets from the type it embeds included: none may panic; every error
// it returns, or its iterator yields (once), wraps core.ErrNilHandle and
// names the handle's kind; every other result is the zero value.
func TestNilHandles(t *testing.T) {
	handles := []struct {
		kind string
		v    any
	}{
		{"queue", (*queue.Queue[string])(nil)},
		{"deque", (*queue.Deque[string])(nil)},
		{"blocking queue", (*queue.BlockingQueue[string])(nil)},
		{"blocking deque", (*queue.BlockingDeque[string])(nil)},
		{"delayed queue", (*queue.DelayedQueue[string])(nil)},
	}
	for _, h := range handles {
		v := reflect.ValueOf(h.v)
		for i := range v.NumMethod() {
			t.Run(h.kind+"/"+v.Type().Method(i).Name, func(t *testing.T) {
				var out []reflect.Value
				require.NotPanics(t, func() { out = v.Method(i).Call(zeroArgs(v.Method(i).Type())) })
				for _, o := range out {
					switch {
					case o.Type() == reflect.TypeFor[error]():
						requireNilHandle(t, h.kind, o.Interface())
					case o.Kind() == reflect.Func && o.Type().NumIn() == 1 && !o.IsNil():
						requireNilSeq(t, h.kind, o)
					default:
						require.True(t, o.IsZero(), "a nil handle returns the zero %s, not %v", o.Type(), o)
					}
				}
			})
		}
	}
}

// zeroArgs returns the arguments of a call of a method of type ft: a live
// context where it takes one (the nil handle is what is tested), zero
// values otherwise, none for a variadic parameter.
func zeroArgs(ft reflect.Type) []reflect.Value {
	n := ft.NumIn()
	if ft.IsVariadic() {
		n--
	}
	args := make([]reflect.Value, n)
	for i := range n {
		if ft.In(i) == reflect.TypeFor[context.Context]() {
			args[i] = reflect.ValueOf(context.Background())
			continue
		}
		args[i] = reflect.Zero(ft.In(i))
	}
	return args
}

// requireNilHandle checks that err is the error of a call on a nil handle
// of kind.
func requireNilHandle(t *testing.T, kind string, err any) {
	t.Helper()
	e, _ := err.(error)
	require.ErrorIs(t, e, core.ErrNilHandle)
	var oe *core.ObjectError
	require.True(t, errors.As(e, &oe), "%v is not an ObjectError", e)
	require.Equal(t, kind, oe.Kind)
}

// requireNilSeq runs an iter.Seq2[T, error] a nil handle returned: it must
// yield once, a zero element and the nil handle's error.
func requireNilSeq(t *testing.T, kind string, seq reflect.Value) {
	t.Helper()
	yieldType := seq.Type().In(0)
	require.Equal(t, 2, yieldType.NumIn(), "an iterator of elements and errors")
	var got []reflect.Value
	yield := reflect.MakeFunc(yieldType, func(args []reflect.Value) []reflect.Value {
		got = append(got, args...)
		return []reflect.Value{reflect.ValueOf(true)}
	})
	require.NotPanics(t, func() { seq.Call([]reflect.Value{yield}) })
	require.Len(t, got, 2, "the iterator yields once")
	require.True(t, got[0].IsZero())
	requireNilHandle(t, kind, got[1].Interface())
}
