package objbase_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/bits"
	"github.com/goredisson/redisson/bloom"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/collection"
	"github.com/goredisson/redisson/hll"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/mapcache"
	"github.com/goredisson/redisson/setcache"
	"github.com/goredisson/redisson/value"
)

// A handle made wrong reports its first fault, in the one error shape,
// on every call, and sends nothing (there is no client to send to).
func TestMadeWrong(t *testing.T) {
	k := objbase.Kind{Name: "thing", Type: "string"}
	for _, tc := range []struct {
		name string
		base func() objbase.Base
		is   error
		want string
	}{
		{"empty name", func() objbase.Base { return objbase.New(k, nil, "") }, core.ErrInvalidName,
			`thing "": get: invalid name: the name must not be empty`},
		{"no client", func() objbase.Base { return objbase.New(k, nil, "n") }, core.ErrInvalidArgument,
			`thing "n": get: invalid argument: nil Redis client`},
		{"no client, the package's words", func() objbase.Base {
			return objbase.New(objbase.Kind{Name: "thing", NoClient: "no client (make things with redisson.NewThing)"}, nil, "n")
		}, core.ErrInvalidArgument, `thing "n": get: invalid argument: no client (make things with redisson.NewThing)`},
		{"the first fault wins", func() objbase.Base {
			b := objbase.New(k, nil, "")
			b.NeedCodec(nil, "codec")
			return b
		}, core.ErrInvalidName, `thing "": get: invalid name: the name must not be empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.base()
			err := b.Check(context.Background(), "get")
			require.ErrorIs(t, err, tc.is)
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestNamedAndInvalid(t *testing.T) {
	b := objbase.New(objbase.Kind{Name: "thing"}, nil, "n")
	require.NoError(t, b.Named("get", nil))
	require.NoError(t, b.Fail(context.Background(), "get", nil))
	err := b.Invalid("get", "the page size must be at least %d, got %d", 1, 0)
	require.ErrorIs(t, err, core.ErrInvalidArgument)
	require.EqualError(t, err, `thing "n": get: invalid argument: the page size must be at least 1, got 0`)
}

func TestEncodeRefusesNull(t *testing.T) {
	b := objbase.New(objbase.Kind{Name: "thing"}, nil, "n")
	var nilMap map[string]int
	for _, tc := range []struct {
		name string
		v    any
		null bool
	}{
		{"nil", nil, true},
		{"nil pointer", (*int)(nil), true},
		{"nil map", nilMap, true},
		{"nil slice", []byte(nil), true},
		{"zero int", 0, false},
		{"empty string", "", false},
		{"empty slice", []byte{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.null, objbase.IsNull(tc.v))
			data, err := b.Encode("put", "key", codec.JsonJackson(nil), tc.v)
			if tc.null {
				require.ErrorIs(t, err, core.ErrInvalidArgument)
				require.EqualError(t, err, `thing "n": put: invalid argument: the key must not be nil (Redisson refuses null)`)
				return
			}
			require.NoError(t, err)
			require.NotEmpty(t, data)
		})
	}
}

// No public type holds a Base embedded: none of its methods may reach a
// public method set (they take internal types and skip the nil-handle
// checks).
func TestNoBaseMethodIsPublic(t *testing.T) {
	base := reflect.TypeFor[*objbase.Base]()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[*bits.BitSet](),
		reflect.TypeFor[*hll.HyperLogLog[string]](),
		reflect.TypeFor[*bloom.BloomFilter[string]](),
		reflect.TypeFor[*collection.Map[string, string]](),
		reflect.TypeFor[*collection.List[string]](),
		reflect.TypeFor[*collection.Set[string]](),
		reflect.TypeFor[*collection.ScoredSortedSet[string]](),
		reflect.TypeFor[*mapcache.MapCache[string, string]](),
		reflect.TypeFor[*setcache.SetCache[string]](),
		reflect.TypeFor[*value.Bucket[string]](),
		reflect.TypeFor[*value.AtomicLong](),
		reflect.TypeFor[*value.AtomicDouble](),
		reflect.TypeFor[*value.IdGenerator](),
	} {
		for i := range base.NumMethod() {
			name := base.Method(i).Name
			if name == "Name" {
				continue // every handle has its own, nil-safe
			}
			_, ok := typ.MethodByName(name)
			require.False(t, ok, "%s has Base's method %s", typ, name)
		}
	}
}
