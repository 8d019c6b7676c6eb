package slot_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/slot"
)

// TestTag follows the hash tag examples of the Redis Cluster specification.
func TestTag(t *testing.T) {
	for _, tc := range []struct{ key, tag string }{
		{"{user1000}.following", "user1000"},
		{"foo{}{bar}", "foo{}{bar}"},
		{"foo{{bar}}zap", "{bar"},
		{"foo{bar}{zap}", "bar"},
		{"orders", "orders"},
		{"x}y", "x}y"},
		{"redisson_lock__channel:{x}y}", "x"},
		{"x{", "x{"},
		{"", ""},
	} {
		require.Equal(t, tc.tag, slot.Tag(tc.key), tc.key)
		require.Equal(t, slot.Of(tc.tag), slot.Of(tc.key), tc.key)
	}
	require.Equal(t, 12739, slot.Of("123456789"), "CRC16/XMODEM check value 0x31C3")
}
