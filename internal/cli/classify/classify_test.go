package classify_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/semaphore"
)

// kindCase is one object written by the library (or a plain Redis key) and
// the kind the classifier must give it; listed false: ls shows no object.
type kindCase struct {
	name   string
	make   func(t *testing.T, c *redisson.Client, rdb *redis.Client)
	kind   string
	listed bool
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// subscribe keeps one connection subscribed to channel for the test: a
// waiter, as far as the classifier can tell.
func subscribe(t *testing.T, rdb *redis.Client, channel string) {
	t.Helper()
	ps := rdb.Subscribe(context.Background(), channel)
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var kindCases = []kindCase{
	{"lock", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.Lock("lock").Lock(t.Context())
		must(t, err)
	}, classify.Lock, true},
	{"fair", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.FairLock("fair").Lock(t.Context())
		must(t, err)
		go func() { _, _ = c.FairLock("fair").Lock(t.Context()) }()
		redistest.Eventually(t, 30*time.Second, "the fair lock's waiter to queue", func() bool {
			return rdb.LLen(context.Background(), keys.FairLockQueue("fair")).Val() == 1
		})
	}, classify.FairLock, true},
	// A fair lock nobody waits for leaves no queue or timeout key: its hash
	// is a lock's, and the holder's registration record says the rest.
	{"fair-alone", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.FairLock("fair-alone").Lock(t.Context())
		must(t, err)
		waitRecorded(t, rdb, c, "fair-alone")
	}, classify.FairLock, true},
	// Without a record (Java, or registration off), that is all Redis can
	// say.
	{"fair-alone-unregistered", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		c, err := redisson.New(rdb, func(o *redisson.Options) { o.Registration.Disabled = true })
		must(t, err)
		t.Cleanup(func() { c.Close() })
		_, err = c.FairLock("fair-alone-unregistered").Lock(t.Context())
		must(t, err)
	}, classify.Lock, true},
	// The spin and non-reentrant locks without a record read as the
	// plain and fair locks whose keys they keep (a Java holder's too).
	{"spin-unregistered", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		c, err := redisson.New(rdb, func(o *redisson.Options) { o.Registration.Disabled = true })
		must(t, err)
		t.Cleanup(func() { c.Close() })
		_, err = c.SpinLock("spin-unregistered").Lock(t.Context())
		must(t, err)
	}, classify.Lock, true},
	{"rw-read", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.ReadWriteLock("rw-read").ReadLock().Lock(t.Context())
		must(t, err)
	}, classify.RWLock, true},
	{"rw-write", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.ReadWriteLock("rw-write").WriteLock().Lock(t.Context())
		must(t, err)
	}, classify.RWLock, true},
	{"group", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.MultiLockGroup("group", "a", "b").Lock(t.Context(), multilock.WithLease(time.Minute))
		must(t, err)
	}, classify.Group, true},
	{"sem", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.Semaphore("sem").TrySetPermits(t.Context(), 4)
		must(t, err)
		subscribe(t, rdb, "redisson_sc:{sem}")
	}, classify.Semaphore, true},
	{"sem-idle", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.Semaphore("sem-idle").TrySetPermits(t.Context(), 4)
		must(t, err)
	}, classify.AtomicLong, true},
	{"pes", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		pes := c.PermitExpirableSemaphore("pes")
		_, err := pes.TrySetPermits(t.Context(), 3)
		must(t, err)
		_, err = pes.Acquire(t.Context(), semaphore.WithLease(time.Minute))
		must(t, err)
	}, classify.Expirable, true},
	{"latch", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.CountDownLatch("latch").TrySetCount(t.Context(), 2)
		must(t, err)
		subscribe(t, rdb, "redisson_countdownlatch__channel__{latch}")
	}, classify.Latch, true},
	{"long", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.AtomicLong("long").AddAndGet(t.Context(), 42)
		must(t, err)
	}, classify.AtomicLong, true},
	{"rate", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		must(t, c.RateLimiter("rate").SetRate(t.Context(), ratelimit.Overall, 10, time.Second))
	}, classify.RateLimiter, true},
	{"bucket", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		must(t, redisson.NewBucket[string](c, "bucket", codec.String()).Set(t.Context(), "hello"))
	}, classify.Bucket, true},
	{"map", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, _, err := redisson.NewMap[string, string](c, "map", codec.String()).Put(t.Context(), "k", "v")
		must(t, err)
	}, classify.Map, true},
	{"hash", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		must(t, rdb.HSet(context.Background(), "hash", "field", "1").Err())
	}, classify.Map, true},
	// An owner-shaped field with no count is not a holder.
	{"hash-owner", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		must(t, rdb.HSet(context.Background(), "hash-owner", c.ID()+":1", "x").Err())
	}, classify.Map, true},
	{"hash-mode", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		must(t, rdb.HSet(context.Background(), "hash-mode", "mode", "fast").Err())
	}, classify.Map, true},
	{"list", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		must(t, rdb.RPush(context.Background(), "list", "x").Err())
	}, classify.Unknown("list"), true},
	// An unlock leaves an unlock latch behind; the lock is free, and the
	// latch is no object.
	{keys.UnlockLatchPrefix("unlocked") + ":0123456789abcdef0123456789abcdef", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		h, err := c.Lock("unlocked").Lock(t.Context())
		must(t, err)
		must(t, h.Unlock(t.Context()))
		must(t, rdb.Set(context.Background(), keys.UnlockLatchPrefix("unlocked")+":0123456789abcdef0123456789abcdef", "1", time.Minute).Err())
	}, classify.UnlockLatch, false},
}

// TestKinds: inspect and ls give each object written by the library the
// same kind, through the one classifier.
func TestKinds(t *testing.T) {
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	client, err := redisson.New(rdb)
	must(t, err)
	t.Cleanup(func() { client.Close() })
	for _, tc := range kindCases {
		tc.make(t, client, rdb)
	}
	ctx := context.Background()
	res, err := ls.List(ctx, rdb, ls.Options{Pattern: "*", MaxKeys: 10000, ScanCount: 1000})
	must(t, err)
	listed := map[string]string{}
	for _, o := range res.Objects {
		listed[o.Name] = o.Kind
	}
	for _, tc := range kindCases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := inspect.Inspect(ctx, rdb, tc.name)
			must(t, err)
			if rep.Kind != tc.kind {
				t.Errorf("inspect: kind %q, want %q", rep.Kind, tc.kind)
			}
			kind, ok := listed[tc.name]
			switch {
			case ok != tc.listed:
				t.Errorf("ls lists it: %v, want %v (objects: %v)", ok, tc.listed, listed)
			case ok && kind != tc.kind:
				t.Errorf("ls: kind %q, want %q", kind, tc.kind)
			}
		})
	}
	if kind, ok := listed["unlocked"]; ok {
		t.Errorf("the free lock of an unlock latch is listed, as %q", kind)
	}
	if t.Failed() {
		t.Log(fmt.Sprint(listed))
	}
}
