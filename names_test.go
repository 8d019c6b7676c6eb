package redisson_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/localcache"
	"github.com/goredisson/redisson/mapcache"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/ratelimit"
)

// One name, every deployment (issue 33 item 6): a name whose derived keys
// or channels a cluster would put in another slot than the name is refused
// when used, with ErrInvalidName, on a single node as on a cluster; before,
// a lock called "x}y" was taken on a cluster and its Unlock failed with
// CROSSSLOT. Names without braces and names with a hash tag keep working.

// splitNames are names whose Redisson-derived keys or channels hash apart
// from the name for most kinds (docs/interop.md, "Names").
var splitNames = []string{"x}y", "}", "{", "x{", "a{}b"}

// goodNames work for every kind, everywhere.
var goodNames = []string{"orders", "a:b", "{tag}x", "{app}:x"}

// nameKind is one kind of object and a round of calls on it that touches
// every key and channel it derives.
type nameKind struct {
	kind string
	// keeps lists the split names this kind accepts: they share its slot
	// (a kind that derives nothing; the latch, whose channel always adds
	// braces, for names without '}').
	keeps []string
	// clusterOnly lists the good names this kind refuses on a cluster only.
	clusterOnly []string
	use         func(ctx context.Context, c *redisson.Client, name string) error
}

func lockRound(ctx context.Context, try func(context.Context) (unlocker, bool, error)) error {
	h, ok, err := try(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("not acquired")
	}
	return h.Unlock(ctx)
}

func nameKinds() []nameKind {
	str := codec.String()
	return []nameKind{
		{kind: "lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.Lock(n).TryLock(ctx) })
		}},
		{kind: "fair lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.FairLock(n).TryLock(ctx) })
		}},
		{kind: "fenced lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			if err := lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.FencedLock(n).TryLock(ctx) }); err != nil {
				return err
			}
			_, err := c.FencedLock(n).Delete(ctx)
			return err
		}},
		{kind: "spin lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.SpinLock(n).TryLock(ctx) })
		}},
		{kind: "non-reentrant lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.NonReentrantLock(n).TryLock(ctx) })
		}},
		{kind: "non-reentrant fair lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.NonReentrantFairLock(n).TryLock(ctx) })
		}},
		{kind: "read lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.ReadWriteLock(n).ReadLock().TryLock(ctx) })
		}},
		{kind: "write lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.ReadWriteLock(n).WriteLock().TryLock(ctx) })
		}},
		{kind: "group multi-lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) { return c.MultiLockGroup(n, "v1", "v2").TryLock(ctx) })
		}},
		{kind: "multi-lock", use: func(ctx context.Context, c *redisson.Client, n string) error {
			return lockRound(ctx, func(ctx context.Context) (unlocker, bool, error) {
				return multilock.New(c.Lock("other"), c.Lock(n)).TryLock(ctx)
			})
		}},
		{kind: "semaphore", use: semaphoreRound},
		{kind: "permit-expirable semaphore", use: expirableRound},
		// The latch's channel wraps even a hash tag in braces: such names
		// work on a single node only, as Redisson's records use them.
		{kind: "latch", keeps: []string{"{", "x{"}, clusterOnly: []string{"{tag}x", "{app}:x"}, use: latchRound},
		{kind: "rate limiter", use: func(ctx context.Context, c *redisson.Client, n string) error {
			l := c.RateLimiter(n)
			if _, err := l.TrySetRate(ctx, ratelimit.Overall, 5, time.Minute); err != nil {
				return err
			}
			if ok, err := l.TryAcquire(ctx, 1); err != nil || !ok {
				return fmt.Errorf("acquire: %v %w", ok, err)
			}
			_, err := l.Delete(ctx)
			return err
		}},
		{kind: "delayed queue", use: func(ctx context.Context, c *redisson.Client, n string) error {
			q := redisson.NewDelayedQueue[string](c, n, str)
			defer q.Destroy()
			return q.Offer(ctx, "v", time.Hour)
		}},
		{kind: "reliable topic", use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := redisson.NewReliableTopic[string](c, n, str).Publish(ctx, "m")
			return err
		}},
		{kind: "map cache", use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, _, err := redisson.NewMapCache[string, string](c, n, str).Put(ctx, "k", "v", mapcache.WithTTL(time.Minute))
			return err
		}},
		{kind: "set cache", use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := redisson.NewSetCache[string](c, n, str).Add(ctx, "v")
			return err
		}},
		{kind: "local cached map", use: func(ctx context.Context, c *redisson.Client, n string) error {
			m := redisson.NewLocalCachedMap[string, string](c, n, str, localcache.Options{})
			defer func() { _ = m.Close() }()
			_, _, err := m.Put(ctx, "k", "v")
			return err
		}},
		{kind: "bloom filter", use: func(ctx context.Context, c *redisson.Client, n string) error {
			b := redisson.NewBloomFilter[string](c, n, str)
			if _, err := b.TryInit(ctx, 100, 0.01); err != nil {
				return err
			}
			_, err := b.Add(ctx, "v")
			return err
		}},
		{kind: "id generator", use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := c.IdGenerator(n).NextID(ctx)
			return err
		}},
		{kind: "long adder", use: func(ctx context.Context, c *redisson.Client, n string) error {
			a := c.LongAdder(n)
			defer func() { _ = a.Close() }()
			a.Add(2)
			_, err := a.Sum(ctx)
			return err
		}},
		// Kinds that derive nothing from the name: one key (or channel), in
		// one slot whatever the name.
		{kind: "atomic double", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := c.AtomicDouble(n).AddAndGet(ctx, 1.5)
			return err
		}},
		{kind: "bit set", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := c.BitSet(n).Set(ctx, 7, true)
			return err
		}},
		{kind: "hyperloglog", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := redisson.NewHyperLogLog[string](c, n, str).Add(ctx, "v")
			return err
		}},
		{kind: "bucket", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			return redisson.NewBucket[string](c, n, str).Set(ctx, "v")
		}},
		{kind: "atomic long", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := c.AtomicLong(n).IncrementAndGet(ctx)
			return err
		}},
		{kind: "map", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, _, err := redisson.NewMap[string, string](c, n, str).Put(ctx, "k", "v")
			return err
		}},
		{kind: "list", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			return redisson.NewList[string](c, n, str).Add(ctx, "v")
		}},
		{kind: "set", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := redisson.NewSet[string](c, n, str).Add(ctx, "v")
			return err
		}},
		{kind: "scored sorted set", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := redisson.NewScoredSortedSet[string](c, n, str).Add(ctx, 1, "v")
			return err
		}},
		{kind: "queue", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			return redisson.NewQueue[string](c, n, str).Offer(ctx, "v")
		}},
		{kind: "blocking queue", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			q := redisson.NewBlockingQueue[string](c, n, str)
			if err := q.Put(ctx, "v"); err != nil {
				return err
			}
			_, err := q.Take(ctx)
			return err
		}},
		{kind: "topic", keeps: splitNames, use: func(ctx context.Context, c *redisson.Client, n string) error {
			_, err := redisson.NewTopic[string](c, n, str).Publish(ctx, "m")
			return err
		}},
	}
}

