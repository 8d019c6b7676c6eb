package javanum

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// JavaPlain is BigDecimal.valueOf(d).toPlainString(): Double.toString's
// digits ("1.0E-5": unscaled 10, scale 6) written without an exponent. The
// records hold 1.5, 9.0 and 0.5; the rest follow from Java's documented
// layouts (not run against a JVM here).
func TestJavaPlain(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "0.0"}, // BigDecimal has no negative zero
		{9, "9.0"},
		{1.5, "1.5"},
		{0.5, "0.5"},
		{-2.5, "-2.5"},
		{0.001, "0.001"},
		{1234567.25, "1234567.25"},
		{1e7, "10000000"},
		{123456789.5, "123456789.5"},
		{1e20, "100000000000000000000"},
		{1e-5, "0.000010"},
		{1.25e-5, "0.0000125"},
		{-3e-4, "-0.00030"},
	} {
		require.Equal(t, tc.want, JavaPlain(tc.f, 64), "%v", tc.f)
	}
	require.Equal(t, "0.1", JavaPlain(float64(float32(0.1)), 32))
}

func TestDeltaText(t *testing.T) {
	for _, tc := range []struct {
		delta any
		want  string
	}{
		{int32(5), "5"},
		{int64(-3), "-3"},
		{uint8(7), "7"},
		{0.5, "0.5"},
		{2.0, "2.0"},
		{"1.25", "1.25"},
	} {
		got, err := DeltaText(tc.delta)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	for _, bad := range []any{nil, "1e3", "+1", "x", struct{}{}} {
		_, err := DeltaText(bad)
		require.Error(t, err, "%v", bad)
	}
}

// TestJavaDouble: Double.toString's layouts, as StringCodec writes them.
func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {9, "9.0"}, {0.01, "0.01"}, {0.001, "0.001"}, {1e-4, "1.0E-4"}, {1.5e-5, "1.5E-5"},
		{9999999, "9999999.0"}, {1e7, "1.0E7"}, {1.25e20, "1.25E20"}, {-2.5, "-2.5"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"},
	} {
		require.Equal(t, tc.want, JavaDouble(tc.f), "%v", tc.f)
	}
}
