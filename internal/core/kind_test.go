package core_test

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestRefuseHash: the refusal a script makes with the refuse_hash fragment
// (internal/lua) reaches the caller as a *KindError wrapping ErrWrongType
// that says what the hash holds, the same as HashKind says on the Go side
// for the same fields; other error replies keep their meaning.
func TestRefuseHash(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	refuse := core.NewScript("test.refuse", lua.MustText(fstest.MapFS{"refuse.lua": {Data: []byte(
		"-- ours: the shared fragment alone\n{{refuse_hash key=KEYS[1] want=" + core.KindFairLock + "}}")}}, "refuse.lua"))
	for _, tc := range []struct {
		name   string
		fields map[string]any
		holds  string
		kind   string
	}{
		{"read-write lock", map[string]any{"mode": "read", "c:1": "1"}, "a read-write lock", core.KindRWLock},
		{"rate limiter", map[string]any{"rate": "10", "interval": "1000", "type": "0", "keepAliveTime": "0"}, "a rate limiter", core.KindRateLimiter},
		{"lock", map[string]any{"c:1": "1"}, "a lock", core.KindLock},
		{"group multi-lock", map[string]any{"f": "c:1", "f:c:1:expire_time": "1", "f:c:1:lock_count": "1"}, "a group multi-lock", core.KindGroup},
		{"a group's leftovers", map[string]any{"f:c:1:expire_time": "1", "f:c:1:lock_count": "1"}, "a group multi-lock", core.KindGroup},
		{"other", map[string]any{"x": "1", "y": "2"}, "a hash of another kind", core.KindHash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, rdb.Del(ctx, "k").Err())
			require.NoError(t, rdb.HSet(ctx, "k", tc.fields).Err())
			_, err := refuse.Run(ctx, rdb, []string{"k"})
			require.ErrorIs(t, err, core.ErrWrongType)
			require.True(t, core.IsKindError(err))
			var ke *core.KindError
			require.True(t, errors.As(err, &ke))
			require.Equal(t, core.KindError{Holds: tc.holds, Want: "a fair lock"}, *ke)
			require.EqualError(t, err, "key holds "+tc.holds+", not a fair lock")
			var re redis.Error
			require.False(t, errors.As(err, &re), "not a Redis error reply any more")

			h := map[string]string{}
			for f, v := range tc.fields {
				h[f] = v.(string)
			}
			require.Equal(t, tc.kind, core.HashKind(h), "Go and Lua say the same")
		})
	}

	// Other replies keep their meaning: WRONGTYPE is the bare sentinel, an
	// unknown reply names the script, a reply that only starts like ours
	// is not one.
	wrongType := core.NewScript("test.wrongtype", `return redis.call('hlen', KEYS[1])`)
	require.NoError(t, rdb.Set(ctx, "s", "1", 0).Err())
	_, err := wrongType.Run(ctx, rdb, []string{"s"})
	require.Equal(t, core.ErrWrongType, err)
	for _, reply := range []string{"ERR something", "WRONGKIND", "WRONGKINDS rwlock lock"} {
		other := core.NewScript("test.other", `return redis.error_reply('`+reply+`')`)
		_, err = other.Run(ctx, rdb, nil)
		require.Error(t, err)
		require.False(t, core.IsKindError(err), reply)
		require.NotErrorIs(t, err, core.ErrWrongType, reply)
		require.Contains(t, err.Error(), "script test.other", reply)
	}
}
