package fencedlock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
)

// rawState is what Redis holds for one fenced lock: the hash, its PTTL and
// the token counter.
type rawState struct {
	hashType  string
	fields    map[string]string
	pttl      time.Duration
	tokenType string
	token     string
	tokenPTTL time.Duration
}

func readState(t *testing.T, raw *redis.Client, name string) rawState {
	t.Helper()
	ctx := context.Background()
	tokenKey := "redisson_lock_token:{" + name + "}"
	var s rawState
	var err error
	s.hashType, err = raw.Type(ctx, name).Result()
	require.NoError(t, err)
	if s.hashType == "hash" {
		s.fields = raw.HGetAll(ctx, name).Val()
	}
	s.pttl = raw.PTTL(ctx, name).Val()
	s.tokenType = raw.Type(ctx, tokenKey).Val()
	if s.tokenType == "string" {
		s.token = raw.Get(ctx, tokenKey).Val()
	}
	s.tokenPTTL = raw.PTTL(ctx, tokenKey).Val()
	return s
}

// TestRawStateAfterEachOperation checks Redis after every operation against
// docs/protocol.md §12: the RLock hash (field "<client id>:<owner>" → hold count,
// TTL = lease) and the token counter (a string without TTL, incremented by
// every acquisition, re-entry and hand-off included; kept by unlock and
// force unlock; deleted with the lock by Delete).
func TestRawStateAfterEachOperation(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	const name = "orders"
	lock := c.FencedLock(name)
	field := func(owner int64) string { return c.ID() + ":" + itoa(owner) }
	inRange := func(d, lo, hi time.Duration) bool { return d > lo && d <= hi }

	s := readState(t, raw, name)
	require.Equal(t, "none", s.hashType)
	require.Equal(t, "none", s.tokenType)
	tok, err := lock.Token(ctx)
	require.NoError(t, err)
	require.Zero(t, tok, "never locked: no token")

	// lockAndGetToken(): token 1, watchdog lease.
	h1, err := lock.Lock(ctx, fencedlock.WithOwner(1))
	require.NoError(t, err)
	require.Equal(t, int64(1), h1.Token())
	s = readState(t, raw, name)
	require.Equal(t, map[string]string{field(1): "1"}, s.fields)
	require.True(t, inRange(s.pttl, 29*time.Second, 30*time.Second), "pttl %v", s.pttl)
	require.Equal(t, "1", s.token)
	require.Equal(t, time.Duration(-1), s.tokenPTTL, "the token key has no TTL")

	// Re-entry: a new token, count 2, lease reset.
	h2, err := lock.Lock(ctx, fencedlock.WithOwner(1), fencedlock.WithLease(10*time.Second))
	require.NoError(t, err)
	require.Equal(t, int64(2), h2.Token())
	s = readState(t, raw, name)
	require.Equal(t, map[string]string{field(1): "2"}, s.fields)
	require.True(t, inRange(s.pttl, 9*time.Second, 10*time.Second), "pttl %v", s.pttl)
	require.Equal(t, "2", s.token)
	tok, err = lock.Token(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), tok)

	// Another owner tries once: nothing changes, the token neither.
	_, ok, err := lock.TryLock(ctx, fencedlock.WithOwner(2))
	require.NoError(t, err)
	require.False(t, ok)
	s = readState(t, raw, name)
	require.Equal(t, map[string]string{field(1): "2"}, s.fields)
	require.Equal(t, "2", s.token)

	// Partial unlock: count 1, the lease re-applied, token kept.
	require.NoError(t, h2.Unlock(ctx))
	s = readState(t, raw, name)
	require.Equal(t, map[string]string{field(1): "1"}, s.fields)
	require.Equal(t, "2", s.token)
	require.NoError(t, h1.Err(), "the outer hold lasts")

	// Final unlock: the hash goes, the token stays.
	require.NoError(t, h1.Unlock(ctx))
	s = readState(t, raw, name)
	require.Equal(t, "none", s.hashType)
	require.Equal(t, "2", s.token)
	require.Equal(t, time.Duration(-1), s.tokenPTTL)

	// TryLock with a fixed lease: token 3.
	h3, ok, err := lock.TryLock(ctx, fencedlock.WithOwner(2), fencedlock.WithLease(5*time.Second))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(3), h3.Token())
	s = readState(t, raw, name)
	require.Equal(t, map[string]string{field(2): "1"}, s.fields)
	require.True(t, inRange(s.pttl, 4*time.Second, 5*time.Second), "pttl %v", s.pttl)
	require.Equal(t, "3", s.token)

	// Force unlock: the hash goes, the token stays, the hold is lost.
	deleted, err := lock.ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
	s = readState(t, raw, name)
	require.Equal(t, "none", s.hashType)
	require.Equal(t, "3", s.token)
	require.ErrorIs(t, h3.Err(), redisson.ErrLockLost)

	// Delete: both keys go; the next acquisition starts again at 1.
	h4, err := lock.Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(4), h4.Token())
	deleted, err = lock.Delete(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
	s = readState(t, raw, name)
	require.Equal(t, "none", s.hashType)
	require.Equal(t, "none", s.tokenType)
	require.ErrorIs(t, h4.Err(), redisson.ErrLockLost)
	deleted, err = lock.Delete(ctx)
	require.NoError(t, err)
	require.False(t, deleted, "nothing left to delete")
	h5, err := lock.Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), h5.Token())
	require.NoError(t, h5.Unlock(ctx))
}

