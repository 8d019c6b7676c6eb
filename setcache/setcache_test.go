package setcache_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/setcache"
)

// noCleanUp keeps the clean-up from running during a test that looks at
// expired members still stored.
var noCleanUp = redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Hour})

func newClient(t *testing.T, opts ...redisson.Option) (*redisson.Client, *redis.Client, *redistest.Server) {
	t.Helper()
	srv := redistest.StartServer(t)
	return redissontest.ClientAt(t, srv.Addr(), opts...), redistest.Client(t, srv), srv
}

// score reads member's score over a raw connection, and whether it is
// stored.
func score(t *testing.T, raw redis.Cmdable, key, member string) (float64, bool) {
	t.Helper()
	f, err := raw.ZScore(t.Context(), key, member).Result()
	if errors.Is(err, redis.Nil) {
		return 0, false
	}
	require.NoError(t, err)
	return f, true
}

func readAll(t *testing.T, s *setcache.SetCache[string]) []string {
	t.Helper()
	all, err := s.ReadAll(t.Context())
	require.NoError(t, err)
	return all
}

func iterate(t *testing.T, s *setcache.SetCache[string], opts ...setcache.ScanOption) []string {
	t.Helper()
	var out []string
	for v, err := range s.All(t.Context(), opts...) {
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

// What Add, AddTTL and AddAll store: the member, scored with its expiry
// in ms (NoExpiry without a TTL); a re-add of a live member reports false
// and moves its score.
func TestAddScores(t *testing.T) {
	c, raw, _ := newClient(t, noCleanUp)
	ctx := t.Context()
	s := redisson.NewSetCache[string](c, "sc", codec.String())

	before := time.Now().UnixMilli()
	added, err := s.AddTTL(ctx, "a", time.Minute)
	require.NoError(t, err)
	require.True(t, added)
	f, ok := score(t, raw, "sc", "a")
	require.True(t, ok)
	require.InDelta(t, float64(before+60_000), f, float64(time.Now().UnixMilli()-before)+1)

	added, err = s.Add(ctx, "a")
	require.NoError(t, err)
	require.False(t, added, "a live member is not new")
	f, _ = score(t, raw, "sc", "a")
	require.Equal(t, float64(setcache.NoExpiry), f, "Add without a TTL clears the member's expiry")

	added, err = s.AddTTL(ctx, "b", 0)
	require.NoError(t, err)
	require.True(t, added)
	f, _ = score(t, raw, "sc", "b")
	require.Equal(t, float64(setcache.NoExpiry), f, "a TTL of 0 is none, as in Java")

	n, err := s.AddAll(ctx, "b", "c", "d")
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "b is live already")
	n, err = s.AddAllTTL(ctx, time.Hour, "d", "e")
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	f, _ = score(t, raw, "sc", "e")
	require.Greater(t, f, float64(before+3_590_000))
	require.Less(t, f, float64(setcache.NoExpiry))
	n, err = s.AddAll(ctx)
	require.NoError(t, err)
	require.Zero(t, n)

	size, err := s.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(5), size)
	// d and e expire in an hour (AddAllTTL sets the expiry of a live
	// member too), the rest never; ties in Redis' byte order.
	require.Equal(t, []string{"d", "e", "a", "b", "c"}, readAll(t, s), "soonest to expire first")
}

