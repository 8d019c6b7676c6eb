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
// The objects live in their own packages: rlock (Client.Lock), fairlock
// (Client.FairLock), rwlock (Client.ReadWriteLock), fencedlock
// (Client.FencedLock, a token per acquisition), semaphore (Client.Semaphore,
// Client.PermitExpirableSemaphore), latch (Client.CountDownLatch), ratelimit
// (Client.RateLimiter), multilock (multi-lock and RedLock over any locks,
// Client.MultiLockGroup) and value (buckets and atomic longs on the codecs
// of package codec). The lock kinds share package locks: the Hold their
// Lock and TryLock return and the options WithLease, WithWait and
// WithOwner. Every other object has option types of its own, so that an
// option it does not understand (a lease on a plain semaphore's permits)
// does not compile.
package redisson
