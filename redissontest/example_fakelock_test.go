package redissontest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/goredisson/redisson"
)

// Locker is what the code under test needs from a lock service, declared in
// the user's package: a narrow interface the code depends on, so that unit
// tests can pass a fake and only a few tests need Redis.
type Locker interface {
	// WithLock runs fn while holding the lock called name. fn's context
	// ends when the lock is lost.
	WithLock(ctx context.Context, name string, fn func(ctx context.Context) error) error
}

// RedissonLocker is the Locker of production, over a redisson-go client.
type RedissonLocker struct{ Client *redisson.Client }

// WithLock takes the RLock called name, runs fn with the hold's context and
// releases the lock.
func (l RedissonLocker) WithLock(ctx context.Context, name string, fn func(context.Context) error) error {
	h, err := l.Client.Lock(name).Lock(ctx)
	if err != nil {
		return err
	}
	err = fn(h.Context())
	// Release even when ctx has ended: the lock would otherwise stay taken
	// until its lease runs out.
	return errors.Join(err, h.Unlock(context.WithoutCancel(ctx)))
}

// FakeLocker is the Locker of unit tests: a mutex per name in this process,
// recording the names it locked.
type FakeLocker struct {
	mu     sync.Mutex
	locks  map[string]*sync.Mutex
	Locked []string
}

// WithLock locks the mutex called name around fn.
func (f *FakeLocker) WithLock(ctx context.Context, name string, fn func(context.Context) error) error {
	f.mu.Lock()
	if f.locks == nil {
		f.locks = map[string]*sync.Mutex{}
	}
	m, ok := f.locks[name]
	if !ok {
		m = new(sync.Mutex)
		f.locks[name] = m
	}
	f.Locked = append(f.Locked, name)
	f.mu.Unlock()
	m.Lock()
	defer m.Unlock()
	return fn(ctx)
}

// Transfer is the code under test: it moves amount from one account to
// another while holding the lock of the source account.
func Transfer(ctx context.Context, l Locker, balances map[string]int, from, to string, amount int) error {
	return l.WithLock(ctx, "account:"+from, func(ctx context.Context) error {
		if balances[from] < amount {
			return fmt.Errorf("transfer %d from %s: balance %d", amount, from, balances[from])
		}
		balances[from] -= amount
		balances[to] += amount
		return nil
	})
}

// A unit test of code that takes a lock passes a fake of the user's own
// interface; RedissonLocker, the production implementation, gets a test of
// its own against a real server (redissontest.NewServer).
func Example_fakeLock() {
	fake := &FakeLocker{}
	balances := map[string]int{"alice": 100, "bob": 0}
	err := Transfer(context.Background(), fake, balances, "alice", "bob", 30)
	fmt.Println(err, balances["alice"], balances["bob"], fake.Locked)
	err = Transfer(context.Background(), fake, balances, "bob", "alice", 50)
	fmt.Println(err)
	// Output:
	// <nil> 70 30 [account:alice]
	// transfer 50 from bob: balance 30
}
