package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rlock"
)

// acquire takes one hold of a lock kind; every kind's hold is the
// engine's, so one signature covers them.
type acquire func(ctx context.Context) (*rlock.Hold, error)

// lockKind returns the acquire of the lock a counter mode contends on, a
// fresh handle per worker as Contend takes one per thread.
func lockKind(c *redisson.Client, mode, name string) (acquire, bool) {
	switch mode {
	case "spincounter":
		l := c.SpinLock(name)
		return func(ctx context.Context) (*rlock.Hold, error) { return l.Lock(ctx) }, true
	case "nrcounter":
		l := c.NonReentrantLock(name)
		return func(ctx context.Context) (*rlock.Hold, error) { return l.Lock(ctx) }, true
	case "nrfaircounter":
		l := c.NonReentrantFairLock(name)
		return func(ctx context.Context) (*rlock.Hold, error) { return l.Lock(ctx) }, true
	}
	return nil, false
}

// runLocks runs the lock counter modes:
//
//	spincounter NAME N THREADS, nrcounter NAME N THREADS,
//	nrfaircounter NAME N THREADS: THREADS goroutines each N times take
//	the lock (SpinLock, NonReentrantLock, NonReentrantFairLock), GET
//	ctr:NAME, SET it +1, unlock: a read-modify-write that loses updates
//	unless the lock excludes every other holder, Java's included.
//	"start <pid> <ts>", "end <pid> <N*THREADS> <ts>".
//
// It reports false for a mode it does not know.
func runLocks(ctx context.Context, c *redisson.Client, ck *checker, mode, name string, a []string) (bool, error) {
	if _, known := lockKind(c, mode, name); !known {
		return false, nil
	}
	n, err1 := atoi(a, 0, -1)
	threads, err2 := atoi(a, 1, -1)
	if err := errors.Join(err1, err2); err != nil || n < 0 || threads < 1 {
		return true, fmt.Errorf("%s NAME N THREADS", mode)
	}
	pid := os.Getpid()
	out("start %d %d", pid, now())
	var wg sync.WaitGroup
	for t := range threads {
		lock, _ := lockKind(c, mode, name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := countUnder(ctx, c.Redis(), lock, "ctr:"+name, n); err != nil {
				ck.problem("error %d:%d %v %d", pid, t, err, now())
			}
		}()
	}
	wg.Wait()
	out("end %d %d %d", pid, n*threads, now())
	return true, nil
}

// countUnder adds one to key n times, each a GET and a SET under a hold.
func countUnder(ctx context.Context, rdb redis.UniversalClient, lock acquire, key string, n int64) error {
	for range n {
		h, err := lock(ctx)
		if err != nil {
			return err
		}
		err = increment(ctx, rdb, key)
		if uerr := h.Unlock(ctx); err == nil {
			err = uerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func increment(ctx context.Context, rdb redis.UniversalClient, key string) error {
	v, err := rdb.Get(ctx, key).Result()
	var x int64
	switch {
	case errors.Is(err, redis.Nil):
	case err != nil:
		return err
	default:
		if x, err = strconv.ParseInt(v, 10, 64); err != nil {
			return err
		}
	}
	return rdb.Set(ctx, key, strconv.FormatInt(x+1, 10), 0).Err()
}
