package multilock_test

import (
	"context"
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

// redCluster is n independent redis-servers with one Client (and one raw
// client) each, and the RLock name of every server's member.
type redCluster struct {
	servers []*redistest.Server
	clients []*redisson.Client
	raws    []*redis.Client
}

func newRedCluster(t *testing.T, n int) *redCluster {
	t.Helper()
	rc := &redCluster{servers: redistest.StartMasters(t, n)}
	for _, s := range rc.servers {
		rc.clients = append(rc.clients, redissontest.ClientAt(t, s.Addr()))
		rc.raws = append(rc.raws, redistest.Client(t, s))
	}
	return rc
}

// redLock returns a RedLock over the lock called name on every server,
// taken through clients (one per server).
func (rc *redCluster) redLock(clients []*redisson.Client, name string) *multilock.Lock {
	members := make([]lockable.Lock, len(clients))
	for i, c := range clients {
		members[i] = c.Lock(name)
	}
	return multilock.NewRedLock(members...)
}

// held returns how many live servers have the lock called name.
func (rc *redCluster) held(t *testing.T, name string, skip ...int) int {
	t.Helper()
	n := 0
	for i, r := range rc.raws {
		if contains(skip, i) {
			continue
		}
		if r.Exists(context.Background(), name).Val() == 1 {
			n++
		}
	}
	return n
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestRedLockQuorumOfFive: over 5 independent servers a RedLock is taken
// with 2 of them down (it holds the 3 others) and not with 3 down, in which
// case it gives up within its wait and leaves nothing held on the live
// servers.
func TestRedLockQuorumOfFive(t *testing.T) {
	rc := newRedCluster(t, 5)
	ctx := context.Background()
	for _, i := range []int{0, 2} {
		require.NoError(t, rc.servers[i].Kill())
	}
	rl := rc.redLock(rc.clients, "res")
	require.Equal(t, 3, rl.Quorum())
	h, ok, err := rl.TryLock(ctx, multilock.WithWait(2*time.Second))
	require.NoError(t, err)
	require.True(t, ok, "3 of 5 servers are up")
	require.Len(t, h.Held(), 3)
	require.Equal(t, 3, rc.held(t, "res", 0, 2))
	require.NoError(t, h.Err())
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, 0, rc.held(t, "res", 0, 2))

	require.NoError(t, rc.servers[4].Kill())
	const wait = time.Second
	start := time.Now()
	h, ok, err = rl.TryLock(ctx, multilock.WithWait(wait))
	elapsed := time.Since(start)
	require.False(t, ok, "2 of 5 servers are up")
	require.Nil(t, h)
	// err is the last failure's error if a down server answered within its
	// share of the wait (connection refused), nil if its share ran out
	// first: either way the RedLock was not taken.
	t.Logf("TryLock with 3 of 5 servers down: %v after %v", err, elapsed)
	require.Less(t, elapsed, wait+2*time.Second, "gives up within its wait")
	require.Equal(t, 0, rc.held(t, "res", 0, 2, 4), "nothing left held on the live servers")
	for _, i := range []int{1, 3} {
		require.Zero(t, rc.clients[i].Stats().Leases)
	}
}

// TestRedLockLosesBelowQuorum: the hold survives the loss of members as
// long as a quorum remains, and ends when it does not.
func TestRedLockLosesBelowQuorum(t *testing.T) {
	rc := newRedCluster(t, 3)
	ctx := context.Background()
	h := rc.holdAll(t, false)

	ok, err := rc.clients[0].Lock("res").ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	redistest.Eventually(t, 10*time.Second, "the hold counts the member lost", func() bool { return multilock.LostMembers(h) == 1 })
	require.NoError(t, h.Err(), "2 of 3 is still a quorum")

	ok, err = rc.clients[1].Lock("res").ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	redistest.Eventually(t, 10*time.Second, "the hold ends below the quorum", func() bool { return ended(h.Done()) })
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrLockLost)
	require.Equal(t, 0, rc.held(t, "res"))
}

