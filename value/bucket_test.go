package value_test

import (
	"context"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/value"
)

func str(s string) *string { return &s }

// got is an operation's outcome: a value and whether it was found, a
// boolean, a duration, or nothing.
type got []any

// TestBucketOperations runs every RBucket operation in turn on one key and
// checks its result, the raw bytes and PTTL it leaves, and the exact
// commands it sent, which are RedissonBucket's (3.52.0): the same command
// names and argument order, the same calls inside the scripts.
func TestBucketOperations(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	cmds := monitor(t, srv)
	b := value.NewBucket[*string](sourceOf(t, srv), "b", codec.String())
	require.Equal(t, "b", b.Name())

	pair := func(v *string, found bool, err error) (got, error) { return got{v, found}, err }
	one := func(ok bool, err error) (got, error) { return got{ok}, err }
	none := func(err error) (got, error) { return got{}, err }
	for _, st := range []struct {
		name  string
		op    func() (got, error)
		want  got
		value *string // nil: no key
		ttl   ttl
		cmds  []string
	}{
		{"get absent", func() (got, error) { return pair(b.Get(ctx)) }, got{(*string)(nil), false}, nil, noKey, []string{"get b"}},
		{"set", func() (got, error) { return none(b.Set(ctx, str("v1"))) }, got{}, str("v1"), noTTL, []string{"set b v1"}},
		{"get", func() (got, error) { return pair(b.Get(ctx)) }, got{str("v1"), true}, str("v1"), noTTL, []string{"get b"}},
		{"set with TTL", func() (got, error) { return none(b.SetTTL(ctx, str("v2"), 5*time.Second)) }, got{}, str("v2"), 5000 * ttl(time.Millisecond), []string{"psetex b 5000 v2"}},
		{"set if absent, present", func() (got, error) { return one(b.SetIfAbsent(ctx, str("v3"))) }, got{false}, str("v2"), 5000 * ttl(time.Millisecond), []string{"setnx b v3"}},
		{"set if exists drops the TTL", func() (got, error) { return one(b.SetIfExists(ctx, str("v4"))) }, got{true}, str("v4"), noTTL, []string{"set b v4 XX"}},
		{"set if exists with TTL", func() (got, error) { return one(b.SetIfExistsTTL(ctx, str("v5"), 10*time.Second)) }, got{true}, str("v5"), 10000 * ttl(time.Millisecond), []string{"set b v5 PX 10000 XX"}},
		{"compare-and-set mismatch", func() (got, error) { return one(b.CompareAndSet(ctx, str("nope"), str("x"))) }, got{false}, str("v5"), 10000 * ttl(time.Millisecond), []string{"script", "lua get b"}},
		{"compare-and-set drops the TTL", func() (got, error) { return one(b.CompareAndSet(ctx, str("v5"), str("v6"))) }, got{true}, str("v6"), noTTL, []string{"script", "lua get b", "lua set b v6"}},
		{"get and set", func() (got, error) { return pair(b.GetAndSet(ctx, str("v7"))) }, got{str("v6"), true}, str("v7"), noTTL, []string{"getset b v7"}},
		{"get and set with TTL", func() (got, error) { return pair(b.GetAndSetTTL(ctx, str("v8"), 3*time.Second)) }, got{str("v7"), true}, str("v8"), 3000 * ttl(time.Millisecond), []string{"script", "lua get b", "lua psetex b 3000 v8"}},
		{"remaining TTL", func() (got, error) {
			d, err := b.RemainTTL(ctx)
			return got{d > 3*time.Second-ttlGap && d <= 3*time.Second}, err
		}, got{true}, str("v8"), 3000 * ttl(time.Millisecond), []string{"pttl b"}},
		{"get and delete", func() (got, error) { return pair(b.GetAndDelete(ctx)) }, got{str("v8"), true}, nil, noKey, []string{"script", "lua get b", "lua del b"}},
		{"get and delete absent", func() (got, error) { return pair(b.GetAndDelete(ctx)) }, got{(*string)(nil), false}, nil, noKey, []string{"script", "lua get b", "lua del b"}},
		{"set if exists, absent", func() (got, error) { return one(b.SetIfExists(ctx, str("v9"))) }, got{false}, nil, noKey, []string{"set b v9 XX"}},
		{"set if absent with TTL", func() (got, error) { return one(b.SetIfAbsentTTL(ctx, str("v10"), 2*time.Second)) }, got{true}, str("v10"), 2000 * ttl(time.Millisecond), []string{"set b v10 PX 2000 NX"}},
		{"set if absent with TTL, present", func() (got, error) { return one(b.SetIfAbsentTTL(ctx, str("v11"), 2*time.Second)) }, got{false}, str("v10"), 2000 * ttl(time.Millisecond), []string{"set b v11 PX 2000 NX"}},
		{"compare-and-set from null, present", func() (got, error) { return one(b.CompareAndSet(ctx, nil, str("x"))) }, got{false}, str("v10"), 2000 * ttl(time.Millisecond), []string{"setnx b x"}},
		{"compare-and-set to null", func() (got, error) { return one(b.CompareAndSet(ctx, str("v10"), nil)) }, got{true}, nil, noKey, []string{"script", "lua get b", "lua del b"}},
		{"compare-and-set null to null", func() (got, error) { return one(b.CompareAndSet(ctx, nil, nil)) }, got{true}, nil, noKey, []string{"exists b"}},
		{"compare-and-set from null", func() (got, error) { return one(b.CompareAndSet(ctx, nil, str("v12"))) }, got{true}, str("v12"), noTTL, []string{"setnx b v12"}},
		{"set if absent null", func() (got, error) { return one(b.SetIfAbsent(ctx, nil)) }, got{false}, str("v12"), noTTL, []string{"exists b"}},
		{"set if exists null deletes", func() (got, error) { return one(b.SetIfExists(ctx, nil)) }, got{true}, nil, noKey, []string{"script", "lua get b", "lua del b"}},
		{"set if exists null, absent", func() (got, error) { return one(b.SetIfExists(ctx, nil)) }, got{false}, nil, noKey, []string{"script", "lua get b"}},
		{"set again", func() (got, error) { return none(b.Set(ctx, str("v13"))) }, got{}, str("v13"), noTTL, []string{"set b v13"}},
		{"set null deletes", func() (got, error) { return none(b.Set(ctx, nil)) }, got{}, nil, noKey, []string{"del b"}},
		{"set null with TTL deletes", func() (got, error) { return none(b.SetTTL(ctx, nil, time.Second)) }, got{}, nil, noKey, []string{"del b"}},
		{"set once more", func() (got, error) { return none(b.Set(ctx, str("v14"))) }, got{}, str("v14"), noTTL, []string{"set b v14"}},
		{"get and set null", func() (got, error) { return pair(b.GetAndSet(ctx, nil)) }, got{str("v14"), true}, nil, noKey, []string{"script", "lua get b", "lua del b"}},
		{"delete absent", func() (got, error) { return one(b.Delete(ctx)) }, got{false}, nil, noKey, []string{"del b"}},
		{"remaining TTL absent", func() (got, error) {
			d, err := b.RemainTTL(ctx)
			return got{d}, err
		}, got{time.Duration(-2)}, nil, noKey, []string{"pttl b"}},
		{"set before delete", func() (got, error) { return none(b.Set(ctx, str("v15"))) }, got{}, str("v15"), noTTL, []string{"set b v15"}},
		{"remaining TTL none", func() (got, error) {
			d, err := b.RemainTTL(ctx)
			return got{d}, err
		}, got{time.Duration(-1)}, str("v15"), noTTL, []string{"pttl b"}},
		{"delete", func() (got, error) { return one(b.Delete(ctx)) }, got{true}, nil, noKey, []string{"del b"}},
	} {
		var res got
		var err error
		sent := cmds.of(t, func() { res, err = st.op() })
		require.NoError(t, err, st.name)
		require.Equal(t, st.want, res, st.name)
		require.Equal(t, st.cmds, sent, "%s: commands", st.name)
		rs := readRaw(t, raw, "b")
		require.Equal(t, st.value != nil, rs.exists, "%s: key exists", st.name)
		if st.value != nil {
			require.Equal(t, *st.value, rs.value, "%s: raw value", st.name)
		}
		requireTTL(t, st.ttl, rs.pttl, st.name)
	}
}

