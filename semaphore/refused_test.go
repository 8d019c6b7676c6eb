package semaphore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// aclClient returns a Client logged in as user, whom admin defines with
// rules; it is closed when the test ends.
func aclClient(t *testing.T, srv *redistest.Server, admin *redis.Client, user string, rules ...string) *redisson.Client {
	t.Helper()
	redistest.SetUser(t, admin, user, rules...)
	c, err := redisson.New(redistest.UserClient(t, srv, user))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// A release Redis refused for want of memory gave nothing back: the permits
// stay the caller's, the error names OOM, and the same Release succeeds once
// memory is freed. The semaphore ends whole (it ended with 1 of 2 permits
// when the refused Release counted as done).
func TestReleaseRefusedByOOMCanBeRetried(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartFullable(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	sem := c.Semaphore("oom")
	ok, err := sem.TrySetPermits(ctx, 2)
	require.NoError(t, err)
	require.True(t, ok)
	p, ok, err := sem.TryAcquirePermits(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, sem.Acquire(ctx, 1))

	free := redistest.Fill(t, raw)
	errPermits := p.Release(ctx)
	errCount := sem.Release(ctx, 1)
	require.Equal(t, "0", rawValue(t, raw, "oom"))
	free()
	second := p.Release(ctx)
	require.NoError(t, sem.Release(ctx, 1))
	n, err := sem.AvailablePermits(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n, "2 of 2 permits (the refused Release of the permits said: %v; the second: %v)", errPermits, second)
	require.NoError(t, second, "the permits were still held")
	require.ErrorIs(t, p.Release(ctx), redisson.ErrNotOwner, "given back once")
	for _, err := range []error{errPermits, errCount} {
		require.ErrorIs(t, err, redisson.ErrReleaseRefused)
		require.ErrorContains(t, err, "OOM")
		require.ErrorContains(t, err, "none were given back")
	}
}

// A release an ACL refused before it ran (the semaphore's key is no longer
// the user's) wraps ErrNoPermission, keeps the permits, and succeeds once
// the ACL allows it again.
func TestReleaseRefusedByACLCanBeRetried(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	c := aclClient(t, srv, admin, "app", "~*", "&*", "+@all")
	sem := c.Semaphore("app:acl")
	_, err := sem.TrySetPermits(ctx, 2)
	require.NoError(t, err)
	p, ok, err := sem.TryAcquirePermits(ctx, 2)
	require.NoError(t, err)
	require.True(t, ok)

	redistest.SetUser(t, admin, "app", "~other:*", "&*", "+@all")
	err = p.Release(ctx)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "NOPERM")
	require.ErrorContains(t, err, "none were given back")
	require.Equal(t, "0", rawValue(t, admin, "app:acl"))

	redistest.SetUser(t, admin, "app", "~*", "&*", "+@all")
	require.NoError(t, p.Release(ctx))
	require.Equal(t, "2", rawValue(t, admin, "app:acl"), "2 of 2 permits")
}

// A release whose PUBLISH the ACL refused after the script gave the permits
// back says they were given back, and a second Release is refused: sending
// it again would create permits.
func TestReleaseWithRefusedMessageIsDone(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	c := aclClient(t, srv, admin, "app", "~*", "&*", "+@all")
	sem := c.Semaphore("app:quiet")
	_, err := sem.TrySetPermits(ctx, 2)
	require.NoError(t, err)
	p, ok, err := sem.TryAcquirePermits(ctx, 2)
	require.NoError(t, err)
	require.True(t, ok)

	redistest.SetUser(t, admin, "app", "~*", "&other:*", "+@all")
	err = p.Release(ctx)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.NotErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "were given back")
	require.Equal(t, "2", rawValue(t, admin, "app:quiet"))
	require.ErrorIs(t, p.Release(ctx), redisson.ErrNotOwner)
	require.Equal(t, "2", rawValue(t, admin, "app:quiet"), "2 of 2 permits, not 4")
}

// A permit-expirable semaphore's release gives its permit back even under
// OOM (its script's first write, a ZREM, lets the rest through); one an ACL
// refused keeps the permit held, wraps ErrNoPermission and may be sent
// again.
func TestExpirableReleaseRefused(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartFullable(t)
	admin := redistest.Client(t, srv)
	c := aclClient(t, srv, admin, "app", "~*", "&*", "+@all")
	sem := c.PermitExpirableSemaphore("app:pes")
	_, err := sem.TrySetPermits(ctx, 2)
	require.NoError(t, err)
	a, err := sem.Acquire(ctx)
	require.NoError(t, err)
	b, err := sem.Acquire(ctx)
	require.NoError(t, err)

	free := redistest.Fill(t, admin)
	require.NoError(t, sem.Release(ctx, a), "under OOM")
	free()

	redistest.SetUser(t, admin, "app", "~other:*", "&*", "+@all")
	err = sem.Release(ctx, b)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "still held")
	redistest.SetUser(t, admin, "app", "~*", "&*", "+@all")
	require.NoError(t, sem.Release(ctx, b))
	n, err := sem.AvailablePermits(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n, "2 of 2 permits")
}

// AddPermits refuses, changing nothing, a total a Java int cannot hold:
// Java peers read the count as an int (it reached 4 294 967 299 before).
func TestAddPermitsRefusesTotalsPastJavaInt(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	const maxInt, minInt = 2147483647, -2147483648
	kinds := []struct {
		name string
		add  func(name string, n int) error
	}{
		{"semaphore", func(name string, n int) error { return c.Semaphore(name).AddPermits(ctx, n) }},
		{"permit-expirable", func(name string, n int) error { return c.PermitExpirableSemaphore(name).AddPermits(ctx, n) }},
	}
	steps := []struct {
		name    string
		start   []int // adds that must succeed first
		add     int
		refused bool
		want    string
	}{
		{"up to the largest int", []int{5}, maxInt - 5, false, "2147483647"},
		{"one past the largest int", []int{5, maxInt - 5}, 1, true, "2147483647"},
		{"the issue's total", []int{5, maxInt - 5}, maxInt, true, "2147483647"},
		{"down to the least int", []int{-5}, minInt + 5, false, "-2147483648"},
		{"one below the least int", []int{minInt}, -1, true, "-2147483648"},
	}
	for _, k := range kinds {
		for i, st := range steps {
			t.Run(k.name+"/"+st.name, func(t *testing.T) {
				name := fmt.Sprintf("range-%s-%d", k.name, i)
				for _, n := range st.start {
					require.NoError(t, k.add(name, n))
				}
				err := k.add(name, st.add)
				if st.refused {
					require.ErrorIs(t, err, redisson.ErrInvalidArgument)
					require.ErrorContains(t, err, "Java int")
				} else {
					require.NoError(t, err)
				}
				require.Equal(t, st.want, rawValue(t, raw, name))
			})
		}
	}
}
