package codec_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
)

// TestErrorsSayEachThingOnce: an Encode or Decode error names the codec
// and the operation once, then the cause, and stays matchable with
// errors.Is for every sentinel it stands for.
func TestErrorsSayEachThingOnce(t *testing.T) {
	types := testTypes()
	msgpackWrongClass, err := hex.DecodeString("82a640636c617373a3782e59a463697479a178")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		run  func() error
		is   []error
		want string
	}{
		{"JsonJackson wrong class", func() error {
			return codec.JsonJackson(types).Decode([]byte(`{"@class":"com.example.Order"}`), new(Address))
		}, []error{codec.ErrDecode, codec.ErrWrongClass},
			`codec JsonJackson: cannot decode: wrong Java class: "@class" is "com.example.Order", want "com.example.Address" for Go type codec_test.Address`},
		{"JsonJackson wrong class in a property", func() error {
			return codec.JsonJackson(types).Decode([]byte(`{"@class":"com.example.Order","ship":{"@class":"x.Y"}}`), new(Order))
		}, []error{codec.ErrDecode, codec.ErrWrongClass},
			`codec JsonJackson: cannot decode: at .ship: wrong Java class: "@class" is "x.Y", want "com.example.Address" for Go type codec_test.Address`},
		{"MsgPackJackson wrong class", func() error {
			return codec.MsgPackJackson(types).Decode(msgpackWrongClass, new(Address))
		}, []error{codec.ErrDecode, codec.ErrWrongClass},
			`codec MsgPackJackson: cannot decode: wrong Java class: "@class" is "x.Y", want "com.example.Address" for Go type codec_test.Address`},
		{"JsonJackson bad JSON", func() error { return codec.JsonJackson(nil).Decode([]byte(`x`), new(int)) },
			[]error{codec.ErrDecode}, `codec JsonJackson: cannot decode: invalid character 'x' looking for beginning of value`},
		{"TypedJsonJackson mismatch", func() error { return codec.TypedJsonJackson().Decode([]byte(`"s"`), new(int)) },
			[]error{codec.ErrDecode}, `codec TypedJsonJackson: cannot decode: a string into Go type int`},
		{"Decode without a pointer", func() error { return codec.JsonJackson(nil).Decode([]byte(`1`), 1) },
			[]error{codec.ErrDecode}, `codec JsonJackson: cannot decode: Decode needs a non-nil pointer, got int`},
		{"Long", func() error { return codec.Long().Decode([]byte("4x"), new(int64)) },
			[]error{codec.ErrDecode}, `codec Long: cannot decode: "4x" is not a decimal long`},
		{"String", func() error { return codec.String().Decode([]byte("x"), new(int)) },
			[]error{codec.ErrDecode}, `codec String: cannot decode: into Go type int (want a string, []byte, any, time.Duration or a TextUnmarshaler)`},
		{"ByteArray", func() error { return codec.ByteArray().Decode([]byte("x"), new(int)) },
			[]error{codec.ErrDecode}, `codec ByteArray: cannot decode: into Go type int (want []byte, a string or any)`},
		{"JsonJackson unsupported type", func() error { _, err := codec.JsonJackson(nil).Encode(time.Second); return err },
			[]error{codec.ErrEncode, codec.ErrUnsupportedType},
			`codec JsonJackson: cannot encode: unsupported Go type time.Duration: ` +
				`Redisson's mapper refuses java.time.Duration (no jackson-datatype-jsr310 module); store an integer with its unit in the name, e.g. d.Milliseconds()`},
		{"JsonJackson value beyond Java", func() error { _, err := codec.JsonJackson(nil).Encode([]uint64{1 << 63}); return err },
			[]error{codec.ErrEncode}, `codec JsonJackson: cannot encode: []uint64: at [0]: 9223372036854775808 does not fit a Java long`},
		{"String unsupported type", func() error { _, err := codec.String().Encode(make(chan int)); return err },
			[]error{codec.ErrEncode, codec.ErrUnsupportedType},
			`codec String: cannot encode: unsupported Go type chan int: no text form (want a string, a number, a boolean, a time or a TextMarshaler)`},
		{"Long", func() error { _, err := codec.Long().Encode("42"); return err },
			[]error{codec.ErrEncode, codec.ErrUnsupportedType}, `codec Long: cannot encode: unsupported Go type string (want an integer)`},
		{"ByteArray", func() error { _, err := codec.ByteArray().Encode(42); return err },
			[]error{codec.ErrEncode, codec.ErrUnsupportedType}, `codec ByteArray: cannot encode: unsupported Go type int (want []byte)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			require.EqualError(t, err, tc.want)
			for _, s := range tc.is {
				require.ErrorIs(t, err, s)
			}
			for _, s := range []error{codec.ErrEncode, codec.ErrDecode, codec.ErrWrongClass, codec.ErrUnsupportedType} {
				require.Equal(t, slicesContain(tc.is, s), errors.Is(err, s), "errors.Is(err, %v)", s)
			}
			require.NotContains(t, err.Error(), "codec:", "no sentinel's package prefix inside the message")
			require.Equal(t, 1, strings.Count(err.Error(), "cannot encode")+strings.Count(err.Error(), "cannot decode"), "the operation once")
		})
	}
}

func slicesContain(list []error, e error) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}
