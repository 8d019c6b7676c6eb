package fairlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
)

// TestForceUnlockDeletesOnlyLocks: ForceUnlock deletes a lock's hash and
// wakes the queue's head, answers false for no key, and refuses a lock key
// of any other type, or a queue or timeout key of another type than a list
// or a zset, with ErrWrongType naming the key and its type. A refusal
// changes nothing, not even a stale head that the script would otherwise
// drop, and publishes nothing (Redisson's DEL would remove a lock key of
// any type).
func TestForceUnlockDeletesOnlyLocks(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	// enqueue puts a waiter that is not running in key's queue, stale at
	// the given offset from now.
	enqueue := func(t *testing.T, key, waiter string, stale time.Duration) {
		require.NoError(t, raw.RPush(ctx, keys.FairLockQueue(key), waiter).Err())
		score := float64(time.Now().Add(stale).UnixMilli())
		require.NoError(t, raw.ZAdd(ctx, keys.FairLockTimeout(key), redis.Z{Score: score, Member: waiter}).Err())
	}
	hold := func(t *testing.T, key string) *fairlock.Hold {
		h, err := c.FairLock(key).Lock(ctx)
		require.NoError(t, err)
		return h
	}

	tests := []struct {
		name    string
		setup   func(t *testing.T, key string) *fairlock.Hold
		want    bool
		wantErr error
		detail  func(key string) string
		// woken is the queued waiter the unlock message goes to ("": none).
		woken string
	}{
		{name: "string key", setup: func(t *testing.T, key string) *fairlock.Hold {
			require.NoError(t, raw.Set(ctx, key, "x", 0).Err())
			return nil
		}, wantErr: redisson.ErrWrongType, detail: func(key string) string { return key + " holds a string, not a hash" }},
		{name: "list key", setup: func(t *testing.T, key string) *fairlock.Hold {
			require.NoError(t, raw.RPush(ctx, key, "a", "b").Err())
			return nil
		}, wantErr: redisson.ErrWrongType, detail: func(key string) string { return key + " holds a list, not a hash" }},
		{name: "set key", setup: func(t *testing.T, key string) *fairlock.Hold {
			require.NoError(t, raw.SAdd(ctx, key, "m").Err())
			return nil
		}, wantErr: redisson.ErrWrongType, detail: func(key string) string { return key + " holds a set, not a hash" }},
		{name: "string key with a stale head", setup: func(t *testing.T, key string) *fairlock.Hold {
			require.NoError(t, raw.Set(ctx, key, "x", 0).Err())
			enqueue(t, key, "ghost:1", -time.Minute)
			return nil
		}, wantErr: redisson.ErrWrongType, detail: func(key string) string { return key + " holds a string, not a hash" }},
		{name: "held, queue is a string", setup: func(t *testing.T, key string) *fairlock.Hold {
			h := hold(t, key)
			require.NoError(t, raw.Set(ctx, keys.FairLockQueue(key), "x", 0).Err())
			return h
		}, wantErr: redisson.ErrWrongType, detail: func(key string) string {
			return keys.FairLockQueue(key) + " holds a string, not a list"
		}},
		{name: "held, timeout is a set", setup: func(t *testing.T, key string) *fairlock.Hold {
			h := hold(t, key)
			require.NoError(t, raw.SAdd(ctx, keys.FairLockTimeout(key), "x").Err())
			return h
		}, wantErr: redisson.ErrWrongType, detail: func(key string) string {
			return keys.FairLockTimeout(key) + " holds a set, not a zset"
		}},
		{name: "held lock", setup: hold, want: true},
		{name: "held lock with a waiter", setup: func(t *testing.T, key string) *fairlock.Hold {
			h := hold(t, key)
			enqueue(t, key, "waiter:7", time.Minute)
			return h
		}, want: true, woken: "waiter:7"},
		{name: "absent", setup: func(t *testing.T, key string) *fairlock.Hold { return nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			key := "force:" + tc.name
			h := tc.setup(t, key)
			before := allKeys(t, raw)
			msgs := redistest.Capture(t, raw)

			deleted, err := c.FairLock(key).ForceUnlock(ctx)
			require.Equal(t, tc.want, deleted)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Contains(t, err.Error(), `fair lock "`+key+`": force unlock: `)
				require.Contains(t, err.Error(), tc.detail(key))
				require.Equal(t, before, allKeys(t, raw), "nothing changed")
				require.Empty(t, msgs.Drain(t), "nothing published")
				if h != nil {
					require.Nil(t, h.Err(), "the hold goes on")
					require.NoError(t, raw.Del(ctx, keys.FairLockQueue(key), keys.FairLockTimeout(key)).Err())
					require.NoError(t, h.Unlock(ctx), "and ends with its unlock once the keys are out of the way")
				}
				return
			}
			require.NoError(t, err)
			require.Zero(t, raw.Exists(ctx, key).Val())
			var want []redistest.Message
			if tc.woken != "" {
				want = []redistest.Message{{Channel: keys.FairLockChannel(key, tc.woken), Payload: "0"}}
			}
			require.Equal(t, want, msgs.Drain(t))
			if h != nil {
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

// allKeys returns every key with its serialized value, to compare the whole
// state before and after a call; the clients' registration records are not
// part of it.
func allKeys(t *testing.T, raw *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	names := redistest.Keys(t, raw, "*")
	out := map[string]string{}
	for _, k := range names {
		v, err := raw.Dump(ctx, k).Result()
		require.NoError(t, err)
		out[k] = v
	}
	return out
}
