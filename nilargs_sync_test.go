package redisson_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/collection"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/mapcache"
	"github.com/goredisson/redisson/queue"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/semaphore"
	"github.com/goredisson/redisson/value"
)

// TestNilArgumentsSyncObjects calls every exported method of the
// semaphores, latch, rate limiter, queues, collections and values with a
// nil context and zero arguments (one nil option too, where options are
// variadic), on a working handle and on a nil one: none may panic, and
// every method that returns an error returns one matching
// ErrInvalidArgument (ErrNotOwner for the release of nil Permits) before
// anything is sent or marked.
func TestNilArgumentsSyncObjects(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ok, err := c.Semaphore("nil-args").TrySetPermits(t.Context(), 2)
	require.NoError(t, err)
	require.True(t, ok)
	permits, ok, err := c.Semaphore("nil-args").TryAcquirePermits(t.Context(), 1)
	require.NoError(t, err)
	require.True(t, ok)
	delayed := redisson.NewDelayedQueue[string](c, "nil-args-dq", codec.String())
	t.Cleanup(delayed.Destroy)

	handles := []struct {
		name string
		v    any
		want error
	}{
		{"semaphore", c.Semaphore("nil-args"), redisson.ErrInvalidArgument},
		{"nil semaphore", (*semaphore.Semaphore)(nil), redisson.ErrInvalidArgument},
		{"expirable semaphore", c.PermitExpirableSemaphore("nil-args-pes"), redisson.ErrInvalidArgument},
		{"nil expirable semaphore", (*semaphore.ExpirableSemaphore)(nil), redisson.ErrInvalidArgument},
		{"permits", permits, redisson.ErrInvalidArgument},
		{"nil permits", (*semaphore.Permits)(nil), redisson.ErrNotOwner},
		{"latch", c.CountDownLatch("nil-args-latch"), redisson.ErrInvalidArgument},
		{"nil latch", (*latch.Latch)(nil), redisson.ErrInvalidArgument},
		{"rate limiter", c.RateLimiter("nil-args-rl"), redisson.ErrInvalidArgument},
		{"nil rate limiter", (*ratelimit.Limiter)(nil), redisson.ErrInvalidArgument},
		{"queue", redisson.NewQueue[string](c, "nil-args-q", codec.String()), redisson.ErrInvalidArgument},
		{"nil queue", (*queue.Queue[string])(nil), redisson.ErrInvalidArgument},
		{"queue of a nil client", redisson.NewQueue[string](nil, "nil-args-q", codec.String()), redisson.ErrInvalidArgument},
		{"deque", redisson.NewDeque[string](c, "nil-args-q", codec.String()), redisson.ErrInvalidArgument},
		{"nil deque", (*queue.Deque[string])(nil), redisson.ErrInvalidArgument},
		{"blocking queue", redisson.NewBlockingQueue[string](c, "nil-args-q", codec.String()), redisson.ErrInvalidArgument},
		{"nil blocking queue", (*queue.BlockingQueue[string])(nil), redisson.ErrInvalidArgument},
		{"blocking deque", redisson.NewBlockingDeque[string](c, "nil-args-q", codec.String()), redisson.ErrInvalidArgument},
		{"nil blocking deque", (*queue.BlockingDeque[string])(nil), redisson.ErrInvalidArgument},
		{"delayed queue", delayed, redisson.ErrInvalidArgument},
		{"nil delayed queue", (*queue.DelayedQueue[string])(nil), redisson.ErrInvalidArgument},
		{"map", redisson.NewMap[string, string](c, "nil-args-map", codec.String()), redisson.ErrInvalidArgument},
		{"nil map", (*collection.Map[string, string])(nil), redisson.ErrInvalidArgument},
		{"map of a nil client", redisson.NewMap[string, string](nil, "nil-args-map", codec.String()), redisson.ErrInvalidArgument},
		{"map cache", redisson.NewMapCache[string, string](c, "nil-args-mc", codec.String()), redisson.ErrInvalidArgument},
		{"nil map cache", (*mapcache.MapCache[string, string])(nil), redisson.ErrInvalidArgument},
		{"map cache of a nil client", redisson.NewMapCache[string, string](nil, "nil-args-mc", codec.String()), redisson.ErrInvalidArgument},
		{"list", redisson.NewList[string](c, "nil-args-list", codec.String()), redisson.ErrInvalidArgument},
		{"nil list", (*collection.List[string])(nil), redisson.ErrInvalidArgument},
		{"set", redisson.NewSet[string](c, "nil-args-set", codec.String()), redisson.ErrInvalidArgument},
		{"nil set", (*collection.Set[string])(nil), redisson.ErrInvalidArgument},
		{"scored sorted set", redisson.NewScoredSortedSet[string](c, "nil-args-zset", codec.String()), redisson.ErrInvalidArgument},
		{"nil scored sorted set", (*collection.ScoredSortedSet[string])(nil), redisson.ErrInvalidArgument},
		{"bucket", redisson.NewBucket[string](c, "nil-args-bucket", codec.String()), redisson.ErrInvalidArgument},
		{"nil bucket", (*value.Bucket[string])(nil), redisson.ErrInvalidArgument},
		{"bucket of a nil client", redisson.NewBucket[string](nil, "nil-args-bucket", codec.String()), redisson.ErrInvalidArgument},
		{"atomic long", c.AtomicLong("nil-args-long"), redisson.ErrInvalidArgument},
		{"nil atomic long", (*value.AtomicLong)(nil), redisson.ErrInvalidArgument},
		{"atomic long of a nil client", (*redisson.Client)(nil).AtomicLong("nil-args-long"), redisson.ErrInvalidArgument},
	}
	for _, h := range handles {
		v := reflect.ValueOf(h.v)
		for i := range v.NumMethod() {
			m := v.Type().Method(i)
			for _, withOption := range []bool{false, true} {
				if withOption && !m.Type.IsVariadic() {
					continue
				}
				name := fmt.Sprintf("%s/%s", h.name, m.Name)
				if withOption {
					name += "/nil option"
				}
				t.Run(name, func(t *testing.T) {
					callZero(t, v.Method(i), withOption, h.want)
				})
			}
		}
	}
	// The semaphore and its permits are as they were.
	n, err := c.Semaphore("nil-args").AvailablePermits(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.NoError(t, permits.Release(t.Context()))
}

// callZero calls fn with zero arguments (plus one zero variadic argument
// when withOption) and checks what it returns: an error matching want for
// every error result, and the same from an iterator it returns.
func callZero(t *testing.T, fn reflect.Value, withOption bool, want error) {
	t.Helper()
	ft := fn.Type()
	n := ft.NumIn()
	if ft.IsVariadic() {
		n--
	}
	args := make([]reflect.Value, 0, n+1)
	for i := range n {
		args = append(args, reflect.Zero(ft.In(i)))
	}
	if withOption {
		args = append(args, reflect.Zero(ft.In(n).Elem()))
	}
	var out []reflect.Value
	require.NotPanics(t, func() { out = fn.Call(args) })
	errType := reflect.TypeFor[error]()
	for _, o := range out {
		switch {
		case o.Type() == errType:
			err, _ := o.Interface().(error)
			require.Error(t, err)
			require.True(t, errors.Is(err, want), "%v is not %v", err, want)
		case o.Kind() == reflect.Func && !o.IsNil():
			checkIterator(t, o, want)
		}
	}
}

// checkIterator runs an iter.Seq or iter.Seq2 that a call returned: it
// must yield an error matching want (Seq2) or nothing (Seq), and not panic.
func checkIterator(t *testing.T, seq reflect.Value, want error) {
	t.Helper()
	if seq.Type().NumIn() != 1 || seq.Type().In(0).Kind() != reflect.Func {
		return
	}
	yieldType := seq.Type().In(0)
	var got []error
	yield := reflect.MakeFunc(yieldType, func(args []reflect.Value) []reflect.Value {
		last := args[len(args)-1]
		if last.Type() == reflect.TypeFor[error]() && !last.IsNil() {
			got = append(got, last.Interface().(error))
		} else {
			got = append(got, nil)
		}
		return []reflect.Value{reflect.ValueOf(false)}
	})
	require.NotPanics(t, func() { seq.Call([]reflect.Value{yield}) })
	if yieldType.NumIn() == 2 && yieldType.In(1) == reflect.TypeFor[error]() {
		require.Len(t, got, 1, "the iterator yields its error once")
		require.True(t, errors.Is(got[0], want), "%v is not %v", got[0], want)
	}
}
