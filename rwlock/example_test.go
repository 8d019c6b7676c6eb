package rwlock_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rwlock"
)

// A writer downgrades to a reader: it takes the read lock as the write
// hold's owner, then releases the write lock, and the lock stays
// read-locked by it, so other readers may enter but no writer.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	rw := client.ReadWriteLock("example:rwlock:config")
	w, err := rw.WriteLock().Lock(ctx)
	if err != nil {
		panic(err)
	}
	// Write the data under w, then downgrade.
	r, err := rw.ReadLock().Lock(ctx, rwlock.WithOwner(w.Owner()))
	if err != nil {
		panic(err)
	}
	if err := w.Unlock(ctx); err != nil {
		panic(err)
	}
	defer r.Unlock(context.Background())

	// Another reader enters at once; another writer does not.
	other, ok, _ := rw.ReadLock().TryLock(ctx)
	fmt.Println("other reader:", ok)
	if ok {
		_ = other.Unlock(ctx)
	}
	_, ok, _ = rw.WriteLock().TryLock(ctx)
	fmt.Println("other writer:", ok)
	// Output:
	// other reader: true
	// other writer: false
}