func semaphoreRound(ctx context.Context, c *redisson.Client, n string) error {
	s := c.Semaphore(n)
	if _, err := s.TrySetPermits(ctx, 1); err != nil {
		return err
	}
	p, ok, err := s.TryAcquirePermits(ctx, 1)
	if err != nil || !ok {
		return fmt.Errorf("acquire: %v %w", ok, err)
	}
	if err := p.Release(ctx); err != nil {
		return err
	}
	_, err = s.Delete(ctx)
	return err
}

func expirableRound(ctx context.Context, c *redisson.Client, n string) error {
	s := c.PermitExpirableSemaphore(n)
	if _, err := s.TrySetPermits(ctx, 1); err != nil {
		return err
	}
	id, ok, err := s.TryAcquire(ctx)
	if err != nil || !ok {
		return fmt.Errorf("acquire: %v %w", ok, err)
	}
	if err := s.Release(ctx, id); err != nil {
		return err
	}
	_, err = s.Delete(ctx)
	return err
}

func latchRound(ctx context.Context, c *redisson.Client, n string) error {
	l := c.CountDownLatch(n)
	if _, err := l.TrySetCount(ctx, 1); err != nil {
		return err
	}
	if err := l.CountDown(ctx); err != nil {
		return err
	}
	open, err := l.Await(ctx)
	if err == nil && !open {
		err = errors.New("latch not open")
	}
	return err
}

