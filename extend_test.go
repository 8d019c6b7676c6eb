package redisson_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/rwlock"
)

// The tests below pin down Hold.Extend (issue #24 point 4) for every lock
// kind: the lease in Redis, the hold's loss signal, the end of renewal, and
// what a failed Extend leaves.

// extendHold is what every kind's hold offers: locks.Hold (lock, fair
// lock, read and write lock, group multi-lock), *fencedlock.Hold and
// *multilock.Hold.
type extendHold interface {
	Extend(ctx context.Context, lease time.Duration) error
	Unlock(ctx context.Context) error
	Done() <-chan struct{}
	Err() error
	Owner() int64
}

// extendKind is one lock kind seen through Extend.
type extendKind struct {
	name string
	// take acquires the lock(s) called name (a multi-lock's members are
	// named after it) once: with the watchdog for a zero lease.
	take func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error)
	// left returns the lease left in Redis for every record that holds it:
	// the PTTL of each key, or a group value's expire_time less now. A
	// record that is gone reads as no more than 0.
	left func(ctx context.Context, rdb *redis.Client, c *redisson.Client, name string, h extendHold) []time.Duration
	// keys are the keys the hold lives in, for checks that nothing named
	// them was sent.
	keys func(name string) []string
}

// takeWith adapts a kind's TryLock.
func takeWith[H extendHold](try func(context.Context, ...locks.Option) (H, bool, error), lease time.Duration) (extendHold, bool, error) {
	var opts []locks.Option
	if lease > 0 {
		opts = append(opts, locks.WithLease(lease))
	}
	h, ok, err := try(context.Background(), opts...)
	if !ok || err != nil {
		return nil, ok, err
	}
	return h, true, nil
}

func pttls(ctx context.Context, rdb *redis.Client, keys ...string) []time.Duration {
	out := make([]time.Duration, len(keys))
	for i, k := range keys {
		out[i] = rdb.PTTL(ctx, k).Val()
	}
	return out
}

func ownerField(c *redisson.Client, owner int64) string {
	return c.ID() + ":" + strconv.FormatInt(owner, 10)
}

func one(name string) []string { return []string{name} }

var extendKinds = []extendKind{
	{name: "lock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			return takeWith(c.Lock(name).TryLock, lease)
		},
		left: func(ctx context.Context, rdb *redis.Client, _ *redisson.Client, name string, _ extendHold) []time.Duration {
			return pttls(ctx, rdb, name)
		},
		keys: one},
	{name: "fair lock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			return takeWith(c.FairLock(name).TryLock, lease)
		},
		left: func(ctx context.Context, rdb *redis.Client, _ *redisson.Client, name string, _ extendHold) []time.Duration {
			return pttls(ctx, rdb, name)
		},
		keys: one},
	{name: "fenced lock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			return takeWith(c.FencedLock(name).TryLock, lease)
		},
		left: func(ctx context.Context, rdb *redis.Client, _ *redisson.Client, name string, _ extendHold) []time.Duration {
			return pttls(ctx, rdb, name)
		},
		keys: one},
	{name: "read lock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			return takeWith(c.ReadWriteLock(name).ReadLock().TryLock, lease)
		},
		left: func(ctx context.Context, rdb *redis.Client, c *redisson.Client, name string, h extendHold) []time.Duration {
			return pttls(ctx, rdb, name, keys.ReadWriteLockTimeoutPrefix(name, ownerField(c, h.Owner()))+":1")
		},
		keys: one},
	{name: "write lock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			return takeWith(c.ReadWriteLock(name).WriteLock().TryLock, lease)
		},
		left: func(ctx context.Context, rdb *redis.Client, _ *redisson.Client, name string, _ extendHold) []time.Duration {
			return pttls(ctx, rdb, name)
		},
		keys: one},
	{name: "group multi-lock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			return takeWith(c.MultiLockGroup(name, "v1", "v2").TryLock, lease)
		},
		// The values' expiry, not the hash's TTL (which outlives every
		// owner's values), says when they are free.
		left: func(ctx context.Context, rdb *redis.Client, c *redisson.Client, name string, h extendHold) []time.Duration {
			var out []time.Duration
			for _, v := range []string{"v1", "v2"} {
				ef := keys.GroupMultiLockField([]byte(v)) + ":" + ownerField(c, h.Owner()) + ":expire_time"
				at, err := rdb.HGet(ctx, name, ef).Int64()
				if err != nil {
					out = append(out, -2)
					continue
				}
				out = append(out, time.Until(time.UnixMilli(at)))
			}
			return out
		},
		keys: one},
	{name: "multi-lock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			m := multilock.New(c.Lock(name+":a"), c.ReadWriteLock(name+":b").ReadLock())
			return takeWith(m.TryLock, lease)
		},
		left: func(ctx context.Context, rdb *redis.Client, c *redisson.Client, name string, h extendHold) []time.Duration {
			return pttls(ctx, rdb, name+":a", name+":b", keys.ReadWriteLockTimeoutPrefix(name+":b", ownerField(c, h.Owner()))+":1")
		},
		keys: func(name string) []string { return []string{name + ":a", name + ":b"} }},
	{name: "RedLock",
		take: func(ctx context.Context, c *redisson.Client, name string, lease time.Duration) (extendHold, bool, error) {
			m := multilock.NewRedLock(c.Lock(name+":1"), c.Lock(name+":2"), c.Lock(name+":3"))
			return takeWith(m.TryLock, lease)
		},
		left: func(ctx context.Context, rdb *redis.Client, _ *redisson.Client, name string, _ extendHold) []time.Duration {
			return pttls(ctx, rdb, name+":1", name+":2", name+":3")
		},
		keys: func(name string) []string { return []string{name + ":1", name + ":2", name + ":3"} }},
}

