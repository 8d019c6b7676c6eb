package cliflag_test

import (
	"testing"

	"github.com/goredisson/redisson/internal/cli/cliflag"
)

// TestVisible: printable names are printed as they are; any other is
// quoted with its control characters escaped, so that nothing reaches the
// terminal raw and no name spans two lines.
func TestVisible(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"orders:42", "orders:42"},
		{"jobs:{nightly}", "jobs:{nightly}"},
		{"заказ:7 ünïcode €", "заказ:7 ünïcode €"},
		{`back\slash`, `back\slash`},
		{`mid"quote`, `mid"quote`},
		{"", ""},
		{"\x1b[31mred\x1b[0m", `"\x1b[31mred\x1b[0m"`},
		{"\x1b]0;title\a", `"\x1b]0;title\a"`},
		{"bell\a", `"bell\a"`},
		{"orders:99 lock held spoofed-row\nx", `"orders:99 lock held spoofed-row\nx"`},
		{"cr\rtab\t", `"cr\rtab\t"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{"del\x7f", `"del\x7f"`},
		{"c1\u009b31m", `"c1\u009b31m"`},
		{"rtl\u202eevil", `"rtl\u202eevil"`},
		{`"quoted"`, `"\"quoted\""`},
	} {
		if got := cliflag.Visible(tc.in); got != tc.want {
			t.Errorf("Visible(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
