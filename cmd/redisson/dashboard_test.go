package main

import (
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
)

// TestDashboardFlags: a listen address that is not loopback needs a token,
// and a token needs 16 bytes at least.
func TestDashboardFlags(t *testing.T) {
	t.Parallel()
	url, _ := server(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "is not a loopback address: give --token"},
		{[]string{"--listen", ":0"}, "is not a loopback address"},
		{[]string{"--listen", "nope"}, "--listen"},
		{[]string{"--interval", "1ms"}, "--interval must be at least"},
		{[]string{"extra"}, "no arguments expected"},
		{[]string{"--token", "short-token-15b"}, "--token (or $REDISSON_DASHBOARD_TOKEN) is too short: 15 byte(s), at least 16 needed"},
		{[]string{"--listen", "0.0.0.0:0", "--token", "x"}, "is too short: 1 byte(s), at least 16 needed"},
	} {
		r := cli(t, 30*time.Second, append([]string{"dashboard", "--redis", url}, tc.args...)...)
		if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("dashboard %v: want exit 2 and %q:\n%v", tc.args, tc.want, r)
		}
	}
}