// extendClient returns a Client on srv, closed at cleanup.
func extendClient(t *testing.T, rdb *redis.Client, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func keyName(prefix string, parts ...string) string {
	return prefix + ":" + strings.ReplaceAll(strings.Join(parts, ":"), " ", "-")
}

// TestExtendEveryKind: for every kind, held with the watchdog or a fixed
// lease, Extend sets the lease in Redis (every key of the hold, a read
// hold's timeout key, a group's value expiries) and re-times the hold's
// signal: a fixed hold extended past its old lease lives past it; a
// watchdog hold is renewed no more, so the hold ends, and its Done fires
// while the lease is still there in Redis; then the lease runs out in
// Redis too.
func TestExtendEveryKind(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	// A wide margin, so that the reads made when Done fires come well
	// before the lease's end in Redis on a loaded machine: Done fires 1%
	// of the lease + 1s + a wheel tick before it.
	c := extendClient(t, redistest.Client(t, srv), redisson.WithLeaseMargin(time.Second))
	ctx := context.Background()
	const lease = 4 * time.Second
	const oldLease = 700 * time.Millisecond // a fixed hold's lease before Extend
	for _, k := range extendKinds {
		for _, watchdog := range []bool{true, false} {
			mode := "fixed"
			if watchdog {
				mode = "watchdog"
			}
			t.Run(k.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				name := keyName("extend", k.name, mode)
				taken := oldLease
				if watchdog {
					taken = 0
				}
				begin := time.Now()
				h, ok, err := k.take(ctx, c, name, taken)
				require.NoError(t, err)
				require.True(t, ok)
				defer h.Unlock(ctx)

				require.NoError(t, h.Extend(ctx, lease))
				for i, left := range k.left(ctx, raw, c, name, h) {
					require.True(t, left > 0 && left <= lease, "record %d: %v left, want in (0, %v]", i, left, lease)
					require.Greater(t, left, lease/2, "record %d: near the new lease", i)
				}
				if !watchdog {
					redistest.Eventually(t, 5*time.Second, "the old lease's end passes", func() bool {
						return time.Since(begin) > oldLease+200*time.Millisecond
					})
					require.NoError(t, h.Err(), "the hold lives past its old lease")
					for i, left := range k.left(ctx, raw, c, name, h) {
						require.Positive(t, left, "record %d is held past its old lease", i)
					}
				}

				// Renewed no more: the hold ends, before Redis lets go.
				select {
				case <-h.Done():
				case <-time.After(lease + 10*time.Second):
					t.Fatal("the hold outlived its new lease: still renewed")
				}
				for i, left := range k.left(ctx, raw, c, name, h) {
					require.Positive(t, left, "record %d must still be held in Redis when Done fires", i)
				}
				// An extended lease is a fixed lease: its end is no loss.
				require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
				require.NotErrorIs(t, h.Err(), redisson.ErrLockLost)
				redistest.Eventually(t, lease+5*time.Second, "the lease runs out in Redis", func() bool {
					for _, left := range k.left(ctx, raw, c, name, h) {
						if left > 0 {
							return false
						}
					}
					return true
				})
			})
		}
	}
}