// TestHandOffIssuesToken: a waiter of the same client is handed the lock by
// the holder's unlock, in one script that also issues its token. The token
// is the next one, the counter agrees, and nothing is published.
func TestHandOffIssuesToken(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.FencedLock("handoff")
	sub := raw.Subscribe(ctx, keys.LockChannel("handoff"))
	defer sub.Close()
	_, err := sub.Receive(ctx)
	require.NoError(t, err)

	h1, err := lock.Lock(ctx)
	require.NoError(t, err)
	got := make(chan *fencedlock.Hold, 1)
	go func() {
		h, err := lock.Lock(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- h
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool {
		n, err := raw.PubSubNumSub(ctx, keys.LockChannel("handoff")).Result()
		return err == nil && n[keys.LockChannel("handoff")] >= 2
	})
	require.NoError(t, h1.Unlock(ctx))
	var h2 *fencedlock.Hold
	select {
	case h2 = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock")
	}
	require.NotNil(t, h2)
	require.Equal(t, h1.Token()+1, h2.Token())
	tok, err := lock.Token(ctx)
	require.NoError(t, err)
	require.Equal(t, h2.Token(), tok)
	n, err := lock.HoldCount(ctx, h2.Owner())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	// The hand-off published nothing; the real release does.
	require.NoError(t, h2.Unlock(ctx))
	msg, err := sub.ReceiveMessage(ctx)
	require.NoError(t, err)
	require.Equal(t, "0", msg.Payload)
	tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = sub.ReceiveMessage(tctx)
	require.Error(t, err, "exactly one message: the real release's")
}

// TestHolderKeyWithoutTTLIsNotAcquired: a holder whose hash has no TTL makes
// Redisson's token acquire answer {-1, -1}, which Java reads as acquired
// (with token -1). Here it is a held lock: TryLock fails, nothing changes.
func TestHolderKeyWithoutTTLIsNotAcquired(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	require.NoError(t, raw.HSet(ctx, "nottl", "someone-else:1", "1").Err())
	require.NoError(t, raw.Set(ctx, "redisson_lock_token:{nottl}", "7", 0).Err())
	lock := c.FencedLock("nottl")
	_, ok, err := lock.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	_, ok, err = lock.TryLock(ctx, fencedlock.WithWait(150*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, map[string]string{"someone-else:1": "1"}, raw.HGetAll(ctx, "nottl").Val())
	require.Equal(t, "7", raw.Get(ctx, "redisson_lock_token:{nottl}").Val())
	ttl, err := lock.RemainTTL(ctx)
	require.NoError(t, err)
	require.Equal(t, time.Duration(-1), ttl)
}

// TestBadInput: bad names, durations and owners, and keys in the way (the
// hash or the token key of another type, a token key holding no counter)
// give clear errors and change nothing in Redis.
func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	t.Run("empty name", func(t *testing.T) {
		lock := c.FencedLock("")
		_, err := lock.Lock(ctx)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
		_, _, err = lock.TryLock(ctx)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
		_, err = lock.Token(ctx)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
		_, err = lock.ForceUnlock(ctx)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
		_, err = lock.Delete(ctx)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
		_, err = lock.IsLocked(ctx)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
		_, err = lock.HoldCount(ctx, 1)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
		_, err = lock.RemainTTL(ctx)
		require.ErrorIs(t, err, redisson.ErrInvalidName)
	})

	lock := c.FencedLock("bad")
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"zero lease", func() error { _, err := lock.Lock(ctx, fencedlock.WithLease(0)); return err }},
		{"negative lease", func() error { _, err := lock.Lock(ctx, fencedlock.WithLease(-time.Second)); return err }},
		{"sub-ms lease", func() error { _, _, err := lock.TryLock(ctx, fencedlock.WithLease(time.Microsecond)); return err }},
		{"negative wait", func() error { _, _, err := lock.TryLock(ctx, fencedlock.WithWait(-time.Second)); return err }},
		{"wait on Lock", func() error { _, err := lock.Lock(ctx, fencedlock.WithWait(time.Second)); return err }},
		{"zero owner", func() error { _, err := lock.Lock(ctx, fencedlock.WithOwner(0)); return err }},
		{"negative owner", func() error { _, _, err := lock.TryLock(ctx, fencedlock.WithOwner(-3)); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, redisson.ErrInvalidArgument)
			require.Contains(t, err.Error(), `fenced lock "bad"`)
			require.Zero(t, raw.Exists(ctx, "bad", "redisson_lock_token:{bad}").Val(), "nothing written")
		})
	}

	for _, tc := range []struct {
		name, key, detail string
		setup             func(key string) error
	}{
		{"hash key is a string", "wt1", "wt1 holds a string, not a hash", func(k string) error { return raw.Set(ctx, k, "x", 0).Err() }},
		{"token key is a list", "redisson_lock_token:{wt2}", "holds a list, not a string", func(k string) error { return raw.RPush(ctx, k, "x").Err() }},
		{"token key is not a number", "redisson_lock_token:{wt3}", "not a token counter", func(k string) error { return raw.Set(ctx, k, "abc", 0).Err() }},
		{"token key is negative", "redisson_lock_token:{wt4}", "not a token counter", func(k string) error { return raw.Set(ctx, k, "-2", 0).Err() }},
		{"token key is a fraction", "redisson_lock_token:{wt5}", "not a token counter", func(k string) error { return raw.Set(ctx, k, "1.5", 0).Err() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.setup(tc.key))
			name := tc.key
			if n := len("redisson_lock_token:{"); len(name) > n && name[:n] == "redisson_lock_token:{" {
				name = name[n : len(name)-1]
			}
			before := dump(t, raw)
			lock := c.FencedLock(name)
			_, err := lock.Lock(ctx)
			require.ErrorIs(t, err, redisson.ErrWrongType)
			require.Contains(t, err.Error(), tc.detail)
			_, _, err = lock.TryLock(ctx, fencedlock.WithWait(time.Second))
			require.ErrorIs(t, err, redisson.ErrWrongType)
			require.Equal(t, before, dump(t, raw), "nothing changed")
			if tc.key != name {
				_, err = lock.Token(ctx)
				require.ErrorIs(t, err, redisson.ErrWrongType)
				require.Contains(t, err.Error(), tc.detail)
			}
			require.NoError(t, raw.Del(ctx, tc.key).Err())
			h, err := lock.Lock(ctx)
			require.NoError(t, err, "usable once the key is out of the way")
			require.Equal(t, int64(1), h.Token())
			require.NoError(t, h.Unlock(ctx))
		})
	}
}

