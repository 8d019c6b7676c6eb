package core_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestNaming covers docs/protocol.md §1.2: braces only when the name has no '{'.
func TestNaming(t *testing.T) {
	for _, tc := range []struct {
		name, prefixed, suffixed string
	}{
		{"orders", "redisson_lock__channel:{orders}", "{orders}:timeout"},
		{"has:colon", "redisson_lock__channel:{has:colon}", "{has:colon}:timeout"},
		{"{t}x", "redisson_lock__channel:{t}x", "{t}x:timeout"},
		{"a{b}c", "redisson_lock__channel:a{b}c", "a{b}c:timeout"},
		{"a{b", "redisson_lock__channel:a{b", "a{b:timeout"},
		{"a{}b", "redisson_lock__channel:a{}b", "a{}b:timeout"},
		{"}x{", "redisson_lock__channel:}x{", "}x{:timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.prefixed, core.PrefixName("redisson_lock__channel", tc.name))
			require.Equal(t, tc.suffixed, core.SuffixName(tc.name, "timeout"))
			// Nesting never adds a second pair.
			require.Equal(t, tc.suffixed+":x", core.SuffixName(core.SuffixName(tc.name, "timeout"), "x"))
		})
	}
}

func TestOwnerField(t *testing.T) {
	for _, id := range []int64{0, 1, 57, -3, 9223372036854775807, -9223372036854775808} {
		require.Equal(t, fmt.Sprintf("cid:%d", id), core.OwnerField("cid", id))
	}
}

func TestOwnerIDAndName(t *testing.T) {
	seen := map[int64]bool{}
	for range 1000 {
		id := core.NewOwnerID()
		require.Positive(t, id)
		require.False(t, seen[id], "owner ids repeat: %d", id)
		seen[id] = true
	}
	require.ErrorIs(t, core.ValidateName(""), core.ErrInvalidName)
	require.NoError(t, core.ValidateName("x"))
}

// TestSlot compares our CRC16 with the server's CLUSTER KEYSLOT.
func TestSlot(t *testing.T) {
	srv := redistest.StartServer(t, redistest.Options{Cluster: true})
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	require.Equal(t, 105, core.Slot("orders"), "docs/protocol.md §1.4")
	for _, key := range []string{
		"orders", "redisson_lock__channel:{orders}", "{orders}:timeout", "a{b", "redisson_lock__channel:a{b",
		"{tag}x", "a{}b", "{}", "}{", "{a}{b}", "", "héllo", "redisson_unlock_latch:{x}:0123",
	} {
		want, err := rdb.ClusterKeySlot(ctx, key).Result()
		require.NoError(t, err)
		require.Equal(t, int(want), core.Slot(key), "key %q", key)
	}
}

func TestWrapRedisError(t *testing.T) {
	err := core.WrapRedisError("op", redis.Error(proto("WRONGTYPE Operation against a key holding the wrong kind of value")))
	require.ErrorIs(t, err, core.ErrWrongType)
	require.Contains(t, err.Error(), "op")
	other := errors.New("boom")
	require.ErrorIs(t, core.WrapRedisError("op", other), other)
	require.Nil(t, core.WrapRedisError("op", nil))
	require.True(t, core.IsNoScript(errors.New("NOSCRIPT No matching script")))
	require.True(t, core.IsRedirect(errors.New("MOVED 3999 127.0.0.1:6381")))
	require.False(t, core.IsRedirect(errors.New("ERR x")))
	require.True(t, core.IsRedirect(core.WrapRedisError("op", redis.Error(proto("ASK 3999 127.0.0.1:6381")))), "wrapped")
}

type proto string

func (p proto) Error() string { return string(p) }
func (proto) RedisError()     {}