// TestExtendRefusedSendsNothing: a lease below 1ms, and a hold that was
// unlocked, are refused with nothing sent: ErrInvalidArgument, and
// ErrNotOwner as for a second Unlock.
func TestExtendRefusedSendsNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := extendClient(t, redistest.Client(t, srv))
	ctx := context.Background()
	for _, k := range extendKinds {
		t.Run(k.name, func(t *testing.T) {
			name := keyName("refused", k.name)
			// A fixed lease: no renewal runs while nothing may be sent.
			h, ok, err := k.take(ctx, c, name, time.Minute)
			require.NoError(t, err)
			require.True(t, ok)
			sent := redistest.Sent(t, srv, raw, func() {
				for _, lease := range []time.Duration{0, -time.Second, 999 * time.Microsecond} {
					err := h.Extend(ctx, lease)
					require.ErrorIs(t, err, redisson.ErrInvalidArgument, "lease %v", lease)
					require.ErrorContains(t, err, "extend: invalid argument: the lease must be at least 1ms")
				}
			})
			require.Empty(t, sent, "nothing is sent for an invalid lease")
			require.NoError(t, h.Err())

			require.NoError(t, h.Unlock(ctx))
			sent = redistest.Sent(t, srv, raw, func() {
				err := h.Extend(ctx, time.Minute)
				require.ErrorIs(t, err, redisson.ErrNotOwner)
				require.ErrorContains(t, err, "this hold was already released")
			})
			require.Empty(t, sent, "nothing is sent after Unlock")
		})
	}
}

// TestExtendAfterKeyDeleted: Redis says the owner holds the lock no more
// (its keys were deleted behind the hold): Extend fails with ErrLockLost
// and the hold ends, signalled; a second Extend sends nothing and returns
// the loss.
func TestExtendAfterKeyDeleted(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := extendClient(t, redistest.Client(t, srv))
	ctx := context.Background()
	for _, k := range extendKinds {
		for _, watchdog := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/watchdog=%v", k.name, watchdog), func(t *testing.T) {
				name := keyName("deleted", k.name, strconv.FormatBool(watchdog))
				lease := time.Minute
				if watchdog {
					lease = 0
				}
				h, ok, err := k.take(ctx, c, name, lease)
				require.NoError(t, err)
				require.True(t, ok)
				require.NoError(t, raw.Del(ctx, k.keys(name)...).Err())

				err = h.Extend(ctx, 10*time.Second)
				require.ErrorIs(t, err, redisson.ErrLockLost)
				select {
				case <-h.Done():
				case <-time.After(5 * time.Second):
					t.Fatal("the hold did not end")
				}
				require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
				require.ErrorIs(t, h.Extend(ctx, 10*time.Second), redisson.ErrLockLost)
				require.Zero(t, raw.Exists(ctx, k.keys(name)...).Val(), "nothing revived")
			})
		}
	}
}

// TestExtendLockError: the error of an Extend that found the owner gone
// reads `<kind> "<name>": extend: <cause>`, and the hold's own cause says
// the same without the operation.
func TestExtendLockError(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := extendClient(t, redistest.Client(t, srv))
	ctx := context.Background()
	h, err := c.Lock("gone").Lock(ctx, locks.WithLease(time.Minute))
	require.NoError(t, err)
	require.NoError(t, raw.Del(ctx, "gone").Err())
	require.EqualError(t, h.Extend(ctx, time.Second), `lock "gone": extend: ownership lost: the owner holds the lock no more`)
	require.EqualError(t, h.Err(), `lock "gone": ownership lost: the owner holds the lock no more`)
	require.EqualError(t, h.Extend(ctx, time.Second), `lock "gone": extend: ownership lost: the owner holds the lock no more`)
}