// TestBucketArgumentErrors: what Java refuses is refused before anything is
// sent.
func TestBucketArgumentErrors(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	src := sourceOf(t, srv)
	cmds := monitor(t, srv)
	b := value.NewBucket[*string](src, "b", codec.String())
	for _, tc := range []struct {
		name string
		op   func() error
		want error
	}{
		{"set if absent with TTL, nil", func() error { _, err := b.SetIfAbsentTTL(ctx, nil, time.Second); return err }, core.ErrInvalidArgument},
		{"set if exists with TTL, nil", func() error { _, err := b.SetIfExistsTTL(ctx, nil, time.Second); return err }, core.ErrInvalidArgument},
		{"get and set with TTL, nil", func() error { _, _, err := b.GetAndSetTTL(ctx, nil, time.Second); return err }, core.ErrInvalidArgument},
		{"zero TTL", func() error { return b.SetTTL(ctx, str("v"), 0) }, core.ErrInvalidArgument},
		{"sub-millisecond TTL", func() error { return b.SetTTL(ctx, str("v"), 500*time.Microsecond) }, core.ErrInvalidArgument},
		{"negative TTL", func() error { _, err := b.SetIfAbsentTTL(ctx, str("v"), -time.Second); return err }, core.ErrInvalidArgument},
		{"empty name", func() error { return value.NewBucket[string](src, "", codec.String()).Set(ctx, "v") }, core.ErrInvalidName},
		{"nil codec", func() error { _, _, err := value.NewBucket[string](src, "x", nil).Get(ctx); return err }, core.ErrInvalidArgument},
		{"nil client", func() error { _, err := value.NewBucket[string](nil, "x", codec.String()).Delete(ctx); return err }, core.ErrInvalidArgument},
		{"not encodable", func() error { return value.NewBucket[int](src, "x", codec.ByteArray()).Set(ctx, 1) }, codec.ErrEncode},
	} {
		var err error
		sent := cmds.of(t, func() { err = tc.op() })
		require.ErrorIs(t, err, tc.want, tc.name)
		require.Empty(t, sent, "%s: sent %v", tc.name, sent)
	}
}

