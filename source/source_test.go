package source_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/collection"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/queue"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
	"github.com/goredisson/redisson/semaphore"
	"github.com/goredisson/redisson/source"
	"github.com/goredisson/redisson/value"
)

// call makes one object of src and runs one of its calls.
type call func(ctx context.Context, src *source.Source) error

func errOf[T any](_ T, err error) error { return err }

// objects are one call of every object kind that keeps its error in the
// handle, made through its package's constructor.
var objects = []struct {
	name string
	call call
}{
	{"semaphore.New", func(ctx context.Context, s *source.Source) error {
		return errOf(semaphore.New(s, "s").AvailablePermits(ctx))
	}},
	{"semaphore.NewExpirable", func(ctx context.Context, s *source.Source) error {
		return errOf(semaphore.NewExpirable(s, "pes").AvailablePermits(ctx))
	}},
	{"latch.New", func(ctx context.Context, s *source.Source) error { return errOf(latch.New(s, "l").Count(ctx)) }},
	{"ratelimit.New", func(ctx context.Context, s *source.Source) error { return errOf(ratelimit.New(s, "r").Delete(ctx)) }},
	{"value.NewBucket", func(ctx context.Context, s *source.Source) error {
		return errOf(value.NewBucket[string](s, "b", codec.String()).Delete(ctx))
	}},
	{"value.NewAtomicLong", func(ctx context.Context, s *source.Source) error { return errOf(value.NewAtomicLong(s, "a").Get(ctx)) }},
	{"collection.NewMap", func(ctx context.Context, s *source.Source) error {
		return errOf(collection.NewMap[string, string](s, "m", codec.String()).Size(ctx))
	}},
	{"collection.NewList", func(ctx context.Context, s *source.Source) error {
		return errOf(collection.NewList[string](s, "li", codec.String()).Size(ctx))
	}},
	{"collection.NewSet", func(ctx context.Context, s *source.Source) error {
		return errOf(collection.NewSet[string](s, "se", codec.String()).Size(ctx))
	}},
	{"collection.NewScoredSortedSet", func(ctx context.Context, s *source.Source) error {
		return errOf(collection.NewScoredSortedSet[string](s, "z", codec.String()).Size(ctx))
	}},
	{"queue.NewQueue", func(ctx context.Context, s *source.Source) error {
		return errOf(queue.NewQueue[string](s, "q", codec.String()).Size(ctx))
	}},
	{"queue.NewDeque", func(ctx context.Context, s *source.Source) error {
		return errOf(queue.NewDeque[string](s, "q", codec.String()).Size(ctx))
	}},
	{"queue.NewBlockingQueue", func(ctx context.Context, s *source.Source) error {
		return errOf(queue.NewBlockingQueue[string](s, "q", codec.String()).Size(ctx))
	}},
	{"queue.NewBlockingDeque", func(ctx context.Context, s *source.Source) error {
		return errOf(queue.NewBlockingDeque[string](s, "q", codec.String()).Size(ctx))
	}},
	{"queue.NewDelayedQueue", func(ctx context.Context, s *source.Source) error {
		q := queue.NewDelayedQueue[string](s, "dq", codec.String())
		defer q.Destroy()
		return errOf(q.Size(ctx))
	}},
	{"pubsub.NewTopic", func(ctx context.Context, s *source.Source) error {
		return errOf(pubsub.NewTopic[string](s, "t", codec.String()).CountSubscribers(ctx))
	}},
	{"pubsub.NewShardedTopic", func(ctx context.Context, s *source.Source) error {
		return errOf(pubsub.NewShardedTopic[string](s, "t", codec.String()).CountSubscribers(ctx))
	}},
	{"pubsub.NewReliableTopic", func(ctx context.Context, s *source.Source) error {
		return errOf(pubsub.NewReliableTopic[string](s, "rt", codec.String()).Size(ctx))
	}},
}

// locks are the lock kinds' constructors, which panic on a nil or zero
// Source.
var locks = []struct {
	name string
	call call
}{
	{"rlock.New", func(ctx context.Context, s *source.Source) error { return errOf(rlock.New(s, "k").IsLocked(ctx)) }},
	{"fairlock.New", func(ctx context.Context, s *source.Source) error { return errOf(fairlock.New(s, "k").IsLocked(ctx)) }},
	{"rwlock.New", func(ctx context.Context, s *source.Source) error {
		return errOf(rwlock.New(s, "k").ReadLock().IsLocked(ctx))
	}},
	{"fencedlock.New", func(ctx context.Context, s *source.Source) error { return errOf(fencedlock.New(s, "k").IsLocked(ctx)) }},
	{"multilock.NewGroup", func(ctx context.Context, s *source.Source) error {
		return errOf(multilock.NewGroup(s, "g", "a", "b").IsLocked(ctx))
	}},
}

// TestConstructors: every package's constructor works on a client's
// Source; on a nil or zero Source the objects that keep an error fail every
// call with ErrInvalidArgument and the lock kinds' constructors panic,
// saying where a Source comes from.
func TestConstructors(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	for _, tc := range append(objects, locks...) {
		require.NoError(t, tc.call(ctx, c.Source()), tc.name)
	}
	for _, bad := range []struct {
		name string
		src  *source.Source
	}{{"nil", nil}, {"zero", new(source.Source)}, {"nil client", (*redisson.Client)(nil).Source()}} {
		for _, tc := range objects {
			require.ErrorIs(t, tc.call(ctx, bad.src), redisson.ErrInvalidArgument, "%s of a %s source", tc.name, bad.name)
		}
		for _, tc := range locks {
			require.PanicsWithValue(t,
				tc.name+": nil or zero source.Source (get one from (*redisson.Client).Source)",
				func() { _ = tc.call(ctx, bad.src) }, "%s of a %s source", tc.name, bad.name)
		}
	}
}

// TestSameObject: a lock made by its package and by the Client method is
// one lock, and a multi-lock of members made by their packages reports its
// events to their client (it finds the members' runtime without a
// registry).
func TestSameObject(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	var mu sync.Mutex
	var ends []string
	obs := &redisson.Observer{AcquireEnd: func(_ context.Context, e observe.AcquireEnd) {
		mu.Lock()
		defer mu.Unlock()
		ends = append(ends, string(e.Kind)+" "+e.Name)
	}}
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithObserver(obs))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	h, err := rlock.New(c.Source(), "same").Lock(ctx)
	require.NoError(t, err)
	held, err := c.Lock("same").IsLocked(ctx)
	require.NoError(t, err)
	require.True(t, held)
	require.NoError(t, h.Unlock(ctx))

	m := multilock.New(fairlock.New(c.Source(), "m1"), rwlock.New(c.Source(), "m2").WriteLock(), fencedlock.New(c.Source(), "m3"))
	mh, err := m.Lock(ctx)
	require.NoError(t, err)
	for _, name := range []string{"m1", "m2", "m3"} {
		n, err := c.Redis().Exists(ctx, name).Result()
		require.NoError(t, err)
		require.Equal(t, int64(1), n, name)
	}
	require.NoError(t, mh.Unlock(ctx))
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, ends, string(observe.KindMultiLock)+" [m1,m2,m3]")
}