// TestExtendReentrantHolds: an owner's re-entrant holds share one field
// and one lease: extending one sets the lease of all of them, and an outer
// watchdog hold turns fixed with it, so that both are told when it ends.
func TestExtendReentrantHolds(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := extendClient(t, redistest.Client(t, srv), redisson.WithLeaseMargin(300*time.Millisecond))
	ctx := context.Background()
	l := c.Lock("reentrant")
	outer, err := l.Lock(ctx) // watchdog
	require.NoError(t, err)
	defer outer.Unlock(ctx)
	inner, err := l.Lock(ctx, locks.WithOwner(outer.Owner()))
	require.NoError(t, err)
	defer inner.Unlock(ctx)

	require.NoError(t, inner.Extend(ctx, 1500*time.Millisecond))
	require.LessOrEqual(t, raw.PTTL(ctx, "reentrant").Val(), 1500*time.Millisecond)
	for i, h := range []*locks.Hold{outer, inner} {
		select {
		case <-h.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("hold %d outlived the extended lease", i)
		}
		require.Positive(t, raw.PTTL(ctx, "reentrant").Val(), "signalled before the key expires")
		require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
	}
}

// TestExtendReadLockTimeoutKeys: a read hold's Extend gives its timeout
// keys the lease too, so that another reader's unlock, which sets the hash
// to the longest timeout key left, does not cut it back; and the hash is
// never set below another reader's lease.
func TestExtendReadLockTimeoutKeys(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := extendClient(t, redistest.Client(t, srv))
	ctx := context.Background()
	r := c.ReadWriteLock("shared").ReadLock()
	short, err := r.Lock(ctx, rwlock.WithLease(2*time.Second))
	require.NoError(t, err)
	long, err := r.Lock(ctx, rwlock.WithLease(2*time.Second))
	require.NoError(t, err)
	defer long.Unlock(ctx)
	again, err := r.Lock(ctx, rwlock.WithOwner(long.Owner()), rwlock.WithLease(2*time.Second)) // re-entry: a second timeout key
	require.NoError(t, err)
	defer again.Unlock(ctx)

	require.NoError(t, long.Extend(ctx, 30*time.Second))
	prefix := keys.ReadWriteLockTimeoutPrefix("shared", ownerField(c, long.Owner()))
	for _, k := range []string{prefix + ":1", prefix + ":2", "shared"} {
		require.Greater(t, raw.PTTL(ctx, k).Val(), 20*time.Second, "%s has the new lease", k)
	}
	require.NoError(t, short.Unlock(ctx))
	require.Greater(t, raw.PTTL(ctx, "shared").Val(), 20*time.Second, "another reader's unlock keeps the extended lease")

	// Shortening one reader's lease keeps the hash for the other one.
	other, err := r.Lock(ctx, rwlock.WithLease(time.Minute))
	require.NoError(t, err)
	defer other.Unlock(ctx)
	require.NoError(t, long.Extend(ctx, time.Second))
	require.LessOrEqual(t, raw.PTTL(ctx, prefix+":1").Val(), time.Second)
	require.Greater(t, raw.PTTL(ctx, "shared").Val(), 50*time.Second, "the hash keeps what the other reader needs")
}

// TestExtendFairLockLeavesQueue: a fair lock's Extend sets the holder's
// lease only: the waiters' queue and timeout scores are left as they are
// (no TTL given to them, as Redisson's expire does), and the waiter still
// gets the lock first.
func TestExtendFairLockLeavesQueue(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c1 := extendClient(t, redistest.Client(t, srv))
	c2 := extendClient(t, redistest.Client(t, srv))
	ctx := context.Background()
	h, err := c1.FairLock("fair").Lock(ctx, fairlock.WithLease(20*time.Second))
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		w, ok, err := c2.FairLock("fair").TryLock(ctx, fairlock.WithWait(30*time.Second))
		if err == nil && !ok {
			err = errors.New("not acquired")
		}
		if err == nil {
			err = w.Unlock(ctx)
		}
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter is queued", func() bool {
		return raw.LLen(ctx, keys.FairLockQueue("fair")).Val() == 1
	})
	before := raw.ZRangeWithScores(ctx, keys.FairLockTimeout("fair"), 0, -1).Val()
	require.NoError(t, h.Extend(ctx, 40*time.Second))
	require.Greater(t, raw.PTTL(ctx, "fair").Val(), 30*time.Second)
	require.Equal(t, before, raw.ZRangeWithScores(ctx, keys.FairLockTimeout("fair"), 0, -1).Val(), "the waiters' scores")
	require.Equal(t, time.Duration(-1), raw.PTTL(ctx, keys.FairLockQueue("fair")).Val(), "the queue has no TTL")
	require.Equal(t, time.Duration(-1), raw.PTTL(ctx, keys.FairLockTimeout("fair")).Val(), "the timeout set has no TTL")
	require.NoError(t, h.Unlock(ctx))
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock")
	}
}

