// Package redisson gives Go services the distributed locks and synchronizers of
// Java's Redisson on the same Redis keys, scripts and pub/sub channels, so Go
// and Java services can hold, wait for and release the same lock.
//
// A Client wraps a go-redis client and hands out objects:
//
//	client, err := redisson.New(rdb)
//	...
//	h, err := client.Lock("orders:42").Lock(ctx) // ctx bounds the wait only
//	if err != nil { ... }
//	defer h.Unlock(context.Background())         // releases this hold, once
//	doWork(h.Context())                          // done if ownership is lost
//
// Ownership is a value: an acquisition returns a hold, and only the hold
// releases it. The hold's Done channel is closed when the hold ends; when
// ownership is lost (Err wraps ErrLockLost) it is closed before the lease
// can have run out in Redis, by this process's clock. Each acquisition has
// an owner id standing for Redisson's thread: a fresh one by default, or the
// one given with the object's WithOwner option to re-enter a lock or take
// several as one owner.
//
// # Getting objects
//
// Every object lives in a package of its own and is had from a Client. An
// object that holds no Go values is a method of Client (Client.Lock,
// Client.Semaphore, Client.AtomicLong); one whose values have a Go type
// is a generic function of this package (NewBucket, NewMap, NewQueue,
// NewTopic), because a Go method cannot have type parameters. Each
// object package also has a New function taking Client.Source, which the
// methods and functions here call.
//
// Each lock kind takes the options of package locks on its Lock and
// TryLock (WithLease, WithWait, WithOwner); every other object has option
// types of its own, so that an option it does not understand (a lease on a
// plain semaphore's permits) does not compile. The Client's own settings
// are Options; their defaults are the Default constants.
//
// # Packages
//
// Locks and synchronizers:
//   - rlock: Lock, Redisson's RLock (Client.Lock).
//   - fairlock: a lock granted in arrival order, RFairLock (Client.FairLock).
//   - rwlock: many readers or one writer, RReadWriteLock (Client.ReadWriteLock).
//   - fencedlock: a lock that hands out a rising token per acquisition,
//     RFencedLock (Client.FencedLock).
//   - multilock: several locks as one, Redisson's MultiLock and RedLock,
//     and the group multi-lock (Client.MultiLockGroup).
//   - semaphore: permits, RSemaphore and RPermitExpirableSemaphore
//     (Client.Semaphore, Client.PermitExpirableSemaphore).
//   - latch: a count-down latch, RCountDownLatch (Client.CountDownLatch).
//   - ratelimit: a sliding-window rate limiter, RRateLimiter (Client.RateLimiter).
//   - locks: what the lock kinds share: the Hold, the options.
//   - lockable: what a lock offers a multi-lock, for lock-like types of your own.
//
// Values, collections and messages, on the codecs of package codec:
//   - value: a bucket (NewBucket) and an atomic long (Client.AtomicLong).
//   - collection: map, list, set and scored sorted set (NewMap, NewList,
//     NewSet, NewScoredSortedSet).
//   - queue: queue, deque, their blocking forms and the delayed queue
//     (NewQueue, NewDeque, NewBlockingQueue, NewBlockingDeque, NewDelayedQueue).
//   - pubsub: topics, pattern, sharded and reliable topics (NewTopic,
//     NewPatternTopic, NewShardedTopic, NewReliableTopic).
//   - codec: Go values as the bytes Java Redisson's codecs store.
//
// Around the objects:
//   - errs: ObjectError, the error every object returns (also ObjectError here).
//   - observe: the events a client reports, for metrics and traces (WithObserver).
//   - keys: the keys and channels derived from an object's name, for tools.
//   - source: the client handle (Client.Source) every object package's New takes.
//   - redissontest (test kit): a private redis-server, cluster or replicas
//     for the tests of code that uses this module.
//   - extra/redissonotel (a module of its own): an observer that records
//     OpenTelemetry metrics and traces.
//   - cmd/redisson: the command-line tool: run a command under a lock, ls,
//     inspect, unlock, a dashboard.
package redisson
