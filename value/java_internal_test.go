package value

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJavaPlain: numbers are written as Java's
// BigDecimal.valueOf(d).toPlainString() writes them.
func TestJavaPlain(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "0.0"}, {1, "1.0"}, {3, "3.0"}, {1.5, "1.5"}, {-0.75, "-0.75"},
		{2.25, "2.25"}, {0.1, "0.1"}, {0.001, "0.001"}, {1e20, "100000000000000000000"}, {1e7, "10000000"},
		{1.234e7, "12340000"}, {-1.5e-5, "-0.000015"}, {1e-5, "0.000010"}, {9999999, "9999999.0"},
		{1.2345678e-4, "0.00012345678"}, {1e23, "100000000000000000000000"},
	} {
		got, err := javaPlain(tc.in)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%v", tc.in)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := javaPlain(bad)
		require.Error(t, err, "%v", bad)
	}
}

// TestJavaHashOrder: keys come in the iteration order of a java.util.HashMap
// holding them: the first three are the orders of the records' MSET and
// MSETNX (buckets.json); the map of 13 keys, past HashMap's load factor of
// 16 buckets, is a table of 32 (worked out from HashMap's rules, not read
// from Java).
func TestJavaHashOrder(t *testing.T) {
	set := func(keys ...string) map[string]int {
		m := map[string]int{}
		for _, k := range keys {
			m[k] = 0
		}
		return m
	}
	require.Equal(t, []string{"b2", "b1"}, javaHashOrder(set("b1", "b2")))
	require.Equal(t, []string{"b3", "b1"}, javaHashOrder(set("b1", "b3")))
	require.Equal(t, []string{"j1", "j2"}, javaHashOrder(set("j2", "j1")))
	// "Aa" and "BB" share a hash code: one bucket, in name order here.
	require.Equal(t, []string{"Aa", "BB"}, javaHashOrder(set("BB", "Aa")))
	// 13 keys: table of 32; "k" + 'a'..'m' hash 107*31+97.. = 3414.., so
	// their buckets are 22.. and wrap past 31.
	keys := javaHashOrder(set("ka", "kb", "kc", "kd", "ke", "kf", "kg", "kh", "ki", "kj", "kk", "kl", "km"))
	require.Equal(t, []string{"kk", "kl", "km", "ka", "kb", "kc", "kd", "ke", "kf", "kg", "kh", "ki", "kj"}, keys)
}