// TestBucketWrongTypeAndBadData: another Redis type under the name is
// ErrWrongType, bytes the codec cannot read are codec.ErrDecode.
func TestBucketWrongTypeAndBadData(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.HSet(ctx, "h", "f", "v").Err())
	require.NoError(t, raw.Set(ctx, "j", `{"broken":`, 0).Err())
	h := value.NewBucket[string](sourceOf(t, srv), "h", codec.String())
	_, _, err := h.Get(ctx)
	require.ErrorIs(t, err, core.ErrWrongType)
	require.EqualError(t, err, `bucket "h": get: wrong type: the key holds a hash, not a string`)
	_, err = h.CompareAndSet(ctx, "a", "b")
	require.ErrorIs(t, err, core.ErrWrongType, "inside a script")
	require.EqualError(t, err, `bucket "h": compare and set: wrong type: the key holds a hash, not a string`)
	_, _, err = h.GetAndDelete(ctx)
	require.ErrorIs(t, err, core.ErrWrongType)
	_, _, err = h.GetAndSet(ctx, "x")
	require.ErrorIs(t, err, core.ErrWrongType)

	j := value.NewBucket[any](sourceOf(t, srv), "j", codec.JsonJackson(nil))
	_, _, err = j.Get(ctx)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.ErrorContains(t, err, `bucket "j": get: `)
}

