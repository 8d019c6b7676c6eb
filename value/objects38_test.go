package value_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/value"
)

// ops38 are the calls issue 38 added to package value, each named as its
// error names it.
func ops38(ctx context.Context, b *value.Bucket[string], bs *value.Buckets[string], d *value.AtomicDouble, g *value.IdGenerator) []struct {
	name string
	op   func() error
} {
	return []struct {
		name string
		op   func() error
	}{
		{`bucket "b": expire`, func() error { _, err := b.Expire(ctx, time.Minute); return err }},
		{`bucket "b": expire if NX`, func() error { _, err := b.ExpireIf(ctx, time.Minute, value.ExpireIfNotSet); return err }},
		{`bucket "b": expire at`, func() error { _, err := b.ExpireAt(ctx, time.Now().Add(time.Hour)); return err }},
		{`bucket "b": clear expire`, func() error { _, err := b.ClearExpire(ctx); return err }},
		{`bucket "b": set and keep TTL`, func() error { return b.SetKeepTTL(ctx, "v") }},
		{`bucket "b": get and expire`, func() error { _, _, err := b.GetAndExpire(ctx, time.Minute); return err }},
		{`bucket "b": get and clear expire`, func() error { _, _, err := b.GetAndClearExpire(ctx); return err }},
		{`bucket "b": size`, func() error { _, err := b.Size(ctx); return err }},
		{`buckets "[x,y]": get`, func() error { _, err := bs.Get(ctx, "x", "y"); return err }},
		{`buckets "[x]": set`, func() error { return bs.Set(ctx, map[string]string{"x": "1"}) }},
		{`buckets "[y]": try set`, func() error { _, err := bs.TrySet(ctx, map[string]string{"y": "2"}); return err }},
		{`atomic double "d": get`, func() error { _, err := d.Get(ctx); return err }},
		{`atomic double "d": set`, func() error { return d.Set(ctx, 1.5) }},
		{`atomic double "d": add and get`, func() error { _, err := d.AddAndGet(ctx, 2); return err }},
		{`atomic double "d": get and add`, func() error { _, err := d.GetAndAdd(ctx, 2); return err }},
		{`atomic double "d": increment and get`, func() error { _, err := d.IncrementAndGet(ctx); return err }},
		{`atomic double "d": decrement and get`, func() error { _, err := d.DecrementAndGet(ctx); return err }},
		{`atomic double "d": get and set`, func() error { _, err := d.GetAndSet(ctx, 3); return err }},
		{`atomic double "d": compare and set`, func() error { _, err := d.CompareAndSet(ctx, 3, 4); return err }},
		{`atomic double "d": get and delete`, func() error { _, err := d.GetAndDelete(ctx); return err }},
		{`atomic double "d": delete`, func() error { _, err := d.Delete(ctx); return err }},
		{`atomic double "d": remain TTL`, func() error { _, err := d.RemainTTL(ctx); return err }},
		{`id generator "g": try init`, func() error { _, err := g.TryInit(ctx, 1, 10); return err }},
		{`id generator "g": next id`, func() error { _, err := g.NextID(ctx); return err }},
		{`id generator "g": delete`, func() error { _, err := g.Delete(ctx); return err }},
	}
}

