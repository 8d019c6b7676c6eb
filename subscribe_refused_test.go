package redisson_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/rlock"
)

// appUser (re)makes the ACL user app, allowed every key and command and the
// channels given, and returns a redisson client connected as app.
func appUser(t *testing.T, srv *redistest.Server, admin *redis.Client, channels ...string) *redisson.Client {
	t.Helper()
	args := []any{"ACL", "SETUSER", "app", "reset", "on", ">pw", "~*", "+@all"}
	for _, c := range channels {
		args = append(args, "&"+c)
	}
	require.NoError(t, admin.Do(context.Background(), args...).Err())
	c, err := redisson.New(redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = "app", "pw" }))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// pubsubConns returns the ids of user app's pub/sub connections.
func pubsubConns(t *testing.T, admin *redis.Client) []string {
	t.Helper()
	list, err := admin.Do(context.Background(), "CLIENT", "LIST", "TYPE", "pubsub").Text()
	require.NoError(t, err)
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(" "+line+" ", " user=app ") {
			ids = append(ids, f[0])
		}
	}
	return ids
}

// TestRefusedChannelFailsFastAndContained: the ACL user may not subscribe
// to the channel of a lock, a semaphore, a topic. Each waiter or subscriber
// of such a channel gets an error wrapping ErrNoPermission that names the
// channel, at once (well before the subscription timeout), while on the
// same client a permitted topic receives every message published during
// and after the refusals, a permitted lock waiter acquires when the lock is
// released, and the hub keeps its one connection. Once the ACL allows the
// channels, the same client waits on them as usual.
func TestRefusedChannelFailsFastAndContained(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	ac, err := redisson.New(admin)
	require.NoError(t, err)
	defer ac.Close()
	cl := appUser(t, srv, admin, "app:*", "redisson_lock__channel:{app:good}")
	ctx := t.Context()

	sub, err := redisson.NewTopic[string](cl, "app:news", codec.String()).Subscribe(ctx)
	require.NoError(t, err)
	defer sub.Close()
	good, err := ac.Lock("app:good").Lock(ctx)
	require.NoError(t, err)
	acquired := make(chan error, 1)
	go func() {
		h, err := cl.Lock("app:good").Lock(ctx)
		if err == nil {
			err = h.Unlock(context.Background())
		}
		acquired <- err
	}()
	redistest.Eventually(t, 10*time.Second, "the permitted waiter subscribed", func() bool {
		return redistest.NumSub(t, admin, "redisson_lock__channel:{app:good}") == 1
	})
	conns := pubsubConns(t, admin)
	require.Len(t, conns, 1)

	bad, err := ac.Lock("app:bad").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, ac.Semaphore("app:sem").SetPermits(ctx, 0))

	stop := publishNumbered(t, redisson.NewTopic[string](ac, "app:news", codec.String()))
	refuseEach(t, cl)
	published := stop()
	require.NoError(t, good.Unlock(ctx))
	select {
	case err := <-acquired:
		require.NoError(t, err, "the permitted lock waiter")
	case <-time.After(20 * time.Second):
		t.Fatal("the permitted lock waiter did not acquire")
	}
	for i := range published {
		select {
		case m, ok := <-sub.Messages():
			require.True(t, ok, "the permitted topic ended: %v", sub.Err())
			require.Nil(t, m.Gap, "a gap before message %d", i)
			require.Equal(t, strconv.Itoa(i), m.Value)
		case <-time.After(10 * time.Second):
			t.Fatalf("the permitted topic got %d of %d messages", i, published)
		}
	}
	require.Equal(t, conns, pubsubConns(t, admin), "the hub's connection was not replaced")

	// The ACL allows the channels now: the same client waits on them.
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "&redisson_lock__channel:{app:bad}", "&redisson_sc:{app:sem}").Err())
	waitersGetThrough(t, admin, ac, cl, bad)
}

