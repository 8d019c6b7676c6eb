package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	goredsync "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rlock"
)

// Library names, in the order the runner interleaves them.
const (
	libOurs      = "redisson-go"
	libRedsync   = "redsync"
	libRedislock = "redislock"
	libRueidis   = "rueidislock"
	// libTimer is the per-lock-timer renewal baseline of the watchdog
	// scenario (Redisson < 3.44 style), implemented in this package.
	libTimer = "per-lock-timer"
)

// allLibs are the libraries of the comparison scenarios.
var allLibs = []string{libOurs, libRedsync, libRedislock, libRueidis}

// Peer settings that are not the libraries' own defaults. Each is explained
// in README.md and printed with the results.
const (
	// redislockTTL is redislock's lease: it has no watchdog, so a user picks
	// a TTL longer than any critical section; Redisson's 30 s watchdog
	// timeout is the natural equivalent.
	redislockTTL = 30 * time.Second
	// redislock waits with ExponentialBackoff(1ms, 10ms), a fresh strategy
	// per Obtain (it is stateful): retries after 4 ms, 8 ms, then every
	// 10 ms. LinearBackoff(1ms) would poll 1 000 times a second per waiter
	// (32 000 commands/s with 32 waiters) for little gain; 10 ms caps the
	// time a release goes unnoticed.
	redislockMinBackoff = time.Millisecond
	redislockMaxBackoff = 10 * time.Millisecond
	// rueidisKeyMajority 1 = one key per lock. The default 2 takes 3 keys
	// (a majority of 2 of 3) on one node: Redlock on a single server buys
	// nothing and triples the work, so every peer locks one key here.
	rueidisKeyMajority = 1
)

// Mutex is one goroutine's handle on one lock; it is not shared between
// goroutines (redsync's and redislock's handles keep per-hold state).
type Mutex interface {
	// Lock waits until the lock is held or ctx is done.
	Lock(ctx context.Context) error
	// Unlock releases the hold taken by the last Lock.
	Unlock(ctx context.Context) error
}

// Locker is one library client over one Redis server.
type Locker interface {
	Mutex(key string) Mutex
	// Retries counts how often a Lock call had to be repeated because the
	// library gave up waiting before ctx was done (redsync's 32 tries,
	// redislock's TTL-bounded Obtain).
	Retries() int64
	Close() error
}

// Setting is one printed library setting.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// addrRecorder remembers the local addresses of the connections a library
// client dials, so that the MONITOR stream can be attributed to it.
type addrRecorder struct {
	mu    sync.Mutex
	addrs []string
}

func (r *addrRecorder) record(c net.Conn) {
	if c == nil {
		return
	}
	r.mu.Lock()
	r.addrs = append(r.addrs, c.LocalAddr().String())
	r.mu.Unlock()
}

func (r *addrRecorder) list() []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.addrs...)
}

// goRedisOptions are go-redis' defaults with a recording dialer.
func goRedisOptions(addr string, rec *addrRecorder) *redis.Options {
	return &redis.Options{
		Addr:                     addr,
		MaintNotificationsConfig: maintOff(),
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			rec.record(c)
			return c, err
		},
	}
}

// maintOff turns go-redis' maintenance-notification handshake off for every
// library alike. Redis 7 answers it with an error, so nothing measured
// changes; left on, go-redis v9.23 writes the config's Mode without a lock
// when two first connections fail the handshake at once, a data race that
// fails the bench's tests under -race (docs/known-issues.md).
func maintOff() *maintnotifications.Config {
	return &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
}

// goRedisSettings describes the go-redis client every go-redis peer uses.
func goRedisSettings() []Setting {
	return []Setting{
		{"go-redis client", fmt.Sprintf("redis.NewClient defaults (PoolSize %d = 10 × GOMAXPROCS, RESP3, MaxRetries 3), maintenance notifications off (Redis 7 has none)", 10*runtime.GOMAXPROCS(0))},
	}
}