// TestRedLockValidityEnd: with a fixed lease the hold's validity ends
// (lease less the acquisition time and the drift allowance, counted from
// the first request) before any member's key expires in Redis, and the
// hold signals its end then, not before.
func TestRedLockValidityEnd(t *testing.T) {
	rc := newRedCluster(t, 3)
	ctx := context.Background()
	const lease = 2 * time.Second
	const validFor = lease - lease/100 - 2*time.Millisecond
	start := time.Now()
	h, ok, err := rc.redLock(rc.clients, "res").TryLock(ctx, multilock.WithLease(lease))
	acquired := time.Now()
	require.NoError(t, err)
	require.True(t, ok)
	// Read while the keys have most of their lease left. Every request
	// was sent after start and answered before acquired.
	validUntil := multilock.ValidUntil(h)
	require.False(t, validUntil.Before(start.Add(validFor)), "the validity counts from before the first request")
	require.False(t, validUntil.After(acquired.Add(validFor)), "the validity counts from the first request")
	keys := 0
	for i, r := range rc.raws {
		// The key's end in ms since the epoch (the servers share this
		// machine's clock); negative: no key (a server the hold does not
		// hold).
		expires, err := r.PExpireTime(ctx, "res").Result()
		require.NoError(t, err)
		if expires < 0 {
			continue
		}
		keys++
		require.Greater(t, expires, time.Duration(validUntil.UnixMilli())*time.Millisecond, "server %d: the key expires before the validity ends", i)
	}
	require.GreaterOrEqual(t, keys, len(h.Held()))
	select {
	case <-h.Done():
	case <-time.After(5 * lease):
		t.Fatal("the validity end was not signalled")
	}
	doneAt := time.Since(start)
	require.ErrorIs(t, h.Err(), redisson.ErrLeaseExpired)
	// The validity end, or the members' own signals (lease - 1% -
	// LeaseMargin - the wheel's tick from their acquires), whichever comes
	// first; never a signal earlier than those.
	require.Greater(t, doneAt, lease-lease/100-100*time.Millisecond, "not long before the validity end")
}

// TestRedLockRestartedServer is Kleppmann's scenario: A holds a RedLock on
// servers 0, 1, 2 of five (3 and 4 down); server 2 crashes and comes back
// empty. While A's validity lasts and server 2 stays down, B cannot get a
// quorum (0 and 1 are A's). Server 2 is let back only once A's hold has
// signalled its end, as the holder must honour: then B gets its quorum, and
// the two never hold at once. Letting server 2 back at once would let B in
// while A's hold is still valid: docs/multilock.md's RedLock section.
func TestRedLockRestartedServer(t *testing.T) {
	rc := newRedCluster(t, 5)
	ctx := context.Background()
	clientsB := make([]*redisson.Client, 5)
	for i, s := range rc.servers {
		clientsB[i] = redissontest.ClientAt(t, s.Addr())
	}
	require.NoError(t, rc.servers[3].Kill())
	require.NoError(t, rc.servers[4].Kill())

	const lease = 3 * time.Second
	a, ok, err := rc.redLock(rc.clients, "res").TryLock(ctx, multilock.WithLease(lease), multilock.WithWait(time.Second))
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, a.Held(), 3)

	for _, i := range []int{3, 4} {
		require.NoError(t, rc.servers[i].Restart(ctx))
	}
	require.NoError(t, rc.servers[2].Kill()) // A's third member, lost with the data

	b := rc.redLock(clientsB, "res")
	tries := 0
	for !ended(a.Done()) {
		h, ok, err := b.TryLock(ctx)
		tries++
		require.False(t, ok, "B took a quorum while A's hold is valid (err %v)", err)
		require.Nil(t, h)
		time.Sleep(20 * time.Millisecond)
	}
	require.Positive(t, tries)
	require.ErrorIs(t, a.Err(), redisson.ErrLeaseExpired)

	require.NoError(t, rc.servers[2].Restart(ctx)) // the delayed restart
	hb, ok, err := b.TryLock(ctx, multilock.WithWait(3*time.Second))
	require.NoError(t, err)
	require.True(t, ok, "B gets a quorum once A's hold ended")
	require.NoError(t, hb.Err())
	require.NoError(t, hb.Unlock(ctx))
	require.ErrorIs(t, a.Unlock(ctx), redisson.ErrLeaseExpired, "A's hold had ended")
}

// TestRedLockRestartedServerAtOnceIsUnsafe documents what docs/multilock.md says
// RedLock does not guarantee: a server that restarts empty and rejoins at
// once lets a second owner get a quorum while the first owner's hold is
// still valid. Only a delayed restart (or fsync'd persistence) and fencing
// tokens protect against it.
func TestRedLockRestartedServerAtOnceIsUnsafe(t *testing.T) {
	rc := newRedCluster(t, 5)
	ctx := context.Background()
	clientsB := make([]*redisson.Client, 5)
	for i, s := range rc.servers {
		clientsB[i] = redissontest.ClientAt(t, s.Addr())
	}
	require.NoError(t, rc.servers[3].Kill())
	require.NoError(t, rc.servers[4].Kill())
	a, ok, err := rc.redLock(rc.clients, "res").TryLock(ctx, multilock.WithLease(30*time.Second), multilock.WithWait(time.Second))
	require.NoError(t, err)
	require.True(t, ok)
	defer a.Unlock(ctx)
	for _, i := range []int{2, 3, 4} { // server 2 loses A's member
		require.NoError(t, rc.servers[i].Restart(ctx))
	}
	b, ok, err := rc.redLock(clientsB, "res").TryLock(ctx, multilock.WithWait(3*time.Second))
	require.NoError(t, err)
	require.True(t, ok, "B got servers 2, 3, 4")
	defer b.Unlock(ctx)
	require.NoError(t, a.Err(), "A's hold is still valid: two owners hold at once")
	require.NoError(t, b.Err())
}
