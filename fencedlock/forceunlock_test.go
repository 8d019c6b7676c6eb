package fencedlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
)

// TestForceUnlockDeletesOnlyLocks: ForceUnlock deletes a lock's hash (the
// token counter stays) and publishes the unlock message, answers false for
// no key, and refuses a key of any other type with ErrWrongType naming the
// key and its type, changing nothing and publishing nothing (Redisson's DEL
// would remove it).
func TestForceUnlockDeletesOnlyLocks(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	tests := []struct {
		name    string
		setup   func(t *testing.T, key string) *fencedlock.Hold
		want    bool
		wantErr error
		detail  string
	}{
		{"string key", func(t *testing.T, key string) *fencedlock.Hold {
			require.NoError(t, raw.Set(ctx, key, "x", 0).Err())
			return nil
		}, false, redisson.ErrWrongType, "holds a string, not a hash"},
		{"list key", func(t *testing.T, key string) *fencedlock.Hold {
			require.NoError(t, raw.RPush(ctx, key, "a", "b").Err())
			return nil
		}, false, redisson.ErrWrongType, "holds a list, not a hash"},
		{"set key", func(t *testing.T, key string) *fencedlock.Hold {
			require.NoError(t, raw.SAdd(ctx, key, "m").Err())
			return nil
		}, false, redisson.ErrWrongType, "holds a set, not a hash"},
		{"held lock", func(t *testing.T, key string) *fencedlock.Hold {
			h, err := c.FencedLock(key).Lock(ctx)
			require.NoError(t, err)
			return h
		}, true, nil, ""},
		{"absent", func(t *testing.T, key string) *fencedlock.Hold { return nil }, false, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			key := "force:" + tc.name
			h := tc.setup(t, key)
			before := dump(t, raw)
			msgs := redistest.Capture(t, raw)

			deleted, err := c.FencedLock(key).ForceUnlock(ctx)
			require.Equal(t, tc.want, deleted)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Contains(t, err.Error(), `fenced lock "`+key+`": force unlock: `)
				require.Contains(t, err.Error(), key+" "+tc.detail)
				require.Equal(t, before, dump(t, raw), "nothing changed")
				require.Empty(t, msgs.Drain(t), "nothing published")
				return
			}
			require.NoError(t, err)
			require.Zero(t, raw.Exists(ctx, key).Val())
			var want []redistest.Message
			if tc.want {
				want = []redistest.Message{{Channel: keys.LockChannel(key), Payload: "0"}}
			}
			require.Equal(t, want, msgs.Drain(t))
			if h != nil {
				require.Equal(t, itoa(h.Token()), raw.Get(ctx, keys.FencedLockToken(key)).Val(), "the token counter stays")
				select {
				case <-h.Done():
				case <-time.After(5 * time.Second):
					t.Fatal("the force-unlocked hold did not end")
				}
				require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
			}
		})
	}
}
