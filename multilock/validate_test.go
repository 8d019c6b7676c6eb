package multilock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// keyState is what a key holds, enough to tell whether a call changed it:
// its type, its serialized value and whether it has a TTL (the TTL itself
// counts down between two snapshots).
type keyState struct {
	typ, dump string
	expires   bool
}

// snapshot returns every key of rdb but those starting with one of skip
// and the clients' registration records.
func snapshot(t *testing.T, rdb *redis.Client, skip ...string) map[string]keyState {
	t.Helper()
	ctx := context.Background()
	keys := redistest.Keys(t, rdb, "*")
	out := make(map[string]keyState, len(keys))
next:
	for _, k := range keys {
		for _, p := range skip {
			if strings.HasPrefix(k, p) {
				continue next
			}
		}
		typ, err := rdb.Type(ctx, k).Result()
		require.NoError(t, err)
		dump, err := rdb.Dump(ctx, k).Result()
		require.NoError(t, err)
		ttl, err := rdb.PTTL(ctx, k).Result()
		require.NoError(t, err)
		out[k] = keyState{typ: typ, dump: dump, expires: ttl >= 0}
	}
	return out
}

// A set that can never be taken is refused without touching the members:
// an empty-named member before any member is sent anything, a member whose
// key holds another Redis type at once (not when ctx ends), with what was
// taken before it given back. Only the unlock latches of such give-backs
// may be left (they make a retried release safe, and expire on their own).
func TestRefusedSetLeavesRedisAsItWas(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	require.NoError(t, raw.Set(ctx, "unrelated", "v", 0).Err())
	require.NoError(t, raw.Set(ctx, "str", "not a lock", 0).Err())
	require.NoError(t, raw.Set(ctx, "str2", "not a lock either", time.Hour).Err())
	require.NoError(t, raw.RPush(ctx, "list", "x").Err())
	const latches = "redisson_unlock_latch:"

	for _, tc := range []struct {
		name string
		m    *multilock.Lock
		want error
		// skip: key prefixes a refusal may leave (the latches of members
		// given back); none when nothing may be sent at all.
		skip []string
	}{
		{"empty name last", multilock.New(c.Lock("a"), c.Lock("b"), c.Lock("")), redisson.ErrInvalidName, nil},
		{"empty name first", multilock.New(c.Lock(""), c.Lock("a")), redisson.ErrInvalidName, nil},
		{"empty fair lock", multilock.New(c.Lock("a"), c.FairLock("")), redisson.ErrInvalidName, nil},
		{"empty read lock", multilock.New(c.Lock("a"), c.ReadWriteLock("").ReadLock()), redisson.ErrInvalidName, nil},
		{"empty write lock", multilock.New(c.Lock("a"), c.ReadWriteLock("").WriteLock()), redisson.ErrInvalidName, nil},
		{"empty RedLock member", multilock.NewRedLock(c.Lock("a"), c.Lock("b"), c.Lock("")), redisson.ErrInvalidName, nil},
		{"string at the first member", multilock.New(c.Lock("str"), c.Lock("a")), redisson.ErrWrongType, []string{latches}},
		{"string at the last member", multilock.New(c.Lock("a"), c.Lock("b"), c.Lock("str")), redisson.ErrWrongType, []string{latches}},
		{"string at a fair lock", multilock.New(c.Lock("a"), c.FairLock("str")), redisson.ErrWrongType, []string{latches}},
		{"list at a read lock", multilock.New(c.Lock("a"), c.ReadWriteLock("list").ReadLock()), redisson.ErrWrongType, []string{latches}},
		{"list at a write lock", multilock.New(c.ReadWriteLock("b").ReadLock(), c.ReadWriteLock("list").WriteLock()), redisson.ErrWrongType, []string{latches}},
		{"RedLock below its quorum", multilock.NewRedLock(c.Lock("a"), c.Lock("str"), c.Lock("str2")), redisson.ErrWrongType, []string{latches}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, call := range []struct {
				name string
				do   func(ctx context.Context) error
			}{
				{"TryLock", func(ctx context.Context) error {
					_, ok, err := tc.m.TryLock(ctx)
					require.False(t, ok)
					return err
				}},
				{"TryLock WithWait", func(ctx context.Context) error {
					_, ok, err := tc.m.TryLock(ctx, multilock.WithWait(time.Minute))
					require.False(t, ok)
					return err
				}},
				{"Lock", func(ctx context.Context) error {
					_, err := tc.m.Lock(ctx)
					return err
				}},
				{"Lock WithLease", func(ctx context.Context) error {
					_, err := tc.m.Lock(ctx, multilock.WithLease(time.Minute))
					return err
				}},
			} {
				before := snapshot(t, raw, tc.skip...)
				// A long deadline: the call must end on the member's error,
				// not on ctx.
				lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
				err := call.do(lctx)
				require.ErrorIs(t, err, tc.want, call.name)
				require.NoError(t, lctx.Err(), "%s returned when its context ended", call.name)
				cancel()
				require.Equal(t, before, snapshot(t, raw, tc.skip...), "%s changed Redis", call.name)
				require.Zero(t, c.Stats().Leases, "%s left a lease", call.name)
			}
		})
	}
}

// A RedLock that can reach its quorum without the member of the wrong type
// goes on with the others.
func TestRedLockToleratesOneWrongTypeMember(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, raw.Set(ctx, "str", "not a lock", 0).Err())
	members := []lockable.Lock{c.Lock("a"), c.Lock("str"), c.Lock("b")}
	h, err := multilock.NewRedLock(members...).Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, h.Held())
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, "not a lock", raw.Get(ctx, "str").Val())
}
