package redisson_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/observe"
)

// scriptHold is what the tests below need of every kind of hold.
type scriptHold interface {
	Err() error
	Unlock(ctx context.Context) error
}

// renewedKinds takes one hold of each kind the watchdog renews with its
// own script: the plain batch (lock, fair lock, write lock), the read
// lock's and the group multi-lock's.
var renewedKinds = []struct {
	name string
	take func(ctx context.Context, c *redisson.Client, name string) (scriptHold, error)
}{
	{"lock", func(ctx context.Context, c *redisson.Client, name string) (scriptHold, error) {
		return c.Lock(name).Lock(ctx)
	}},
	{"fair lock", func(ctx context.Context, c *redisson.Client, name string) (scriptHold, error) {
		return c.FairLock(name).Lock(ctx)
	}},
	{"read lock", func(ctx context.Context, c *redisson.Client, name string) (scriptHold, error) {
		return c.ReadWriteLock(name).ReadLock().Lock(ctx)
	}},
	{"write lock", func(ctx context.Context, c *redisson.Client, name string) (scriptHold, error) {
		return c.ReadWriteLock(name).WriteLock().Lock(ctx)
	}},
	{"group multi-lock", func(ctx context.Context, c *redisson.Client, name string) (scriptHold, error) {
		return c.MultiLockGroup(name, "a", "b").Lock(ctx)
	}},
}

// renewalsDone waits until c renewed at least n leases since base.
func renewalsDone(t *testing.T, c *redisson.Client, base uint64, n uint64) {
	t.Helper()
	redistest.Eventually(t, 30*time.Second, "renewals", func() bool {
		return c.Stats().Renewal.Renewed >= base+n
	})
}

// A SCRIPT FLUSH every 500 ms under holds of every renewed kind with a 1 s
// watchdog: every renewal still succeeds at once (the script is sent with
// EVAL when the node answers NOSCRIPT), no round fails and nothing is
// logged. Renewals used to fail with NOSCRIPT, log a warning, load the
// script and try again a lease/30 later.
func TestWatchdogSurvivesScriptFlushStorm(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithWatchdogTimeout(time.Second),
		redisson.WithLogger(newWarnFail(t)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()

	holds := make([]scriptHold, len(renewedKinds))
	for i, k := range renewedKinds {
		holds[i], err = k.take(ctx, c, "flush:"+strings.ReplaceAll(k.name, " ", "-"))
		require.NoError(t, err, k.name)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			_ = admin.ScriptFlush(ctx).Err()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	// Four renewals of every hold: several leases' worth of flushes.
	renewalsDone(t, c, 0, uint64(4*len(holds)))
	close(stop)
	wg.Wait()

	require.Zero(t, c.Stats().Renewal.Errors, "no renewal may fail for a flushed script")
	for i, h := range holds {
		require.NoError(t, h.Err(), renewedKinds[i].name)
		require.NoError(t, h.Unlock(ctx), renewedKinds[i].name)
	}
}

// An ACL user refused cached scripts, two ways: -evalsha (EVALSHA answers
// NOPERM) and -script (no SCRIPT LOAD, so EVALSHA meets NOSCRIPT until an
// EVAL of the same script caches it). Every renewed kind is taken, renewed
// for several leases of a 1 s watchdog and released, without a warning.
// Before, -evalsha refused every acquire, and under -script every
// watchdog hold was lost after one lease.
func TestWatchdogUnderACLRefusingCachedScripts(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	ctx := context.Background()
	for _, rule := range []string{"-evalsha", "-script"} {
		t.Run(rule, func(t *testing.T) {
			user := "app" + strings.TrimPrefix(rule, "-")
			require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", user, "reset", "on", ">pw", "~*", "&*", "+@all", rule).Err())
			require.NoError(t, admin.ScriptFlush(ctx).Err())
			rdb := redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = user, "pw" })
			c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(time.Second), redisson.WithLogger(newWarnFail(t)))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })

			holds := make([]scriptHold, len(renewedKinds))
			for i, k := range renewedKinds {
				holds[i], err = k.take(ctx, c, "acl"+rule+":"+strings.ReplaceAll(k.name, " ", "-"))
				require.NoError(t, err, k.name)
			}
			renewalsDone(t, c, 0, uint64(4*len(holds)))
			require.Zero(t, c.Stats().Renewal.Errors)
			for i, h := range holds {
				require.NoError(t, h.Err(), renewedKinds[i].name)
				require.NoError(t, h.Unlock(ctx), renewedKinds[i].name)
			}
		})
	}
}

