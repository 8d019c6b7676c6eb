package keys_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/keys"
)

// TestGroupMultiLockFieldAppendixA1 checks GroupMultiLockField against the
// ids of protocol Appendix A.1 (the hash itself is tested in
// internal/highway).
func TestGroupMultiLockFieldAppendixA1(t *testing.T) {
	for _, tc := range []struct{ value, id string }{
		{"", "t6rZwibGo2uy1OSmNVe8pg"},
		{"Jack_001", "7pNoDdizVy2xY792MaFv+w"},
		{"Mary_002", "kIX2DFOX4IWct7G7K6tV9A"},
		{"0123456789abcdef0123456789abcdef-and-more", "a35aFaN77iZnEsJ1NqjLmA"},
	} {
		t.Run(fmt.Sprintf("%q", tc.value), func(t *testing.T) {
			require.Equal(t, tc.id, keys.GroupMultiLockField([]byte(tc.value)))
		})
	}
}
