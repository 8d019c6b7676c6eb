package classify_test

import (
	"testing"

	"github.com/goredisson/redisson/internal/cli/classify"
)

// TestCompanion: the derived keys and what is not one.
func TestCompanion(t *testing.T) {
	const cid = "c0ffee00-0000-4000-8000-000000000001"
	for _, tc := range []struct {
		key, typ, owner string
	}{
		{"redisson_lock_queue:{orders}", "list", "orders"},
		{"redisson_lock_queue:{orders}", "string", ""},
		{"redisson_lock_timeout:{t}x", "zset", "{t}x"},
		{"redisson_lock_token:{a:b}", "string", "a:b"},
		{"redisson_unlock_latch:{orders}:0123456789abcdef0123456789abcdef", "string", "orders"},
		{"{orders}:" + cid + ":7:rwlock_timeout:2", "string", "orders"},
		{"{orders}:timeout", "zset", "orders"},
		{"{orders}:timeout", "hash", ""},
		{"{api}:value", "string", "api"},
		{"{api}:value:" + cid, "string", "api"},
		{"{api}:permits:" + cid, "zset", "api"},
		{"{api}:permits", "zset", "api"},
		{"plain:timeout", "zset", ""}, // no braces: not a derived key
		{"orders", "hash", ""},
	} {
		owner, ok := classify.Companion(tc.key, tc.typ)
		if owner != tc.owner || ok != (tc.owner != "") {
			t.Errorf("Companion(%q, %s) = %q, %v; want %q", tc.key, tc.typ, owner, ok, tc.owner)
		}
	}
}