// After a restart of Redis (the lock's key gone, the script cache empty)
// the holder learns of the loss from the first renewal round sent after
// it, so within WatchdogTimeout/3 of the restart: that round EVALs the
// missing script at once and finds the key gone. It used to fail with
// NOSCRIPT, log it, load the script and learn a lease/30 later.
func TestRestartLossLearnedAtFirstRenewal(t *testing.T) {
	srv := redistest.StartServer(t)
	var mu sync.Mutex
	var rounds []observe.Renewal
	obs := &observe.Observer{Renewal: func(e observe.Renewal) {
		mu.Lock()
		defer mu.Unlock()
		rounds = append(rounds, e)
	}}
	c := newObservedClient(t, srv, redisson.WithWatchdogTimeout(3*time.Second), redisson.WithObserver(obs))
	ctx := context.Background()
	h, err := c.Lock("restart:x").Lock(ctx)
	require.NoError(t, err)
	renewalsDone(t, c, 0, 1) // the script is cached, and the cache is lost below

	require.NoError(t, srv.Restart(ctx))
	select {
	case <-h.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the hold did not end after Redis restarted")
	}
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	mu.Lock()
	defer mu.Unlock()
	// Every round renewed the lease until the restart; the first one
	// after it found the lock gone.
	last := len(rounds) - 1
	require.Positive(t, last)
	for _, r := range rounds[:last] {
		require.Equal(t, observe.Renewal{Leases: 1, Scripts: 1, Renewed: 1, Duration: r.Duration}, r, "%+v", rounds)
	}
	require.Equal(t, observe.Renewal{Leases: 1, Scripts: 1, Lost: 1, Duration: rounds[last].Duration}, rounds[last], "%+v", rounds)
}

// Every kind of object works for an ACL user refused EVALSHA (+@all
// -evalsha): the locks and the rate limiter (objKinds), both semaphores,
// the latch, the bucket's and the atomic long's scripts. The first refused
// EVALSHA is followed by EVAL at once, and the client sends EVAL from then
// on. Every call used to fail with NOPERM.
func TestEveryObjectUnderACLRefusingEvalSha(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	ctx := context.Background()
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "nosha", "reset", "on", ">pw", "~*", "&*", "+@all", "-evalsha").Err())
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = "nosha", "pw" })
	c, err := redisson.New(rdb, redisson.WithLogger(newWarnFail(t)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	for _, k := range objKinds() {
		t.Run(k.name, func(t *testing.T) {
			k.create(t, c, "nosha:"+k.name, 0)()
		})
	}
	t.Run("semaphore", func(t *testing.T) {
		s := c.Semaphore("nosha:semaphore")
		_, err := s.TrySetPermits(ctx, 1)
		require.NoError(t, err)
		p, ok, err := s.TryAcquirePermits(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, p.Release(ctx))
	})
	t.Run("permit-expirable semaphore", func(t *testing.T) {
		s := c.PermitExpirableSemaphore("nosha:expirable")
		_, err := s.TrySetPermits(ctx, 1)
		require.NoError(t, err)
		id, ok, err := s.TryAcquire(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, s.Release(ctx, id))
	})
	t.Run("latch", func(t *testing.T) {
		l := c.CountDownLatch("nosha:latch")
		_, err := l.TrySetCount(ctx, 1)
		require.NoError(t, err)
		require.NoError(t, l.CountDown(ctx))
		n, err := l.Count(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
	})
	t.Run("bucket", func(t *testing.T) {
		b := redisson.NewBucket[string](c, "nosha:bucket", codec.String())
		require.NoError(t, b.Set(ctx, "a"))
		ok, err := b.CompareAndSet(ctx, "a", "b")
		require.NoError(t, err)
		require.True(t, ok)
		v, ok, err := b.GetAndDelete(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "b", v)
	})
	t.Run("atomic long", func(t *testing.T) {
		ok, err := c.AtomicLong("nosha:long").CompareAndSet(ctx, 0, 5)
		require.NoError(t, err)
		require.True(t, ok)
	})
}

// A client refused EVALSHA remembers it: many lock cycles and watchdog
// renewals cost one refused EVALSHA, not one per call.
func TestRefusedEvalShaRemembered(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	ctx := context.Background()
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "nosha", "reset", "on", ">pw", "~*", "&*", "+@all", "-evalsha").Err())
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = "nosha", "pw" })
	// The hold must outlive its renewals, however late a loaded machine
	// runs them: a 1 s lease leaves each round about 650 ms.
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(time.Second), redisson.WithLogger(newWarnFail(t)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	for range 20 {
		h, err := c.Lock("remember").Lock(ctx)
		require.NoError(t, err)
		require.NoError(t, h.Unlock(ctx))
	}
	h, err := c.Lock("remember").Lock(ctx)
	require.NoError(t, err)
	renewalsDone(t, c, 0, 3)
	require.NoError(t, h.Unlock(ctx))
	stats := redistest.ParseInfo(admin.Info(ctx, "commandstats").Val())
	require.Contains(t, stats["cmdstat_evalsha"], "rejected_calls=1,", "one refusal, remembered")
}
