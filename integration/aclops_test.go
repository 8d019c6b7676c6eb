package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/ratelimit"
)

// opEnv is what one object's basic operations run with: two clients (a
// holder and a waiter, so that every wake-up travels over pub/sub) and a
// connection with every right, for checks.
type opEnv struct {
	a, b  *redisson.Client
	admin *redis.Client
}

// objectOp is the basic operations of one object, named by the object.
type objectOp struct {
	object string
	run    func(t *testing.T, ctx context.Context, e opEnv)
}

// waitSubscribed waits until channel has n subscribers.
func (e opEnv) waitSubscribed(t *testing.T, channel string, n int64) {
	t.Helper()
	redistest.Eventually(t, 30*time.Second, "a subscriber on "+channel, func() bool {
		return redistest.NumSub(t, e.admin, channel) >= n
	})
}

// background runs fn in a goroutine and returns its result's channel.
func background(fn func() error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	return done
}

// await fails the test unless done delivers nil within 30 s.
func await(t *testing.T, what string, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		require.NoError(t, err, what)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: not done within 30s", what)
	}
}

// lockOps are the lock kinds: each acquired, contended (the waiter is woken
// by the unlock message), renewed by the watchdog, and released.
var lockOps = []objectOp{
	{"RLock", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:lock"
		h, err := e.a.Lock(name).Lock(ctx)
		require.NoError(t, err)
		// A renewal puts the lease back up: the time to live rises above
		// the lowest seen before it by more than the time between two
		// looks.
		low := e.admin.PTTL(ctx, name).Val()
		redistest.Eventually(t, 30*time.Second, "a watchdog renewal", func() bool {
			ttl := e.admin.PTTL(ctx, name).Val()
			low = min(low, ttl)
			return ttl > low+500*time.Millisecond
		})
		done := background(func() error {
			wh, err := e.b.Lock(name).Lock(ctx)
			if err != nil {
				return err
			}
			return wh.Unlock(ctx)
		})
		e.waitSubscribed(t, keys.LockChannel(name), 1)
		require.NoError(t, h.Unlock(ctx))
		await(t, "the waiter's lock and unlock", done)
		locked, err := e.a.Lock(name).IsLocked(ctx)
		require.NoError(t, err)
		require.False(t, locked)
	}},
	{"FairLock", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:fair"
		h, err := e.a.FairLock(name).Lock(ctx)
		require.NoError(t, err)
		done := background(func() error {
			wh, err := e.b.FairLock(name).Lock(ctx)
			if err != nil {
				return err
			}
			return wh.Unlock(ctx)
		})
		redistest.Eventually(t, 30*time.Second, "the waiter queued", func() bool {
			return e.admin.LLen(ctx, keys.FairLockQueue(name)).Val() == 1
		})
		require.NoError(t, h.Unlock(ctx))
		await(t, "the waiter's lock and unlock", done)
		th, ok, err := e.a.FairLock(name).TryLock(ctx, fairlock.WithWait(time.Second))
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, th.Unlock(ctx))
	}},
	{"ReadWriteLock", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:rw"
		r1, err := e.a.ReadWriteLock(name).ReadLock().Lock(ctx)
		require.NoError(t, err)
		r2, err := e.b.ReadWriteLock(name).ReadLock().Lock(ctx)
		require.NoError(t, err)
		require.NoError(t, r2.Unlock(ctx))
		done := background(func() error {
			w, err := e.b.ReadWriteLock(name).WriteLock().Lock(ctx)
			if err != nil {
				return err
			}
			return w.Unlock(ctx)
		})
		e.waitSubscribed(t, "redisson_rwlock:{"+name+"}", 1)
		require.NoError(t, r1.Unlock(ctx))
		await(t, "the writer's lock and unlock", done)
	}},
	{"FencedLock", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:fenced"
		h, err := e.a.FencedLock(name).Lock(ctx)
		require.NoError(t, err)
		require.Positive(t, h.Token())
		done := background(func() error {
			wh, err := e.b.FencedLock(name).Lock(ctx)
			if err != nil {
				return err
			}
			if wh.Token() <= h.Token() {
				return fmt.Errorf("token %d after %d", wh.Token(), h.Token())
			}
			return wh.Unlock(ctx)
		})
		e.waitSubscribed(t, keys.LockChannel(name), 1)
		require.NoError(t, h.Unlock(ctx))
		await(t, "the waiter's lock and unlock", done)
	}},
	{"MultiLock and RedLock", func(t *testing.T, ctx context.Context, e opEnv) {
		m := multilock.New(e.a.Lock("app:m1"), e.a.Lock("app:m2"))
		h, err := m.Lock(ctx)
		require.NoError(t, err)
		require.NoError(t, h.Unlock(ctx))
		r := multilock.NewRedLock(e.a.Lock("app:r1"), e.b.Lock("app:r1"), e.a.Lock("app:r2"))
		rh, err := r.Lock(ctx)
		require.NoError(t, err)
		require.NoError(t, rh.Unlock(ctx))
	}},
	{"group multi-lock", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:group"
		h, err := e.a.MultiLockGroup(name, "x", "y").Lock(ctx)
		require.NoError(t, err)
		done := background(func() error {
			wh, err := e.b.MultiLockGroup(name, "y", "z").Lock(ctx)
			if err != nil {
				return err
			}
			return wh.Unlock(ctx)
		})
		e.waitSubscribed(t, keys.LockChannel(name), 1)
		require.NoError(t, h.Unlock(ctx))
		await(t, "the waiter's lock and unlock", done)
	}},
}