// An expired member, still stored because no clean-up ran, is absent to
// every read exactly as Redisson's scripts decide (expiry ≤ now), and a
// re-add reports it new.
func TestExpiredOnReadBeforeCleanUp(t *testing.T) {
	c, raw, _ := newClient(t, noCleanUp)
	ctx := t.Context()
	s := redisson.NewSetCache[string](c, "sc", codec.String())
	_, err := s.AddAll(ctx, "live", "other")
	require.NoError(t, err)
	// What a Java peer's add(v, ttl) leaves once ttl has passed.
	past := time.Now().UnixMilli() - 1000
	require.NoError(t, raw.ZAdd(ctx, "sc", redis.Z{Score: float64(past), Member: "gone"}).Err())
	added, err := s.AddTTL(ctx, "short", 50*time.Millisecond)
	require.NoError(t, err)
	require.True(t, added)
	// Past short's expiry millisecond too: Redisson's size (ZRANGEBYSCORE
	// from now) still counts a member whose expiry is now, where contains
	// already calls it gone.
	shortAt, _ := score(t, raw, "sc", "short")
	redistest.Eventually(t, 5*time.Second, "the 50ms member expired", func() bool {
		in, err := s.Contains(ctx, "short")
		return err == nil && !in && float64(time.Now().UnixMilli()) > shortAt
	})

	for _, m := range []string{"gone", "short"} {
		in, err := s.Contains(ctx, m)
		require.NoError(t, err)
		require.False(t, in, m)
		_, stored := score(t, raw, "sc", m)
		require.True(t, stored, "%s is still stored", m)
	}
	in, err := s.Contains(ctx, "live")
	require.NoError(t, err)
	require.True(t, in)
	size, err := s.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), size)
	require.ElementsMatch(t, []string{"live", "other"}, readAll(t, s))
	require.ElementsMatch(t, []string{"live", "other"}, iterate(t, s))
	require.ElementsMatch(t, []string{"live", "other"}, iterate(t, s, setcache.WithPageSize(1)))

	added, err = s.Add(ctx, "gone")
	require.NoError(t, err)
	require.True(t, added, "an expired member comes back new")
	n, err := s.AddAll(ctx, "short", "live")
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "short was expired, live was not")
}

// Remove and RemoveAll remove what is stored, expired or not (ZREM).
func TestRemove(t *testing.T) {
	c, raw, _ := newClient(t, noCleanUp)
	ctx := t.Context()
	s := redisson.NewSetCache[string](c, "sc", codec.String())
	_, err := s.AddAll(ctx, "a", "b", "c")
	require.NoError(t, err)
	require.NoError(t, raw.ZAdd(ctx, "sc", redis.Z{Score: 1, Member: "old"}).Err())

	ok, err := s.Remove(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.Remove(ctx, "a")
	require.NoError(t, err)
	require.False(t, ok)
	n, err := s.RemoveAll(ctx, "b", "old", "zz")
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "an expired member is stored, so removed")
	n, err = s.RemoveAll(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, []string{"c"}, raw.ZRange(ctx, "sc", 0, -1).Val())
}

