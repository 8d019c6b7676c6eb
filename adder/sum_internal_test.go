package adder

import "testing"

// TestSumFloatsText: a double adder's count goes to INCRBYFLOAT as
// Redisson's getAndAdd writes it, BigDecimal.valueOf(sum).toPlainString(),
// outside Double.toString's plain range too.
func TestSumFloatsText(t *testing.T) {
	for _, tc := range []struct {
		local []string
		want  string
	}{
		{[]string{"1.5", "2"}, "3.5"},
		{[]string{"0"}, "0.0"},
		{[]string{"5000000", "5000000"}, "10000000"},
		{[]string{"1e20"}, "100000000000000000000"},
		{[]string{"0.0001"}, "0.00010"},
		{[]string{"-2.5", "-0.5"}, "-3.0"},
		{[]string{"+Inf"}, "+Inf"}, // no BigDecimal: Redis refuses it
	} {
		if got := sumFloats(tc.local); got != tc.want {
			t.Errorf("sumFloats(%q) = %q, want %q", tc.local, got, tc.want)
		}
	}
}