// syncOps are the synchronizers.
var syncOps = []objectOp{
	{"Semaphore", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:sem"
		ok, err := e.a.Semaphore(name).TrySetPermits(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		p, err := e.a.Semaphore(name).AcquirePermits(ctx, 1)
		require.NoError(t, err)
		done := background(func() error {
			wp, err := e.b.Semaphore(name).AcquirePermits(ctx, 1)
			if err != nil {
				return err
			}
			return wp.Release(ctx)
		})
		e.waitSubscribed(t, "redisson_sc:{"+name+"}", 1)
		require.NoError(t, p.Release(ctx))
		await(t, "the waiter's acquire and release", done)
		n, err := e.a.Semaphore(name).AvailablePermits(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
	}},
	{"PermitExpirableSemaphore", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:pes"
		ok, err := e.a.PermitExpirableSemaphore(name).TrySetPermits(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		id, err := e.a.PermitExpirableSemaphore(name).Acquire(ctx)
		require.NoError(t, err)
		done := background(func() error {
			wid, err := e.b.PermitExpirableSemaphore(name).Acquire(ctx)
			if err != nil {
				return err
			}
			return e.b.PermitExpirableSemaphore(name).Release(ctx, wid)
		})
		e.waitSubscribed(t, "redisson_sc:{"+name+"}", 1)
		require.NoError(t, e.a.PermitExpirableSemaphore(name).Release(ctx, id))
		await(t, "the waiter's acquire and release", done)
	}},
	{"CountDownLatch", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:latch"
		ok, err := e.a.CountDownLatch(name).TrySetCount(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		done := background(func() error {
			open, err := e.b.CountDownLatch(name).Await(ctx, latch.WithTimeout(30*time.Second))
			if err == nil && !open {
				err = fmt.Errorf("the latch did not open")
			}
			return err
		})
		e.waitSubscribed(t, "redisson_countdownlatch__channel__{"+name+"}", 1)
		require.NoError(t, e.a.CountDownLatch(name).CountDown(ctx))
		await(t, "the waiter's await", done)
	}},
	{"RateLimiter", func(t *testing.T, ctx context.Context, e opEnv) {
		for _, typ := range []ratelimit.RateType{ratelimit.Overall, ratelimit.PerClient} {
			name := "app:rate:" + typ.String()
			ok, err := e.a.RateLimiter(name).TrySetRate(ctx, typ, 1, 200*time.Millisecond)
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, e.a.RateLimiter(name).Acquire(ctx, 1))
			require.NoError(t, e.a.RateLimiter(name).Acquire(ctx, 1), "the second permit, after the interval")
			got, err := e.b.RateLimiter(name).TryAcquire(ctx, 1, ratelimit.WithWait(5*time.Second))
			require.NoError(t, err)
			require.True(t, got)
		}
	}},
}

// valueOps are the values and collections.
var valueOps = []objectOp{
	{"Bucket and AtomicLong", func(t *testing.T, ctx context.Context, e opEnv) {
		b := redisson.NewBucket[string](e.a, "app:bucket", codec.String())
		require.NoError(t, b.Set(ctx, "v"))
		v, ok, err := b.Get(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "v", v)
		set, err := b.CompareAndSet(ctx, "v", "w")
		require.NoError(t, err)
		require.True(t, set)
		n, err := e.a.AtomicLong("app:counter").IncrementAndGet(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
	}},
	{"Map, List, Set, ScoredSortedSet", func(t *testing.T, ctx context.Context, e opEnv) {
		m := redisson.NewMap[string, string](e.a, "app:map", codec.String())
		_, _, err := m.Put(ctx, "k", "v")
		require.NoError(t, err)
		v, ok, err := m.Get(ctx, "k")
		require.NoError(t, err)
		require.True(t, ok && v == "v")
		l := redisson.NewList[string](e.a, "app:list", codec.String())
		require.NoError(t, l.Add(ctx, "a"))
		all, err := l.ReadAll(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"a"}, all)
		s := redisson.NewSet[string](e.a, "app:set", codec.String())
		_, err = s.Add(ctx, "a")
		require.NoError(t, err)
		has, err := s.Contains(ctx, "a")
		require.NoError(t, err)
		require.True(t, has)
		z := redisson.NewScoredSortedSet[string](e.a, "app:zset", codec.String())
		_, err = z.Add(ctx, 1, "a")
		require.NoError(t, err)
		first, ok, err := z.PollFirst(ctx)
		require.NoError(t, err)
		require.True(t, ok && first == "a")
	}},
}