// All walks every live member across pages, honours WithMatch, stops
// when the loop breaks, and refuses a page size below 1.
func TestAll(t *testing.T) {
	c, _, _ := newClient(t, noCleanUp)
	ctx := t.Context()
	s := redisson.NewSetCache[string](c, "sc", codec.String())
	var want []string
	for i := range 25 {
		want = append(want, "m"+strconv.Itoa(i))
	}
	_, err := s.AddAllTTL(ctx, time.Hour, want...)
	require.NoError(t, err)
	require.ElementsMatch(t, want, iterate(t, s, setcache.WithPageSize(3)))
	require.ElementsMatch(t, []string{"m1", "m10", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19"},
		iterate(t, s, setcache.WithMatch("m1*")))
	seen := 0
	for _, err := range s.All(ctx) {
		require.NoError(t, err)
		seen++
		if seen == 2 {
			break
		}
	}
	require.Equal(t, 2, seen)
	for _, err := range s.All(ctx, setcache.WithPageSize(0)) {
		require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	}
}

// Expire, ClearExpire and RemainTimeToLive act on the whole key.
func TestKeyTTL(t *testing.T) {
	c, raw, _ := newClient(t, noCleanUp)
	ctx := t.Context()
	s := redisson.NewSetCache[string](c, "sc", codec.String())
	_, ok, err := s.RemainTimeToLive(ctx)
	require.NoError(t, err)
	require.False(t, ok, "no key")
	ok, err = s.Expire(ctx, time.Minute)
	require.NoError(t, err)
	require.False(t, ok, "no key to expire")

	_, err = s.Add(ctx, "a")
	require.NoError(t, err)
	_, ok, err = s.RemainTimeToLive(ctx)
	require.NoError(t, err)
	require.False(t, ok, "no TTL")
	ok, err = s.Expire(ctx, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	ttl, ok, err := s.RemainTimeToLive(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Greater(t, ttl, 50*time.Second)
	require.LessOrEqual(t, ttl, time.Minute)
	ok, err = s.ClearExpire(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, time.Duration(-1), raw.PTTL(ctx, "sc").Val())
	_, err = s.Expire(ctx, time.Microsecond)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)

	ok, err = s.Delete(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.Delete(ctx)
	require.NoError(t, err)
	require.False(t, ok)
}

// A key of another type: every call fails with ErrWrongType saying what
// the key holds, and nothing changes.
func TestWrongType(t *testing.T) {
	c, raw, _ := newClient(t, noCleanUp)
	ctx := t.Context()
	require.NoError(t, raw.SAdd(ctx, "plain", "x").Err())
	s := redisson.NewSetCache[string](c, "plain", codec.String())
	calls := map[string]func() error{
		"add":      func() error { _, err := s.Add(ctx, "a"); return err },
		"add ttl":  func() error { _, err := s.AddTTL(ctx, "a", time.Second); return err },
		"add all":  func() error { _, err := s.AddAll(ctx, "a", "b"); return err },
		"contains": func() error { _, err := s.Contains(ctx, "x"); return err },
		"remove":   func() error { _, err := s.Remove(ctx, "x"); return err },
		"size":     func() error { _, err := s.Size(ctx); return err },
		"read all": func() error { _, err := s.ReadAll(ctx); return err },
		"iterate": func() error {
			for _, err := range s.All(ctx) {
				return err
			}
			return nil
		},
	}
	for name, call := range calls {
		err := call()
		require.ErrorIs(t, err, redisson.ErrWrongType, name)
		require.ErrorContains(t, err, `set cache "plain"`, name)
		require.ErrorContains(t, err, "holds a set, not a zset", name)
	}
	require.Equal(t, []string{"x"}, raw.SMembers(ctx, "plain").Val())
}

// Bad input is refused before anything is sent.
func TestBadInput(t *testing.T) {
	c, raw, _ := newClient(t, noCleanUp)
	ctx := t.Context()
	s := redisson.NewSetCache[*string](c, "sc", codec.JsonJackson(nil))
	x := "x"
	var nilCtx context.Context
	cases := map[string]func() error{
		"nil member":          func() error { _, err := s.Add(ctx, nil); return err },
		"nil in add all":      func() error { _, err := s.AddAll(ctx, &x, nil); return err },
		"negative ttl":        func() error { _, err := s.AddTTL(ctx, &x, -time.Second); return err },
		"negative ttl (all)":  func() error { _, err := s.AddAllTTL(ctx, -time.Second, &x); return err },
		"sub-millisecond ttl": func() error { _, err := s.AddTTL(ctx, &x, time.Microsecond); return err },
		"nil contains":        func() error { _, err := s.Contains(ctx, nil); return err },
		"nil remove":          func() error { _, err := s.Remove(ctx, nil); return err },
		"nil context":         func() error { _, err := s.Size(nilCtx); return err },
		"empty name": func() error {
			_, err := redisson.NewSetCache[string](c, "", codec.String()).Add(ctx, "a")
			require.ErrorIs(t, err, redisson.ErrInvalidName)
			return redisson.ErrInvalidArgument
		},
		"nil codec":  func() error { _, err := redisson.NewSetCache[string](c, "sc", nil).Add(ctx, "a"); return err },
		"nil source": func() error { _, err := setcache.New[string](nil, "sc", codec.String()).Add(ctx, "a"); return err },
		"nil handle": func() error { var n *setcache.SetCache[string]; _, err := n.Size(ctx); return err },
	}
	for name, call := range cases {
		require.ErrorIs(t, call(), redisson.ErrInvalidArgument, name)
	}
	require.Zero(t, raw.Exists(ctx, "sc").Val(), "nothing was written")
}

// A done context and a closed client stop every call before it is sent.
func TestCancelledAndClosed(t *testing.T) {
	c, raw, _ := newClient(t, noCleanUp)
	s := redisson.NewSetCache[string](c, "sc", codec.String())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.Add(ctx, "a")
	require.ErrorIs(t, err, context.Canceled)
	for _, err := range s.All(ctx) {
		require.ErrorIs(t, err, context.Canceled)
	}
	require.NoError(t, c.Close())
	_, err = s.Add(t.Context(), "a")
	require.ErrorIs(t, err, redisson.ErrClosed)
	_, err = s.Size(t.Context())
	require.ErrorIs(t, err, redisson.ErrClosed)
	_, err = s.SubscribeExpired(t.Context())
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.Zero(t, raw.Exists(t.Context(), "sc").Val())
}

// A Go-only deployment: the client's clean-up removes expired members on
// its own, publishing each on the expired channel to a listener, while
// live ones stay.
func TestCleanUpRemovesExpired(t *testing.T) {
	c, raw, _ := newClient(t, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Second}))
	ctx := t.Context()
	s := redisson.NewSetCache[string](c, "sc", codec.String())
	sub, err := s.SubscribeExpired(ctx)
	require.NoError(t, err)
	defer sub.Close()
	_, err = s.AddTTL(ctx, "live", time.Hour)
	require.NoError(t, err)
	past := float64(time.Now().UnixMilli() - 1000)
	expired := []string{"e1", "e2", "e3"}
	for _, m := range expired {
		require.NoError(t, raw.ZAdd(ctx, "sc", redis.Z{Score: past, Member: m}).Err())
	}
	redistest.Eventually(t, 10*time.Second, "the clean-up removed the expired members", func() bool {
		return raw.ZCard(ctx, "sc").Val() == 1
	})
	require.Equal(t, []string{"live"}, raw.ZRange(ctx, "sc", 0, -1).Val())
	var got []string
	for range expired {
		select {
		case m := <-sub.Messages():
			require.NoError(t, m.Err)
			require.Equal(t, setcache.ExpiredChannel("sc"), m.Channel)
			got = append(got, m.Value)
		case <-time.After(5 * time.Second):
			t.Fatalf("expired messages: got %v", got)
		}
	}
	require.ElementsMatch(t, expired, got)
}

// Two clients of one deployment both clean up the name (each schedules a
// task): together they remove every expired member and announce each
// once. That a run skips while another client's latch is held is
// TestCleanUpLatch's (internal).
func TestCleanUpSharedByTwoClients(t *testing.T) {
	srv := redistest.StartServer(t)
	opt := redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Second})
	c1, c2 := redissontest.ClientAt(t, srv.Addr(), opt), redissontest.ClientAt(t, srv.Addr(), opt)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	s1 := redisson.NewSetCache[string](c1, "sc", codec.String())
	_ = redisson.NewSetCache[string](c2, "sc", codec.String())
	sub, err := s1.SubscribeExpired(ctx)
	require.NoError(t, err)
	defer sub.Close()
	past := float64(time.Now().UnixMilli() - 1000)
	for i := range 20 {
		require.NoError(t, raw.ZAdd(ctx, "sc", redis.Z{Score: past, Member: "e" + strconv.Itoa(i)}).Err())
	}
	redistest.Eventually(t, 10*time.Second, "the clean-up emptied the set", func() bool {
		return raw.Exists(ctx, "sc").Val() == 0
	})
	seen := map[string]int{}
	for range 20 {
		select {
		case m := <-sub.Messages():
			require.NoError(t, m.Err)
			seen[m.Value]++
		case <-time.After(5 * time.Second):
			t.Fatalf("expired messages: got %v", seen)
		}
	}
	for m, n := range seen {
		require.Equal(t, 1, n, m)
	}
	require.Len(t, seen, 20)
}

