package redisson_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/ratelimit"
)

// TestObjectErrorOfEveryKind: the error of every kind of object is a
// *redisson.ObjectError that errors.As finds, with the object's kind, name
// and the operation, and that still matches its sentinel with errors.Is.
func TestObjectErrorOfEveryKind(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	closed, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	ctx := context.Background()
	// onString and onHash put a value of the wrong Redis type in the way.
	onString := func(t *testing.T, key string) { require.NoError(t, raw.Set(ctx, key, "x", 0).Err()) }
	onHash := func(t *testing.T, key string) { require.NoError(t, raw.HSet(ctx, key, "f", "v").Err()) }

	for _, tc := range []struct {
		kind, name, op string
		is             error
		make           func(t *testing.T) error
	}{
		{"lock", "e-lock", "lock", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-lock")
			_, err := c.Lock("e-lock").Lock(ctx)
			return err
		}},
		{"fair lock", "e-fair", "lock", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-fair")
			_, err := c.FairLock("e-fair").Lock(ctx)
			return err
		}},
		{"read lock", "e-rw", "lock", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-rw")
			_, err := c.ReadWriteLock("e-rw").ReadLock().Lock(ctx)
			return err
		}},
		{"fenced lock", "e-fenced", "lock", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-fenced")
			_, err := c.FencedLock("e-fenced").Lock(ctx)
			return err
		}},
		{"multi-lock", "[e-member]", "lock", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-member")
			_, err := multilock.New(c.Lock("e-member")).Lock(ctx)
			return err
		}},
		{"group multi-lock", "e-group", "lock", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-group")
			_, err := c.MultiLockGroup("e-group", "a", "b").Lock(ctx)
			return err
		}},
		{"semaphore", "e-sem", "try acquire", redisson.ErrWrongType, func(t *testing.T) error {
			onHash(t, "e-sem")
			_, err := c.Semaphore("e-sem").TryAcquire(ctx, 1)
			return err
		}},
		{"permit-expirable semaphore", "e-pes", "try acquire", redisson.ErrClosed, func(t *testing.T) error {
			_, _, err := closed.PermitExpirableSemaphore("e-pes").TryAcquire(ctx)
			return err
		}},
		{"latch", "e-latch", "count", redisson.ErrWrongType, func(t *testing.T) error {
			onHash(t, "e-latch")
			_, err := c.CountDownLatch("e-latch").Count(ctx)
			return err
		}},
		{"rate limiter", "e-rate", "try set rate", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-rate")
			_, err := c.RateLimiter("e-rate").TrySetRate(ctx, ratelimit.Overall, 1, time.Second)
			return err
		}},
		{"bucket", "e-bucket", "get", redisson.ErrWrongType, func(t *testing.T) error {
			onHash(t, "e-bucket")
			_, _, err := redisson.NewBucket[string](c, "e-bucket", codec.String()).Get(ctx)
			return err
		}},
		{"atomic long", "e-long", "get", redisson.ErrWrongType, func(t *testing.T) error {
			onHash(t, "e-long")
			_, err := c.AtomicLong("e-long").Get(ctx)
			return err
		}},
		{"map", "e-map", "get", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-map")
			_, _, err := redisson.NewMap[string, string](c, "e-map", codec.String()).Get(ctx, "k")
			return err
		}},
		{"map cache", "e-mapcache", "get", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-mapcache")
			_, _, err := redisson.NewMapCache[string, string](c, "e-mapcache", codec.String()).Get(ctx, "k")
			return err
		}},
		{"queue", "e-queue", "offer", redisson.ErrWrongType, func(t *testing.T) error {
			onString(t, "e-queue")
			return redisson.NewQueue[string](c, "e-queue", codec.String()).Offer(ctx, "v")
		}},
		{"topic", "e-topic", "publish", redisson.ErrClosed, func(t *testing.T) error {
			_, err := redisson.NewTopic[string](closed, "e-topic", codec.String()).Publish(ctx, "m")
			return err
		}},
		{"reliable topic", "e-reliable", "publish", redisson.ErrWrongType, func(t *testing.T) error {
			onHash(t, "e-reliable")
			_, err := redisson.NewReliableTopic[string](c, "e-reliable", codec.String()).Publish(ctx, "m")
			return err
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			err := tc.make(t)
			var oe *redisson.ObjectError
			require.True(t, errors.As(err, &oe), "%T %v is no *redisson.ObjectError", err, err)
			require.Equal(t, tc.kind, oe.Kind, err.Error())
			require.Equal(t, tc.name, oe.Name, err.Error())
			require.Equal(t, tc.op, oe.Op, err.Error())
			require.ErrorIs(t, err, tc.is)
			require.ErrorIs(t, oe.Err, tc.is, "the cause, without the object")
		})
	}
}

// TestObjectErrorOfAMultiLockMember: a multi-lock's error wraps its
// member's, which errors.As finds under the multi-lock's own.
func TestObjectErrorOfAMultiLockMember(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	require.NoError(t, c.Redis().Set(ctx, "member", "x", 0).Err())

	_, err = multilock.New(c.Lock("free"), c.Lock("member")).Lock(ctx)
	var outer, member *redisson.ObjectError
	require.True(t, errors.As(err, &outer), err)
	require.True(t, errors.As(outer.Err, &member), err)
	require.Equal(t, []string{"multi-lock", "lock", "member", "try lock"},
		[]string{outer.Kind, member.Kind, member.Name, member.Op}, err.Error())
}

// Read which object and operation failed from any object's error; the
// cause still matches its sentinel.
func ExampleObjectError() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	rdb.Set(ctx, "example:not-a-lock", "text", 0) // a string where a lock's hash goes

	_, err = client.Lock("example:not-a-lock").Lock(ctx)
	var oe *redisson.ObjectError
	if errors.As(err, &oe) {
		fmt.Printf("kind=%s name=%s op=%s\n", oe.Kind, oe.Name, oe.Op)
	}
	fmt.Println(errors.Is(err, redisson.ErrWrongType))
	// Output:
	// kind=lock name=example:not-a-lock op=lock
	// true
}