// refuseEach waits on a lock, a semaphore and a topic whose channels the
// ACL refuses, a few times each: every wait must fail with ErrNoPermission
// naming the channel, before the subscription timeout.
func refuseEach(t *testing.T, cl *redisson.Client) {
	t.Helper()
	ctx := t.Context()
	refused := []struct {
		name, channel string
		wait          func(ctx context.Context) error
	}{
		{"lock", "redisson_lock__channel:{app:bad}", func(ctx context.Context) error {
			_, err := cl.Lock("app:bad").Lock(ctx)
			return err
		}},
		{"semaphore", "redisson_sc:{app:sem}", func(ctx context.Context) error {
			return cl.Semaphore("app:sem").Acquire(ctx, 1)
		}},
		{"topic", "bad:news", func(ctx context.Context) error {
			s, err := redisson.NewTopic[string](cl, "bad:news", codec.String()).Subscribe(ctx)
			if err == nil {
				_ = s.Close()
			}
			return err
		}},
	}
	for range 3 {
		for _, r := range refused {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			start := time.Now()
			err := r.wait(wctx)
			took := time.Since(start)
			cancel()
			require.ErrorIs(t, err, redisson.ErrNoPermission, r.name)
			require.ErrorContains(t, err, strconv.Quote(r.channel), r.name)
			require.ErrorContains(t, err, "&"+r.channel, r.name)
			require.Less(t, took, hub.DefaultConfirmTimeout, "%s: the refusal came before the subscription timeout", r.name)
		}
	}
}

// publishNumbered publishes "0", "1", … on news until the returned stop is
// called, which returns how many were published.
func publishNumbered(t *testing.T, news *pubsub.Topic[string]) (stop func() int) {
	t.Helper()
	done := make(chan struct{})
	count := make(chan int)
	go func() {
		n := 0
		defer func() { count <- n }()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := news.Publish(context.Background(), strconv.Itoa(n)); err != nil {
				t.Error(err)
				return
			}
			n++
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var once sync.Once
	n := 0
	stop = func() int {
		once.Do(func() {
			close(done)
			n = <-count
		})
		return n
	}
	// A test that fails before it stops the publisher stops it before
	// the clients close.
	t.Cleanup(func() { stop() })
	return stop
}

// waitersGetThrough waits on the lock app:bad (held by bad) and the
// semaphore app:sem through cl, and checks that both get through once ac
// releases them.
func waitersGetThrough(t *testing.T, admin *redis.Client, ac, cl *redisson.Client, bad *rlock.Hold) {
	t.Helper()
	ctx := t.Context()
	waited := make(chan error, 2)
	go func() {
		h, err := cl.Lock("app:bad").Lock(ctx)
		if err == nil {
			err = h.Unlock(context.Background())
		}
		waited <- err
	}()
	go func() { waited <- cl.Semaphore("app:sem").Acquire(ctx, 1) }()
	redistest.Eventually(t, 10*time.Second, "both waiters subscribed", func() bool {
		return redistest.NumSub(t, admin, "redisson_lock__channel:{app:bad}") == 1 &&
			redistest.NumSub(t, admin, "redisson_sc:{app:sem}") == 1
	})
	require.NoError(t, bad.Unlock(ctx))
	require.NoError(t, ac.Semaphore("app:sem").Release(ctx, 1))
	for range 2 {
		select {
		case err := <-waited:
			require.NoError(t, err)
		case <-time.After(20 * time.Second):
			t.Fatal("a waiter on a channel allowed now did not get through")
		}
	}
}

// TestChannelRevokedWhileWaiting: the ACL stops allowing the channel a lock
// waiter and a semaphore waiter wait on. Redis drops the hub's connection;
// its resubscription is refused, and each waiter fails with
// ErrNoPermission instead of sleeping on a channel no message can reach.
func TestChannelRevokedWhileWaiting(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	ac, err := redisson.New(admin)
	require.NoError(t, err)
	defer ac.Close()
	cl := appUser(t, srv, admin, "app:*", "redisson_lock__channel:{app:l}", "redisson_sc:{app:s}")
	ctx := t.Context()

	held, err := ac.Lock("app:l").Lock(ctx)
	require.NoError(t, err)
	defer func() { _ = held.Unlock(context.Background()) }()
	require.NoError(t, ac.Semaphore("app:s").SetPermits(ctx, 0))
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	errs := make(chan error, 2)
	go func() {
		_, err := cl.Lock("app:l").Lock(wctx)
		errs <- err
	}()
	go func() { errs <- cl.Semaphore("app:s").Acquire(wctx, 1) }()
	redistest.Eventually(t, 10*time.Second, "both waiters subscribed", func() bool {
		return redistest.NumSub(t, admin, "redisson_lock__channel:{app:l}") == 1 &&
			redistest.NumSub(t, admin, "redisson_sc:{app:s}") == 1
	})

	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "resetchannels", "&app:*").Err())
	for range 2 {
		select {
		case err := <-errs:
			require.ErrorIs(t, err, redisson.ErrNoPermission)
		case <-time.After(20 * time.Second):
			t.Fatal("a waiter whose channel was revoked still waits")
		}
	}
}