// TestExtendFencedLockKeepsTokenCounter: the fenced lock's token counter
// gets no TTL from an Extend (Redisson's expire would give it one).
func TestExtendFencedLockKeepsTokenCounter(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := extendClient(t, redistest.Client(t, srv))
	ctx := context.Background()
	h, err := c.FencedLock("fenced").Lock(ctx)
	require.NoError(t, err)
	defer h.Unlock(ctx)
	require.NoError(t, h.Extend(ctx, 5*time.Second))
	require.LessOrEqual(t, raw.PTTL(ctx, "fenced").Val(), 5*time.Second)
	require.Equal(t, time.Duration(-1), raw.PTTL(ctx, keys.FencedLockToken("fenced")).Val())
}

// TestExtendUnsynced: with replica sync on, an Extend no replica
// acknowledged fails with ErrNoSyncedReplicas; the hold lives on with the
// earlier of its old end and the new one, so it ends while the master
// still holds the longer lease. A MultiLock whose member's Extend was not
// acknowledged ends lost.
func TestExtendUnsynced(t *testing.T) {
	master := redistest.StartServer(t)
	link, err := faultproxy.New(master.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = link.Close() })
	redistest.StartReplicaVia(t, master, link.Addr())
	raw := redistest.Client(t, master)
	c := extendClient(t, redistest.Client(t, master),
		redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Timeout: 200 * time.Millisecond}))
	ctx := context.Background()

	h, err := c.Lock("synced").Lock(ctx, locks.WithLease(time.Second))
	require.NoError(t, err)
	defer h.Unlock(ctx)
	m, err := multilock.New(c.Lock("m1"), c.Lock("m2")).Lock(ctx, multilock.WithLease(time.Minute))
	require.NoError(t, err)
	defer m.Unlock(ctx)
	require.NoError(t, h.Extend(ctx, 3*time.Second), "in sync")

	link.Stall()
	defer link.Resume()
	err = h.Extend(ctx, time.Minute)
	require.ErrorIs(t, err, redisson.ErrNoSyncedReplicas)
	require.NoError(t, h.Err(), "the hold lives on")
	select {
	case <-h.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the hold outlived the earlier end")
	}
	require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
	require.Greater(t, raw.PTTL(ctx, "synced").Val(), 30*time.Second, "the master has the unacknowledged lease; the hold did not count on it")

	err = m.Extend(ctx, 2*time.Minute)
	require.ErrorIs(t, err, redisson.ErrNoSyncedReplicas)
	require.ErrorIs(t, err, redisson.ErrLockLost)
	require.ErrorContains(t, err, `lock "m1": extend: `, "the member names itself once")
	require.ErrorIs(t, m.Err(), redisson.ErrLockLost)
}