// queueOps are the queues.
var queueOps = []objectOp{
	{"Queue and Deque", func(t *testing.T, ctx context.Context, e opEnv) {
		q := redisson.NewQueue[string](e.a, "app:queue", codec.String())
		require.NoError(t, q.Offer(ctx, "a"))
		v, ok, err := q.Poll(ctx)
		require.NoError(t, err)
		require.True(t, ok && v == "a")
		d := redisson.NewDeque[string](e.a, "app:deque", codec.String())
		require.NoError(t, d.AddFirst(ctx, "a"))
		v, ok, err = d.PollLast(ctx)
		require.NoError(t, err)
		require.True(t, ok && v == "a")
	}},
	{"BlockingQueue", func(t *testing.T, ctx context.Context, e opEnv) {
		name := "app:blocking"
		took := make(chan string, 1)
		done := background(func() error {
			v, err := redisson.NewBlockingQueue[string](e.b, name, codec.String()).Take(ctx)
			took <- v
			return err
		})
		redistest.Eventually(t, 30*time.Second, "Take blocked", func() bool {
			return blockedClients(t, e.admin) == 1
		})
		require.NoError(t, redisson.NewBlockingQueue[string](e.a, name, codec.String()).Put(ctx, "job"))
		await(t, "Take", done)
		require.Equal(t, "job", <-took)
		// Take cancelled while it blocks: CLIENT UNBLOCK on its own connection.
		cctx, cancel := context.WithCancel(ctx)
		done = background(func() error {
			_, err := redisson.NewBlockingQueue[string](e.b, name, codec.String()).Take(cctx)
			if err == nil {
				return fmt.Errorf("a cancelled Take returned an element")
			}
			return nil
		})
		redistest.Eventually(t, 30*time.Second, "Take blocked", func() bool {
			return blockedClients(t, e.admin) == 1
		})
		cancel()
		await(t, "the cancelled Take", done)
		redistest.Eventually(t, 30*time.Second, "Take unblocked", func() bool {
			return blockedClients(t, e.admin) == 0
		})
	}},
	{"DelayedQueue", func(t *testing.T, ctx context.Context, e opEnv) {
		dq := redisson.NewDelayedQueue[string](e.a, "app:delayed", codec.String())
		defer dq.Destroy()
		require.NoError(t, dq.Offer(ctx, "later", 200*time.Millisecond))
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		v, err := dq.Destination().Take(tctx)
		require.NoError(t, err)
		require.Equal(t, "later", v)
	}},
}

// topicOps are the topics.
var topicOps = []objectOp{
	{"Topic and PatternTopic", func(t *testing.T, ctx context.Context, e opEnv) {
		topic := redisson.NewTopic[string](e.a, "app:events", codec.String())
		sub, err := topic.Subscribe(ctx)
		require.NoError(t, err)
		defer sub.Close()
		psub, err := redisson.NewPatternTopic[string](e.a, "app:ev*", codec.String()).Subscribe(ctx)
		require.NoError(t, err)
		defer psub.Close()
		n, err := redisson.NewTopic[string](e.b, "app:events", codec.String()).Publish(ctx, "hello")
		require.NoError(t, err)
		require.Equal(t, int64(2), n)
		for _, ch := range []<-chan pubsub.Message[string]{sub.Messages(), psub.Messages()} {
			select {
			case m := <-ch:
				require.Equal(t, "hello", m.Value)
			case <-time.After(30 * time.Second):
				t.Fatal("no message")
			}
		}
		// A silent pub/sub connection is pinged (after 5 s): PING must be
		// allowed, or the hub takes the refusal for a dead connection.
		redistest.Eventually(t, 30*time.Second, "the hub's heartbeat PING", func() bool {
			list, err := e.admin.ClientList(ctx).Result()
			require.NoError(t, err)
			for _, f := range parseClientList(list) {
				if strings.Contains(f["flags"], "P") && f["cmd"] == "ping" && f["user"] != "default" {
					return true
				}
			}
			return false
		})
	}},
	{"ReliableTopic", func(t *testing.T, ctx context.Context, e opEnv) {
		rt := redisson.NewReliableTopic[string](e.a, "app:reliable", codec.String())
		sub, err := rt.Subscribe(ctx)
		require.NoError(t, err)
		defer sub.Close()
		_, err = redisson.NewReliableTopic[string](e.b, "app:reliable", codec.String()).Publish(ctx, "hello")
		require.NoError(t, err)
		select {
		case m := <-sub.Messages():
			require.NoError(t, m.Err)
			require.Equal(t, "hello", m.Value)
		case <-time.After(30 * time.Second):
			t.Fatal("no message")
		}
	}},
}

// blockedClients counts the connections blocked in a command (CLIENT LIST
// flags b).
func blockedClients(t *testing.T, admin *redis.Client) int {
	t.Helper()
	list, err := admin.ClientList(t.Context()).Result()
	require.NoError(t, err)
	n := 0
	for _, f := range parseClientList(list) {
		if f["cmd"] == "blpop" || f["cmd"] == "brpop" {
			n++
		}
	}
	return n
}
