package objinfo_test

import (
	"testing"

	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// TestLibraryText: the release version first, the build's module version
// when it says more; a record older than the version field shows the
// module version alone.
func TestLibraryText(t *testing.T) {
	for _, tc := range []struct {
		library, version, want string
	}{
		{"(devel)", "0.1.0", "v0.1.0 (devel)"},
		{"v0.1.0", "0.1.0", "v0.1.0"},
		{"v0.1.1-0.20261201120000-abcdef123456", "0.1.0", "v0.1.0 v0.1.1-0.20261201120000-abcdef123456"},
		{"v0.0.9", "", "v0.0.9"},
		{"", "0.1.0", "v0.1.0"},
	} {
		c := objinfo.ClientInfo{Library: tc.library, Version: tc.version}
		if got := c.LibraryText(); got != tc.want {
			t.Errorf("Library %q Version %q: %q, want %q", tc.library, tc.version, got, tc.want)
		}
	}
}