// TestBucketJavaBytes: a Go bucket reads what Java stored and, because it
// encodes equal values to the same bytes, compare-and-set against a value
// Java wrote succeeds (Redisson compares bytes).
func TestBucketJavaBytes(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	src := sourceOf(t, srv)
	f, err := vectors.Load("codecs.json")
	require.NoError(t, err)
	types := codec.NewTypes().MustRegister(vectors.PersonClass, vectors.Person{})
	codecs := map[string]codec.Codec{"JsonJacksonCodec": codec.JsonJackson(types), "MsgPackJacksonCodec": codec.MsgPackJackson(types)}
	checked := 0
	for _, sc := range f.Scenarios {
		for _, st := range sc.Steps {
			c, ok := codecs[st.Args["codec"].(string)]
			if st.Op != "set" || !ok {
				continue
			}
			javaBytes, err := hex.DecodeString(st.Raw["state"].(map[string]any)[st.Object].(map[string]any)["hex"].(string))
			require.NoError(t, err)
			require.NoError(t, raw.Set(ctx, st.Object, javaBytes, 0).Err())
			written, _ := vectors.CodecValue(st.Object)
			b := value.NewBucket[any](src, st.Object, c)
			v, found, err := b.Get(ctx)
			require.NoError(t, err)
			require.True(t, found)
			require.Equal(t, written, v, st.Object)
			ok, err = b.CompareAndSet(ctx, written, "replaced")
			require.NoError(t, err)
			require.True(t, ok, "%s: compare-and-set against Java's bytes", st.Object)
			checked++
		}
	}
	require.Equal(t, 14, checked)

	// A map compares equal whatever order it was built in.
	m := value.NewBucket[map[string]any](src, "m", codec.JsonJackson(nil))
	big := map[string]any{}
	for _, k := range []string{"zeta", "alpha", "aa", "b", "Ab", "BB", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"} {
		big[k] = int64(len(k))
	}
	require.NoError(t, m.Set(ctx, big))
	again := map[string]any{}
	for k, v := range big {
		again[k] = v
	}
	ok, err := m.CompareAndSet(ctx, again, map[string]any{"done": true})
	require.NoError(t, err)
	require.True(t, ok)
}

// TestCompareAndSetRace: 3 clients × 16 goroutines increment through
// compare-and-set loops; every increment lands exactly once, on a Bucket and
// on an AtomicLong, and exactly one of 48 concurrent set-if-absent wins.
func TestCompareAndSetRace(t *testing.T) {
	const clients, goroutines, increments = 3, 16, 20
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	var buckets []*value.Bucket[int64]
	var longs []*value.AtomicLong
	var claims []*value.Bucket[string]
	for range clients {
		src := sourceOf(t, srv)
		buckets = append(buckets, value.NewBucket[int64](src, "counter", codec.JsonJackson(nil)))
		longs = append(longs, value.NewAtomicLong(src, "along"))
		claims = append(claims, value.NewBucket[string](src, "claim", codec.String()))
	}
	require.NoError(t, buckets[0].Set(ctx, 0))

	var wg sync.WaitGroup
	var bucketWins, longWins, bucketLosses, longLosses, claimWins atomic.Int64
	errs := make(chan error, clients*goroutines)
	for c := range clients {
		for g := range goroutines {
			wg.Go(func() {
				b, l := buckets[c], longs[c]
				for done := 0; done < increments; {
					cur, _, err := b.Get(ctx)
					if err == nil {
						var ok bool
						if ok, err = b.CompareAndSet(ctx, cur, cur+1); ok {
							bucketWins.Add(1)
							done++
						} else {
							bucketLosses.Add(1)
						}
					}
					if err != nil {
						errs <- err
						return
					}
				}
				for done := 0; done < increments; {
					cur, err := l.Get(ctx)
					if err == nil {
						var ok bool
						if ok, err = l.CompareAndSet(ctx, cur, cur+1); ok {
							longWins.Add(1)
							done++
						} else {
							longLosses.Add(1)
						}
					}
					if err != nil {
						errs <- err
						return
					}
				}
				ok, err := claims[c].SetIfAbsent(ctx, "goroutine")
				if err != nil {
					errs <- err
					return
				}
				if ok {
					claimWins.Add(1)
				}
				_ = g
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	total := int64(clients * goroutines * increments)
	require.Equal(t, total, bucketWins.Load())
	require.Equal(t, total, longWins.Load())
	require.Equal(t, int64(1), claimWins.Load())
	v, _, err := buckets[0].Get(ctx)
	require.NoError(t, err)
	require.Equal(t, total, v)
	rawBucket, err := raw.Get(ctx, "counter").Result()
	require.NoError(t, err)
	require.Equal(t, `["java.lang.Long",960]`, rawBucket)
	rawLong, err := raw.Get(ctx, "along").Result()
	require.NoError(t, err)
	require.Equal(t, "960", rawLong)
	t.Logf("%d increments each; lost compare-and-sets: bucket %d, atomic long %d", total, bucketLosses.Load(), longLosses.Load())
	require.False(t, errors.Is(err, core.ErrWrongType))
}