// On a cluster every call, the scripts and the clean-up (which publishes
// with SPUBLISH there, as Redisson does) reaches the master of the name's
// slot; names spread over all three masters work alike.
func TestCluster(t *testing.T) {
	cl := redissontest.NewCluster(t)
	c := cl.Client(t, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Second}))
	raw := cl.Redis(t)
	ctx := t.Context()
	for i := range 6 {
		name := "sc" + strconv.Itoa(i)
		s := redisson.NewSetCache[string](c, name, codec.String())
		sub, err := s.SubscribeExpired(ctx)
		require.NoError(t, err)
		n, err := s.AddAll(ctx, "a", "b")
		require.NoError(t, err)
		require.Equal(t, int64(2), n)
		in, err := s.Contains(ctx, "a")
		require.NoError(t, err)
		require.True(t, in)
		require.ElementsMatch(t, []string{"a", "b"}, iterate(t, s))
		require.NoError(t, raw.ZAdd(ctx, name, redis.Z{Score: 1, Member: "old"}).Err())
		size, err := s.Size(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(2), size)
		select {
		case m := <-sub.Messages():
			require.NoError(t, m.Err)
			require.Equal(t, "old", m.Value)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no expired message", name)
		}
		require.NoError(t, sub.Close())
		require.ElementsMatch(t, []string{"a", "b"}, raw.ZRange(ctx, name, 0, -1).Val())
	}
}