// openLocker opens lib's client on addr.
func openLocker(lib, addr string, rec *addrRecorder) (Locker, error) {
	switch lib {
	case libOurs:
		rdb := redis.NewClient(goRedisOptions(addr, rec))
		c, err := redisson.New(rdb)
		if err != nil {
			rdb.Close()
			return nil, err
		}
		return &oursLocker{rdb: rdb, c: c}, nil
	case libFair:
		rdb := redis.NewClient(goRedisOptions(addr, rec))
		c, err := redisson.New(rdb)
		if err != nil {
			rdb.Close()
			return nil, err
		}
		return &fairLocker{rdb: rdb, c: c}, nil
	case libRedsync:
		rdb := redis.NewClient(goRedisOptions(addr, rec))
		return &redsyncLocker{rdb: rdb, rs: redsync.New(goredsync.NewPool(rdb))}, nil
	case libRedislock:
		rdb := redis.NewClient(goRedisOptions(addr, rec))
		return &redislockLocker{rdb: rdb, c: redislock.New(rdb)}, nil
	case libRueidis:
		l, err := rueidislock.NewLocker(rueidislockOptions(addr, rec))
		if err != nil {
			return nil, err
		}
		return &rueidisLocker{l: l}, nil
	case libFloorRedisson, libFloorSetNX:
		return newFloorLocker(lib, addr, rec), nil
	case libRedLock, libRedsyncRedLock, libMulti10, libGroup10:
		return openMultiLocker(lib, addr, rec) // redlock.go
	case libFenced, libRead, libWrite, libSpin:
		return openKindLocker(lib, addr, rec) // kinds.go, spin.go
	case libClusterOurs, libClusterRedsync, libClusterRedislock, libClusterRueidis:
		return openClusterLocker(lib, addr, rec) // cluster.go
	}
	return nil, fmt.Errorf("unknown library %q", lib)
}

func rueidislockOptions(addr string, rec *addrRecorder) rueidislock.LockerOption {
	return rueidislock.LockerOption{
		ClientOption: rueidis.ClientOption{
			InitAddress: []string{addr},
			DialCtxFn: func(ctx context.Context, addr string, d *net.Dialer, _ *tls.Config) (net.Conn, error) {
				c, err := d.DialContext(ctx, "tcp", addr)
				rec.record(c)
				return c, err
			},
		},
		KeyMajority: rueidisKeyMajority,
	}
}