// dump returns every key with its type and value, for "nothing changed";
// the clients' registration records are not part of it.
func dump(t *testing.T, raw *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys := redistest.Keys(t, raw, "*")
	out := map[string]string{}
	for _, k := range keys {
		v, err := raw.Dump(ctx, k).Result()
		require.NoError(t, err)
		out[k] = v + "|expires:" + strconv.FormatBool(raw.PTTL(ctx, k).Val() > 0)
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestHandOffWithBadTokenKey: the token key is overwritten with something
// that is no counter while a local waiter waits. The holder's unlock, which
// would hand the lock over, releases it for real instead (it must not fail
// half way), and the waiter's own acquire reports the key; nothing is left
// held.
func TestHandOffWithBadTokenKey(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.FencedLock("corrupted")
	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := lock.Lock(wctx)
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool {
		return c.Stats().PubSub.Waiters == 1
	})
	require.NoError(t, raw.Set(ctx, keys.FencedLockToken("corrupted"), "abc", 0).Err())
	require.NoError(t, h.Unlock(ctx))
	select {
	case err := <-got:
		require.ErrorIs(t, err, redisson.ErrWrongType)
		require.Contains(t, err.Error(), "not a token counter")
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter was not told")
	}
	require.Zero(t, raw.Exists(ctx, "corrupted").Val(), "nothing held")
	require.Equal(t, "abc", raw.Get(ctx, keys.FencedLockToken("corrupted")).Val())
}
