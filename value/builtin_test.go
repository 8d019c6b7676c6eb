package value_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/source"
	"github.com/goredisson/redisson/value"
)

// TestBucketBuiltinTypes: a bucket stores a time.Time, a uuid.UUID, a
// *big.Int and a codec.Decimal as Redisson stores a Date, a UUID, a
// BigInteger and a BigDecimal (codecs2.json), reads each back equal, and a
// compare-and-set against those bytes succeeds. Before, a time.Time was
// stored as {} by TypedJsonJackson (and read back as the zero time), and a
// UUID was refused.
func TestBucketBuiltinTypes(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	src, raw := sourceOf(t, srv), redistest.Client(t, srv)
	at := time.UnixMilli(1700000000123).UTC()
	id := uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")
	jj, jj4, typed, str := codec.JsonJackson(nil), codec.JsonJackson(nil, codec.UUIDTypeInfo()), codec.TypedJsonJackson(), codec.String()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, key string) string
		want string
	}{
		{"time.Time JsonJackson", bucketCase(ctx, src, raw, jj, at), `["java.util.Date",1700000000123]`},
		{"time.Time TypedJsonJackson", bucketCase(ctx, src, raw, typed, at), `1700000000123`},
		{"time.Time String", bucketCase(ctx, src, raw, str, at), `2023-11-14T22:13:20.123Z`},
		{"time.Time MsgPackJackson", bucketCase(ctx, src, raw, codec.MsgPackJackson(nil), at), "\x92\xaejava.util.Date\xcf\x00\x00\x01\x8b\xcf\xe5\x68\x7b"},
		{"uuid.UUID JsonJackson 3.x", bucketCase(ctx, src, raw, jj, id), `"0f8fad5b-d9cb-469f-a165-70867728950e"`},
		{"uuid.UUID JsonJackson 4.2+", bucketCase(ctx, src, raw, jj4, id), `["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"]`},
		{"*big.Int JsonJackson", bucketCase(ctx, src, raw, jj, big.NewInt(-5)), `["java.math.BigInteger",-5]`},
		{"codec.Decimal JsonJackson", bucketCase(ctx, src, raw, jj, codec.Decimal("19.990")), `["java.math.BigDecimal",19.990]`},
		{"time.Time in a list", bucketCase(ctx, src, raw, jj, []any{at, id}),
			`["java.util.ArrayList",[["java.util.Date",1700000000123],["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"]]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.run(t, "b:"+tc.name))
		})
	}

	// The empty Decimal is Java's null: setting it deletes the key.
	dec := value.NewBucket[codec.Decimal](src, "dec", jj)
	require.NoError(t, dec.Set(ctx, "1.50"))
	require.NoError(t, dec.Set(ctx, ""))
	_, found, err := dec.Get(ctx)
	require.NoError(t, err)
	require.False(t, found)

	// What no codec can represent fails before anything is sent.
	d := value.NewBucket[time.Duration](src, "d", jj)
	err = d.Set(ctx, time.Second)
	require.ErrorIs(t, err, codec.ErrUnsupportedType)
	require.ErrorContains(t, err, `bucket "d": set: codec JsonJackson: cannot encode: unsupported Go type time.Duration`)
	type secret struct{ pin int }
	s := value.NewBucket[secret](src, "s", typed)
	require.ErrorIs(t, s.Set(ctx, secret{pin: 1234}), codec.ErrUnsupportedType)
	n, err := raw.Exists(ctx, "d", "s").Result()
	require.NoError(t, err)
	require.Zero(t, n, "nothing written")
}

// bucketCase sets v in a bucket, reads it back equal and returns the
// stored bytes; a compare-and-set expecting v (Redis compares the bytes it
// holds with v's encoding) succeeds.
func bucketCase[T any](ctx context.Context, src *source.Source, rdb *redis.Client, c codec.Codec, v T) func(t *testing.T, key string) string {
	return func(t *testing.T, key string) string {
		b := value.NewBucket[T](src, key, c)
		require.NoError(t, b.Set(ctx, v))
		stored, err := rdb.Get(ctx, key).Result()
		require.NoError(t, err)
		got, found, err := b.Get(ctx)
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, v, got)
		ok, err := b.CompareAndSet(ctx, v, v)
		require.NoError(t, err)
		require.True(t, ok, "compare-and-set against the stored bytes")
		return stored
	}
}

// TestBucketDecodeErrorSaysEachThingOnce: a value a bucket cannot decode
// fails with the bucket, the operation, the codec and what went wrong, each
// said once, and every sentinel it stands for still matches.
func TestBucketDecodeErrorSaysEachThingOnce(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	src, raw := sourceOf(t, srv), redistest.Client(t, srv)
	type point struct {
		X int32 `json:"x"`
	}
	types := codec.NewTypes().MustRegister("com.example.Point", point{})
	for _, tc := range []struct {
		name, key, stored string
		get               func(key string) error
		is                []error
		want              string
	}{
		{"wrong Java class", "cls", `{"@class":"com.example.Other","x":1}`, func(key string) error {
			_, _, err := value.NewBucket[point](src, key, codec.JsonJackson(types)).Get(ctx)
			return err
		}, []error{codec.ErrDecode, codec.ErrWrongClass},
			`bucket "cls": get: codec JsonJackson: cannot decode: wrong Java class: "@class" is "com.example.Other", want "com.example.Point" for Go type value_test.point`},
		{"not MessagePack", "msgpack", "\xc1", func(key string) error {
			_, _, err := value.NewBucket[point](src, key, codec.MsgPackJackson(types)).GetAndDelete(ctx)
			return err
		}, []error{codec.ErrDecode},
			`bucket "msgpack": get and delete: codec MsgPackJackson: cannot decode: invalid MessagePack code 0xc1`},
		{"not a long", "long", `4x`, func(key string) error {
			_, _, err := value.NewBucket[int64](src, key, codec.Long()).Get(ctx)
			return err
		}, []error{codec.ErrDecode}, `bucket "long": get: codec Long: cannot decode: "4x" is not a decimal long`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.Set(ctx, tc.key, tc.stored, 0).Err())
			err := tc.get(tc.key)
			require.EqualError(t, err, tc.want)
			for _, s := range tc.is {
				require.ErrorIs(t, err, s)
			}
			msg := err.Error()
			require.Equal(t, 1, strings.Count(msg, "codec"), "codec said once: %s", msg)
			require.Zero(t, strings.Count(msg, "codec:"), "no sentinel prefix inside: %s", msg)
			require.Equal(t, 1, strings.Count(msg, "decode"), "the operation said once: %s", msg)
			require.Equal(t, 1, strings.Count(msg, `"`+tc.key+`"`), "the name once: %s", msg)
		})
	}
}

// TestBucketOmitsTaggedZeroFields: a struct's omitzero and omitempty
// fields are left out of what a bucket stores (a zero time.Time is not a
// Date of year 1, a zero UUID not "00000000-…"), and read back as zero.
func TestBucketOmitsTaggedZeroFields(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	src, raw := sourceOf(t, srv), redistest.Client(t, srv)
	type job struct {
		ID      uuid.UUID `json:"id,omitzero"`
		Due     time.Time `json:"due,omitzero"`
		Tags    []string  `json:"tags,omitempty"`
		Retries int64     `json:"retries,omitempty"`
		Name    string    `json:"name"`
	}
	types := codec.NewTypes().MustRegister("com.example.Job", job{})
	due := time.UnixMilli(1700000000123).UTC()
	id := uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")
	for _, tc := range []struct {
		name string
		v    job
		want string
	}{
		{"zero fields left out", job{Name: "a", Tags: []string{}}, `{"@class":"com.example.Job","name":"a"}`},
		{"set fields written", job{ID: id, Due: due, Tags: []string{"x"}, Retries: 2, Name: "b"},
			`{"@class":"com.example.Job","due":["java.util.Date",1700000000123],"id":"0f8fad5b-d9cb-469f-a165-70867728950e",` +
				`"name":"b","retries":2,"tags":["java.util.ArrayList",["x"]]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := value.NewBucket[job](src, "job", codec.JsonJackson(types))
			require.NoError(t, b.Set(ctx, tc.v))
			stored, err := raw.Get(ctx, "job").Result()
			require.NoError(t, err)
			require.Equal(t, tc.want, stored)
			got, found, err := b.Get(ctx)
			require.NoError(t, err)
			require.True(t, found)
			if len(tc.v.Tags) == 0 {
				tc.v.Tags = nil // an empty slice left out reads back as nil
			}
			require.Equal(t, tc.v, got)
		})
	}
}
