package multilock_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// TestGroupStaleConnKeepsOverlappingHold: owner X holds {a,b} (once or
// twice) and re-enters {a} over a dedicated connection the server has
// closed (CLIENT KILL of exactly X's client's connections), so the acquire
// fails with a *conns.StaleConnError and the engine's stale-connection
// recovery runs. That recovery reads X's count of {a} and takes "one more
// than the {a} holds we know of" as proof that the script ran; with X's
// {a,b} hold counting on a that proof is false (depth 1: the new {a} hold
// would claim a without the script having run, and its unlock would free a
// under the live {a,b} hold). When the count matches neither outcome it
// undoes the acquire, which would decrement a under the {a,b} holds (depth
// 2). The group's Overlaps hook must stop both: nothing about the group
// reaches Redis, X's holds stay intact and valid, and nobody else can take
// a or b until X lets go.
func TestGroupStaleConnKeepsOverlappingHold(t *testing.T) {
	for _, depth := range []int{1, 2} {
		t.Run(map[int]string{1: "resolve by counts", 2: "undo"}[depth], func(t *testing.T) {
			testGroupStaleConn(t, depth)
		})
	}
}

func testGroupStaleConn(t *testing.T, depth int) {
	const group, warmGroup, name = "stale-group", "warm-group", "stale-x"
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	rdb := redistest.Client(t, srv, func(o *redis.Options) {
		// Names X's client's connections, so that only they are killed.
		o.ClientName = name
		o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	})
	c1, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c1.Close() })
	c3 := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	// X holds {a,b} depth times.
	var holds []*multilock.GroupHold
	var opts []multilock.Option
	for range depth {
		h, ok, err := c1.MultiLockGroup(group, "a", "b").TryLock(ctx, opts...)
		require.NoError(t, err)
		require.True(t, ok)
		holds = append(holds, h)
		opts = []multilock.Option{multilock.WithOwner(h.Owner())}
	}
	x := holds[0].Owner()
	me := c1.ID() + ":" + strconv.FormatInt(x, 10)
	fa, fb := keys.GroupMultiLockField([]byte("a")), keys.GroupMultiLockField([]byte("b"))
	countOf := func(f string) string { return admin.HGet(ctx, group, f+":"+me+":lock_count").Val() }
	require.Equal(t, strconv.Itoa(depth), countOf(fa))
	require.Equal(t, strconv.Itoa(depth), countOf(fb))
	before := withoutExpiry(admin.HGetAll(ctx, group).Val())

	// killX closes every connection of X's client but a subscriber's,
	// the dedicated lock connections among them.
	killX := func() {
		list, err := admin.ClientList(ctx).Result()
		require.NoError(t, err)
		killed := 0
		for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
			f := clientFields(line)
			if f["name"] != name || strings.Contains(f["flags"], "P") {
				continue
			}
			require.NoError(t, admin.Do(ctx, "CLIENT", "KILL", "ID", f["id"]).Err())
			killed++
		}
		require.Positive(t, killed, "X's client has connections")
	}

	// The stale path needs the acquire to go down a dedicated connection
	// that was used within the last 500ms (else it goes back to the pool,
	// whose probe finds it closed) and that has been in the pool before
	// (a fresh one is given back after its first command). Two lock and
	// unlock rounds on another group leave such a connection the most
	// recently used, then the kill, then the re-entry at once. A slow
	// machine may miss the 500ms: then the re-entry took the normal path
	// (the script ran, a counts depth+1) and is undone by its own unlock,
	// and the test tries again.
	var stale *conns.StaleConnError
	reached := false
	for try := 1; try <= 5 && !reached; try++ {
		var h *multilock.GroupHold
		var ok bool
		var err error
		sent := redistest.Sent(t, srv, admin, func() {
			for range 2 {
				hw, ok, err := c1.MultiLockGroup(warmGroup, "w").TryLock(ctx)
				require.NoError(t, err)
				require.True(t, ok)
				require.NoError(t, hw.Unlock(ctx))
			}
			killX()
			h, ok, err = c1.MultiLockGroup(group, "a").TryLock(ctx, multilock.WithOwner(x))
		})
		if err == nil && ok {
			// Either the normal path (the script ran) or the stale path
			// resolved by counts (it did not): Redis tells which.
			require.Equal(t, strconv.Itoa(depth+1), countOf(fa),
				"try %d: the re-entry of {a} reports success but the acquire script never ran "+
					"(resolved by the counts of the overlapping {a,b} hold)", try)
			require.NoError(t, h.Unlock(ctx))
			require.Equal(t, strconv.Itoa(depth), countOf(fa))
			t.Logf("try %d: the re-entry did not meet the killed connection; again", try)
			continue
		}
		require.False(t, ok)
		require.Truef(t, errors.As(err, &stale), "try %d: want a stale-connection error, got %v", try, err)
		reached = true
		t.Logf("try %d reached the stale-connection path: %v", try, err)
		// Nothing about the group reached Redis after the kill: not the
		// acquire (its connection was closed), no count read, no undo.
		require.Empty(t, redistest.Mentioning(sent, group),
			"the stale acquire of {a} must be neither resolved by counts nor undone")
	}
	require.True(t, reached, "the stale-connection path was never reached")

	// X's holds are intact in Redis and valid.
	require.Equal(t, before, withoutExpiry(admin.HGetAll(ctx, group).Val()))
	require.Positive(t, admin.PTTL(ctx, group).Val())
	for i, h := range holds {
		require.NoError(t, h.Err(), "hold %d", i)
	}
	held, err := c1.MultiLockGroup(group, "a", "b").IsHeldByOwner(ctx, x)
	require.NoError(t, err)
	require.True(t, held)

	// Nobody else takes a or b while X holds; each of X's unlocks but the
	// last keeps them X's.
	requireTaken := func(when string) {
		t.Helper()
		for _, values := range [][]string{{"a"}, {"b"}, {"a", "b"}} {
			for _, c := range []*redisson.Client{c3, c1} {
				h, ok, err := c.MultiLockGroup(group, values...).TryLock(ctx)
				require.NoError(t, err)
				if ok {
					_ = h.Unlock(ctx)
				}
				require.False(t, ok, "%s: another owner took %v while X holds {a,b}", when, values)
			}
		}
	}
	requireTaken("after the stale acquire")
	for i := len(holds) - 1; i > 0; i-- {
		require.NoError(t, holds[i].Unlock(ctx))
		require.NoError(t, holds[0].Err())
		requireTaken("after X's unlock of hold " + strconv.Itoa(i))
	}
	require.NoError(t, holds[0].Unlock(ctx))
	require.Equal(t, int64(0), admin.Exists(ctx, group).Val(), "X's last unlock leaves nothing behind")
	h3, ok, err := c3.MultiLockGroup(group, "a", "b").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, h3.Unlock(ctx))
}

// withoutExpiry drops the group hash's expiry fields, which a watchdog
// renewal may move.
func withoutExpiry(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if !strings.HasSuffix(k, ":expire_time") {
			out[k] = v
		}
	}
	return out
}

// clientFields parses one CLIENT LIST line ("id=5 addr=... name=...").
func clientFields(line string) map[string]string {
	out := make(map[string]string)
	for _, kv := range strings.Fields(line) {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}