// TestObjects38Lifetime: every call works while the client lives, and
// fails with ErrClosed, naming the object and the operation, after Close;
// with a cancelled context it fails with context.Canceled.
func TestObjects38Lifetime(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	handles := func(ctx context.Context) []struct {
		name string
		op   func() error
	} {
		// One id generator per context: a handle that has a block serves
		// ids without asking Redis.
		return ops38(ctx, redisson.NewBucket[string](c, "b", codec.String()), redisson.NewBuckets[string](c, codec.String()),
			c.AtomicDouble("d"), c.IdGenerator("g"))
	}
	for _, tc := range handles(context.Background()) {
		require.NoError(t, tc.op(), "%s while alive", tc.name)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range handles(cancelled) {
		require.ErrorIs(t, tc.op(), context.Canceled, tc.name)
	}
	require.NoError(t, c.Close())
	for _, tc := range handles(context.Background()) {
		err := tc.op()
		require.ErrorIs(t, err, redisson.ErrClosed, tc.name)
		require.EqualError(t, err, tc.name+": "+redisson.ErrClosed.Error())
	}
}

// TestObjects38BadInput: what Java refuses, and a nil context, fail before
// anything is sent, with ErrInvalidArgument or ErrInvalidName.
func TestObjects38BadInput(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	src := sourceOf(t, srv)
	b := value.NewBucket[string](src, "b", codec.String())
	d := value.NewAtomicDouble(src, "d")
	g := value.NewIdGenerator(src, "g")
	bs := value.NewBuckets[*string](src, codec.String())
	var nilCtx context.Context
	for _, tc := range []struct {
		name string
		op   func() error
		is   error
	}{
		{"expire 0", func() error { _, err := b.Expire(ctx, 0); return err }, redisson.ErrInvalidArgument},
		{"expire if bad mode", func() error { _, err := b.ExpireIf(ctx, time.Second, "ZZ"); return err }, redisson.ErrInvalidArgument},
		{"expire at zero", func() error { _, err := b.ExpireAt(ctx, time.Time{}); return err }, redisson.ErrInvalidArgument},
		{"get and expire 0", func() error { _, _, err := b.GetAndExpire(ctx, 0); return err }, redisson.ErrInvalidArgument},
		{"nil ctx", func() error { _, err := b.Size(nilCtx); return err }, redisson.ErrInvalidArgument},
		{"double NaN", func() error { return d.Set(ctx, math.NaN()) }, redisson.ErrInvalidArgument},
		{"double +Inf", func() error { _, err := d.AddAndGet(ctx, math.Inf(1)); return err }, redisson.ErrInvalidArgument},
		{"allocation 0", func() error { _, err := g.TryInit(ctx, 1, 0); return err }, redisson.ErrInvalidArgument},
		{"buckets nil value", func() error { return bs.Set(ctx, map[string]*string{"k": nil}) }, redisson.ErrInvalidArgument},
		{"buckets empty name", func() error { _, err := bs.Get(ctx, ""); return err }, redisson.ErrInvalidName},
		{"buckets nil codec", func() error { _, err := value.NewBuckets[string](src, nil).Get(ctx, "k"); return err }, redisson.ErrInvalidArgument},
		{"double empty name", func() error { _, err := value.NewAtomicDouble(src, "").Get(ctx); return err }, redisson.ErrInvalidName},
		{"id generator empty name", func() error { _, err := value.NewIdGenerator(src, "").NextID(ctx); return err }, redisson.ErrInvalidName},
		{"nil id generator", func() error { _, err := (*value.IdGenerator)(nil).NextID(ctx); return err }, redisson.ErrInvalidArgument},
		{"nil buckets", func() error { return (*value.Buckets[string])(nil).Set(ctx, nil) }, redisson.ErrInvalidArgument},
		{"nil atomic double", func() error { _, err := (*value.AtomicDouble)(nil).Get(ctx); return err }, redisson.ErrInvalidArgument},
	} {
		require.ErrorIs(t, tc.op(), tc.is, tc.name)
	}
	n, err := redistest.Client(t, srv).DBSize(ctx).Result()
	require.NoError(t, err)
	require.Zero(t, n, "nothing written")
}

// TestObjects38WrongType: a key of another Redis type is ErrWrongType,
// saying what it holds; a string that is no number is ErrWrongType for the
// atomic double and the id generator.
func TestObjects38WrongType(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.HSet(ctx, "h", "f", "v").Err())
	require.NoError(t, raw.Set(ctx, "s", "abc", 0).Err())
	src := sourceOf(t, srv)
	for _, tc := range []struct {
		name string
		op   func() error
		says string
	}{
		{"bucket get and expire", func() error {
			_, _, err := value.NewBucket[string](src, "h", codec.String()).GetAndExpire(ctx, time.Second)
			return err
		}, "a hash"},
		{"bucket size", func() error { _, err := value.NewBucket[string](src, "h", codec.String()).Size(ctx); return err }, "a hash"},
		{"double get of a hash", func() error { _, err := value.NewAtomicDouble(src, "h").Get(ctx); return err }, "a hash"},
		{"double get of text", func() error { _, err := value.NewAtomicDouble(src, "s").Get(ctx); return err }, "abc"},
		{"double add to text", func() error { _, err := value.NewAtomicDouble(src, "s").AddAndGet(ctx, 1); return err }, "not a number"},
		{"id generator on a hash", func() error { _, err := value.NewIdGenerator(src, "h").NextID(ctx); return err }, "a hash"},
		{"bucket set and keep TTL", func() error { return value.NewBucket[string](src, "h", codec.String()).SetKeepTTL(ctx, "v") }, ""},
	} {
		err := tc.op()
		if tc.says == "" { // SET KEEPTTL replaces any type, as Java's does
			require.NoError(t, err, tc.name)
			continue
		}
		require.ErrorIs(t, err, redisson.ErrWrongType, tc.name)
		require.Contains(t, err.Error(), tc.says, tc.name)
	}
}

// TestIdGeneratorGoToGo: two clients, several handles and goroutines each,
// draw ids from one generator: every id is handed out once, and each
// handle's ids come in blocks of the allocation size.
func TestIdGeneratorGoToGo(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	c1, c2 := sourceOf(t, srv), sourceOf(t, srv)
	ok, err := value.NewIdGenerator(c1, "ids").TryInit(ctx, 100, 7)
	require.NoError(t, err)
	require.True(t, ok)
	gens := []*value.IdGenerator{value.NewIdGenerator(c1, "ids"), value.NewIdGenerator(c2, "ids"), value.NewIdGenerator(c2, "ids")}
	const perWorker = 50
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for gi, g := range gens {
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perWorker {
					id, err := g.NextID(ctx)
					if !assertNoError(t, err) {
						return
					}
					mu.Lock()
					_, dup := seen[id]
					seen[id] = gi
					mu.Unlock()
					if dup {
						t.Errorf("id %d handed out twice", id)
					}
				}
			}()
		}
	}
	wg.Wait()
	require.Len(t, seen, len(gens)*3*perWorker)
	for id, gi := range seen {
		block := (id - 100) / 7
		for other := 100 + block*7; other < 100+block*7+7; other++ {
			if g, ok := seen[other]; ok {
				require.Equal(t, gi, g, "ids %d and %d are of one block", id, other)
			}
		}
	}
}

func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Errorf("next id: %v", err)
		return false
	}
	return true
}