// librarySettings lists every setting of lib as the runner uses it.
func librarySettings(lib string) []Setting {
	switch lib {
	case libOurs:
		var o redisson.Options
		// Defaults, as New fills them in.
		rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
		defer rdb.Close()
		if c, err := redisson.New(rdb); err == nil {
			o = c.Options()
			c.Close()
		}
		return append([]Setting{
			{"acquire", "lock.Lock(ctx): no lease, so the watchdog keeps it (renewed every WatchdogTimeout/3 by the shared timing wheel)"},
			{"WatchdogTimeout", o.WatchdogTimeout.String()},
			{"RenewalBatchSize", fmt.Sprint(o.RenewalBatchSize)},
			{"Timeout", o.Timeout.String()},
			{"PublishMode", o.PublishMode.String() + " (PUBLISH/SUBSCRIBE on a single node)"},
			{"ReplicaSync", fmt.Sprintf("enabled=%v timeout=%v allowUnsynced=%v (no replicas here: no WAIT is sent)",
				!o.ReplicaSync.Disabled, o.ReplicaSync.Timeout, o.ReplicaSync.AllowUnsynced)},
		}, goRedisSettings()...)
	case libFair:
		return []Setting{
			{"acquire", "client.FairLock(key).Lock(ctx): watchdog, Redis queue and timeout zset; only the queue head is woken, on its own channel; no local hand-off"},
			{"FairLockWaitTimeout", "default (300 s, Redisson 3.52's)"},
			{"client", "redisson.New(rdb) defaults, as redisson-go"},
		}
	case libRW:
		return []Setting{
			{"acquire", "client.ReadWriteLock(key).ReadLock() / .WriteLock() .Lock(ctx), watchdog (read holds renewed with their rwlock_timeout keys)"},
			{"beside", "redisson-go: client.Lock(key).Lock(ctx) for reads and writes alike"},
			{"client", "redisson.New(rdb) defaults, as redisson-go"},
		}
	case libRate:
		return []Setting{
			{"acquire", "client.RateLimiter(key): TrySetRate(ctx, ratelimit.Overall, rate, 1s) once, then TryAcquire(ctx, 1) (one script, no waiting)"},
			{"algorithm", "Redisson 3.52's sliding window: grants zset + permits-left string, scored with the client's clock"},
			{"client", "redisson.New(rdb) defaults"},
		}
	case libRateBG:
		return []Setting{
			{"acquire", "as redisson-go ratelimit, but TryAcquire(context.WithoutCancel(ctx), 1): no deadline, so no helper goroutine bounding the call (decisions rows only)"},
		}
	case libGCRA:
		return append([]Setting{
			{"acquire", "redis_rate.NewLimiter(rdb).Allow(ctx, key, redis_rate.PerSecond(rate)) (one script)"},
			{"algorithm", "GCRA, Redis server clock; PerSecond's burst = rate, so a fresh key admits a burst of rate at once"},
			{"version", "github.com/go-redis/redis_rate/v10 v10.0.1"},
		}, goRedisSettings()...)
	case libTopic, libRawPS:
		return topicSettings(lib) // topic.go
	case libCollOurs, libCollRaw:
		return collectionSettings(lib) // collections.go
	case libCacheOurs, libCacheRaw:
		return cacheSettings(lib) // caches.go
	case libObsNone, libObsOtel:
		return observerSettings(lib) // observer.go
	case libSem:
		return []Setting{
			{"acquire", "client.Semaphore(key): TrySetPermits(ctx, permits) once, then AcquirePermits(ctx, 1) (waits on redisson_sc:{key}) and Permits.Release"},
			{"client", "redisson.New(rdb) defaults"},
		}
	case libRedsync:
		return append([]Setting{
			{"pools", "1 (goredis/v9 NewPool over one go-redis client): quorum 1"},
			{"options", "redsync defaults: none passed to NewMutex"},
			{"expiry", "8s"},
			{"tries", "32 (then LockContext fails; the runner calls it again and counts a retry)"},
			{"retry delay", "random 50–250 ms"},
			{"driftFactor", "0.01"},
			{"timeoutFactor", "0.05"},
			{"failFast / shufflePools / setNXOnExtend", "false / false / false"},
			{"mutex", "one *redsync.Mutex per goroutine (a Mutex keeps its hold's value)"},
		}, goRedisSettings()...)
	case libRedislock:
		return append([]Setting{
			{"TTL", redislockTTL.String() + " (no watchdog: a fixed lease, like Obtain's ttl argument)"},
			{"RetryStrategy", fmt.Sprintf("ExponentialBackoff(%v, %v), new per Obtain: waits 4 ms, 8 ms, then 10 ms between tries", redislockMinBackoff, redislockMaxBackoff)},
			{"Token / Metadata", "random (default) / empty"},
			{"wait bound", "Obtain waits until ctx's deadline (the run's end) or, without one, the TTL; then the runner calls it again"},
		}, goRedisSettings()...)
	case libRueidis:
		return []Setting{
			{"KeyMajority", fmt.Sprintf("%d (default 2 = 3 keys on the one node; 1 = one key, like every peer)", rueidisKeyMajority)},
			{"KeyPrefix", "rueidislock (default)"},
			{"KeyValidity", "5s (default)"},
			{"ExtendInterval", "2.5s (default: KeyValidity/2)"},
			{"TryNextAfter", "20ms (default)"},
			{"NoLoopTracking", "false (default)"},
			{"FallbackSETPX", "false (default: SET PXAT)"},
			{"ClientOption", "rueidis defaults (client-side caching on, CLIENT TRACKING OPTOUT; PipelineMultiplex forced to -1 by rueidislock)"},
		}
	case libFloorRedisson:
		return append([]Setting{
			{"acquire", "Redisson 3.52's RLock acquire script via go-redis Script.Run (EVALSHA), no library code"},
			{"unlock", "Redisson 3.52's RLock unlock script: latch GET, HEXISTS, HINCRBY -1, DEL, PUBLISH 0, latch SET PX 12 s"},
		}, goRedisSettings()...)
	case libFloorSetNX:
		return append([]Setting{
			{"acquire", "SET key token NX PX 30000 in a script via go-redis Script.Run (EVALSHA), no library code"},
			{"unlock", "GET, compare, DEL in a script"},
		}, goRedisSettings()...)
	case libRedLock, libRedsyncRedLock, libMulti10, libGroup10:
		return multiLibSettings(lib) // redlock.go
	case libFenced, libRead, libWrite, libSpin:
		return kindSettings(lib) // kinds.go
	case libClusterOurs, libClusterRedsync, libClusterRedislock, libClusterRueidis:
		return clusterSettings(lib) // cluster.go
	case libTimer:
		return append([]Setting{
			{"acquire", "Redisson's RLock acquire script (hash field <uuid>:<i>, PEXPIRE lease) via go-redis EvalSha"},
			{"renewal", "one goroutine and one time.Ticker per lock, every lease/3, running Redisson < 3.44's one-key renewExpiration script (HEXISTS + PEXPIRE)"},
		}, goRedisSettings()...)
	}
	return nil
}