// TestNamesOneRuleEverywhere runs every kind with the split names and the
// good ones on a single node and on a 3-master cluster: a kind refuses the
// names whose derived keys split from it, with ErrInvalidName and the
// reason, before anything is written, and every other name works end to end.
func TestNamesOneRuleEverywhere(t *testing.T) {
	deployments := []struct {
		name    string
		cluster bool
		rdb     func(t *testing.T) redis.UniversalClient
	}{
		{"single node", false, func(t *testing.T) redis.UniversalClient { return redistest.Client(t, redistest.StartServer(t)) }},
		{"cluster", true, func(t *testing.T) redis.UniversalClient { return redistest.StartCluster(t, 3).Client(t) }},
	}
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			raw := d.rdb(t)
			c, err := redisson.New(raw)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			for _, k := range nameKinds() {
				for _, name := range append(append([]string(nil), splitNames...), goodNames...) {
					t.Run(k.kind+"/"+name, func(t *testing.T) {
						ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
						defer cancel()
						// Kinds share names: each leaves the key to the next.
						defer raw.Del(context.Background(), name)
						err := k.use(ctx, c, name)
						if !refused(k, name, d.cluster) {
							require.NoError(t, err)
							return
						}
						require.ErrorIs(t, err, redisson.ErrInvalidName)
						require.ErrorContains(t, err, "not in one slot and")
						require.Zero(t, raw.Exists(ctx, name).Val(), "a refused name writes nothing")
					})
				}
			}
		})
	}
}

// refused reports whether kind k refuses name, on a cluster when cluster.
func refused(k nameKind, name string, cluster bool) bool {
	switch {
	case slices.Contains(k.clusterOnly, name):
		return cluster
	case slices.Contains(goodNames, name), slices.Contains(k.keeps, name):
		return false
	}
	return true
}

// TestNamesClusterWaiters shows on a 3-master cluster that names the rule
// accepts work end to end, waiters included: a waiter of another client is
// woken through the object's channel when the holder lets go, for the lock,
// the fair lock (its per-waiter channel and queue keys) and the semaphore.
func TestNamesClusterWaiters(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	newClient := func() *redisson.Client {
		c, err := redisson.New(cl.Client(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a, b := newClient(), newClient()
	raw := cl.Client(t)
	type taker func(ctx context.Context, c *redisson.Client, name string) (release func(context.Context) error, err error)
	lockTaker := func(lock func(c *redisson.Client, name string) func(context.Context) (unlocker, error)) taker {
		return func(ctx context.Context, c *redisson.Client, name string) (func(context.Context) error, error) {
			h, err := lock(c, name)(ctx)
			if err != nil {
				return nil, err
			}
			return h.Unlock, nil
		}
	}
	kinds := []struct {
		kind  string
		setup func(ctx context.Context, name string) error
		take  taker
	}{
		{"lock", nil, lockTaker(func(c *redisson.Client, n string) func(context.Context) (unlocker, error) {
			return func(ctx context.Context) (unlocker, error) { return c.Lock(n).Lock(ctx) }
		})},
		{"fair lock", nil, lockTaker(func(c *redisson.Client, n string) func(context.Context) (unlocker, error) {
			return func(ctx context.Context) (unlocker, error) { return c.FairLock(n).Lock(ctx) }
		})},
		{"semaphore", func(ctx context.Context, n string) error {
			_, err := a.Semaphore(n).TrySetPermits(ctx, 1)
			return err
		}, func(ctx context.Context, c *redisson.Client, n string) (func(context.Context) error, error) {
			p, err := c.Semaphore(n).AcquirePermits(ctx, 1)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) error { return p.Release(ctx) }, nil
		}},
	}
	for _, k := range kinds {
		for _, name := range goodNames {
			t.Run(k.kind+"/"+name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if k.setup != nil {
					require.NoError(t, k.setup(ctx, name))
				}
				release, err := k.take(ctx, a, name)
				require.NoError(t, err)
				taken := make(chan error, 1)
				go func() {
					rel, err := k.take(ctx, b, name)
					if err == nil {
						err = rel(ctx)
					}
					taken <- err
				}()
				redistest.Eventually(t, 10*time.Second, "the waiter subscribed", func() bool {
					return b.Stats().PubSub.Waiters == 1
				})
				require.NoError(t, release(ctx))
				select {
				case err := <-taken:
					require.NoError(t, err, "the waiter took and released it")
				case <-ctx.Done():
					t.Fatal("the waiter was not woken")
				}
				if k.kind == "semaphore" {
					n, err := a.Semaphore(name).AvailablePermits(ctx)
					require.NoError(t, err)
					require.Equal(t, 1, n, "every permit back")
					_, err = a.Semaphore(name).Delete(ctx)
					require.NoError(t, err)
				}
				require.Zero(t, raw.Exists(ctx, name).Val())
			})
		}
	}
}