// proxied returns a go-redis client to srv through a fault proxy.
func proxied(t *testing.T, srv *redistest.Server, opts ...func(*redis.Options)) (*redis.Client, *faultproxy.Proxy) {
	t.Helper()
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	o := &redis.Options{
		Addr:                     p.Addr(),
		MaxRetries:               -1,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	for _, opt := range opts {
		opt(o)
	}
	rdb := redis.NewClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb, p
}

// TestExtendAbandonedReplyApplied: an Extend whose ctx ends before the
// reply returns at once; the hold lives on with its old end meanwhile, and
// the reply, when it comes, is applied: the hold lives past its old lease.
func TestExtendAbandonedReplyApplied(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	rdb, link := proxied(t, srv)
	c := extendClient(t, rdb)
	ctx := context.Background()
	const oldLease = 2 * time.Second
	begin := time.Now()
	h, err := c.Lock("abandoned").Lock(ctx, locks.WithLease(oldLease))
	require.NoError(t, err)
	defer h.Unlock(ctx)

	link.Stall()
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	err = h.Extend(short, 20*time.Second)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, h.Err(), "the hold lives on")
	link.Resume()

	redistest.Eventually(t, 10*time.Second, "the reply is applied in Redis", func() bool {
		return raw.PTTL(ctx, "abandoned").Val() > 10*time.Second
	})
	redistest.Eventually(t, 10*time.Second, "the old lease's end passes", func() bool {
		return time.Since(begin) > oldLease+200*time.Millisecond
	})
	require.NoError(t, h.Err(), "the late reply re-timed the hold")
	require.NoError(t, h.Extend(ctx, 10*time.Second))
}

// TestExtendNoReplyCapsHold: an Extend that got no reply at all may still
// run later, after anything sent since: the hold never counts on more than
// that extend's end again, even when a later Extend sets a longer lease.
func TestExtendNoReplyCapsHold(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	rdb, link := proxied(t, srv, func(o *redis.Options) { o.ReadTimeout = 300 * time.Millisecond })
	c := extendClient(t, rdb)
	ctx := context.Background()
	h, err := c.Lock("capped").Lock(ctx, locks.WithLease(time.Minute))
	require.NoError(t, err)
	defer h.Unlock(ctx)
	// Redis knows the script (EVALSHA), so the stalled call can run later.
	require.NoError(t, h.Extend(ctx, time.Minute))

	link.Stall()
	err = h.Extend(ctx, 4*time.Second) // ctx has no deadline: go-redis' ReadTimeout ends it
	require.Error(t, err)
	require.NoError(t, h.Err(), "the hold lives on")
	link.Resume() // the stalled extend runs now, late
	redistest.Eventually(t, 5*time.Second, "the unanswered extend ran", func() bool {
		return raw.PTTL(ctx, "capped").Val() <= 4*time.Second
	})

	require.NoError(t, h.Extend(ctx, time.Minute))
	redistest.Eventually(t, 5*time.Second, "the later extend is in Redis", func() bool {
		return raw.PTTL(ctx, "capped").Val() > 30*time.Second
	})
	select {
	case <-h.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the hold counted on more than the unanswered extend's end")
	}
	require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
}

// TestExtendRedLockQuorum: a RedLock extends the members it holds and needs
// a quorum of them: with one of three gone it extends the two left; with
// two of three gone it ends lost, and the error says so.
func TestExtendRedLockQuorum(t *testing.T) {
	srvs := redistest.StartMasters(t, 3)
	ctx := context.Background()
	var members, members2 []lockable.Lock
	var raws []*redis.Client
	for _, s := range srvs {
		c := extendClient(t, redistest.Client(t, s))
		members = append(members, c.Lock("red"))
		members2 = append(members2, c.Lock("red2"))
		raws = append(raws, redistest.Client(t, s))
	}
	h, ok, err := multilock.NewRedLock(members...).TryLock(ctx, multilock.WithLease(time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	defer h.Unlock(ctx)
	require.NoError(t, raws[0].Del(ctx, "red").Err())
	require.NoError(t, h.Extend(ctx, 30*time.Second))
	require.NoError(t, h.Err())
	for _, r := range raws[1:] {
		pttl := r.PTTL(ctx, "red").Val()
		require.True(t, pttl > 20*time.Second && pttl <= 30*time.Second, "PTTL %v", pttl)
	}
	require.Equal(t, time.Duration(-2), raws[0].PTTL(ctx, "red").Val(), "the lost member is not revived")

	h2, ok, err := multilock.NewRedLock(members2...).TryLock(ctx, multilock.WithLease(time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	defer h2.Unlock(ctx)
	require.NoError(t, raws[0].Del(ctx, "red2").Err())
	require.NoError(t, raws[1].Del(ctx, "red2").Err())
	err = h2.Extend(ctx, 30*time.Second)
	require.ErrorIs(t, err, redisson.ErrLockLost)
	require.ErrorContains(t, err, "fewer than the quorum of 2")
	require.ErrorIs(t, h2.Err(), redisson.ErrLockLost)
}