// errRetry reports whether a library's Lock error only means it stopped
// waiting on its own (and may be called again).
func errRetry(err error) bool {
	var taken *redsync.ErrTaken
	return errors.Is(err, redsync.ErrFailed) || errors.As(err, &taken) ||
		errors.Is(err, redislock.ErrNotObtained)
}

// retrying calls lock until it succeeds, ctx is done or it fails for good.
func retrying(ctx context.Context, retries *counter, lock func(context.Context) error) error {
	for {
		err := lock(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errRetry(err) {
			return err
		}
		retries.add(1)
	}
}

type counter struct {
	mu sync.Mutex
	n  int64
}

func (c *counter) add(d int64) {
	c.mu.Lock()
	c.n += d
	c.mu.Unlock()
}

func (c *counter) get() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// ---- ours

// oursLocker, redsyncLocker and redislockLocker hold a redis.UniversalClient:
// a *redis.Client, or a *redis.ClusterClient in the cluster group.
type oursLocker struct {
	rdb redis.UniversalClient
	c   *redisson.Client
}

func (l *oursLocker) Mutex(key string) Mutex { return &oursMutex{l: l.c.Lock(key)} }
func (l *oursLocker) Retries() int64         { return 0 }
func (l *oursLocker) Close() error {
	l.c.Close()
	return l.rdb.Close()
}

type oursMutex struct {
	l    *rlock.Lock
	held *rlock.Hold
}

func (m *oursMutex) Lock(ctx context.Context) error {
	h, err := m.l.Lock(ctx)
	if err != nil {
		return err
	}
	m.held = h
	return nil
}

func (m *oursMutex) Unlock(ctx context.Context) error { return m.held.Unlock(ctx) }

// ---- redsync

type redsyncLocker struct {
	rdb     redis.UniversalClient
	rs      *redsync.Redsync
	retries counter
}

func (l *redsyncLocker) Mutex(key string) Mutex {
	return &redsyncMutex{m: l.rs.NewMutex(key), retries: &l.retries}
}
func (l *redsyncLocker) Retries() int64 { return l.retries.get() }
func (l *redsyncLocker) Close() error   { return l.rdb.Close() }

type redsyncMutex struct {
	m       *redsync.Mutex
	retries *counter
}

func (m *redsyncMutex) Lock(ctx context.Context) error {
	return retrying(ctx, m.retries, m.m.LockContext)
}

func (m *redsyncMutex) Unlock(ctx context.Context) error {
	ok, err := m.m.UnlockContext(ctx)
	if err == nil && !ok {
		err = errors.New("redsync: unlock failed")
	}
	return err
}

// ---- redislock

type redislockLocker struct {
	rdb     redis.UniversalClient
	c       *redislock.Client
	retries counter
}

func (l *redislockLocker) Mutex(key string) Mutex {
	return &redislockMutex{c: l.c, key: key, retries: &l.retries}
}
func (l *redislockLocker) Retries() int64 { return l.retries.get() }
func (l *redislockLocker) Close() error   { return l.rdb.Close() }

type redislockMutex struct {
	c       *redislock.Client
	key     string
	held    *redislock.Lock
	retries *counter
}

func (m *redislockMutex) Lock(ctx context.Context) error {
	return retrying(ctx, m.retries, func(ctx context.Context) error {
		l, err := m.c.Obtain(ctx, m.key, redislockTTL, &redislock.Options{
			RetryStrategy: redislock.ExponentialBackoff(redislockMinBackoff, redislockMaxBackoff),
		})
		if err == nil {
			m.held = l
		}
		return err
	})
}

func (m *redislockMutex) Unlock(ctx context.Context) error { return m.held.Release(ctx) }

// ---- rueidislock

type rueidisLocker struct {
	l rueidislock.Locker
}

func (l *rueidisLocker) Mutex(key string) Mutex { return &rueidisMutex{l: l.l, key: key} }
func (l *rueidisLocker) Retries() int64         { return 0 }
func (l *rueidisLocker) Close() error {
	l.l.Close()
	return nil
}

type rueidisMutex struct {
	l      rueidislock.Locker
	key    string
	cancel context.CancelFunc
}

func (m *rueidisMutex) Lock(ctx context.Context) error {
	_, cancel, err := m.l.WithContext(ctx, m.key)
	if err != nil {
		return err
	}
	m.cancel = cancel
	return nil
}

// Unlock cancels the lock's context: rueidislock deletes the key (DEL
// script) before the cancel function returns.
func (m *rueidisMutex) Unlock(context.Context) error {
	m.cancel()
	return nil
}
