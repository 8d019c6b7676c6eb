package mapcache_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/mapcache"
)

// Sessions shared with Java's redisson.getMapCache("sessions",
// StringCodec.INSTANCE): each entry lives 30 minutes, or 5 minutes without
// a read, and Java and Go listeners hear of every new one.
func ExampleMapCache() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	ctx := context.Background()

	sessions := redisson.NewMapCache[string, string](client, "example:sessions", codec.String())
	_, _ = sessions.Delete(ctx)
	created, err := sessions.AddListener(ctx, mapcache.EntryCreated)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer created.Close()

	// Java: sessions.put("s1", "ann", 30, MINUTES, 5, MINUTES)
	_, _, err = sessions.Put(ctx, "s1", "ann", mapcache.WithTTL(30*time.Minute), mapcache.WithMaxIdle(5*time.Minute))
	if err != nil {
		fmt.Println(err)
		return
	}
	e := <-created.Events()
	fmt.Println(e.Type, e.Key, e.Value)

	user, ok, _ := sessions.Get(ctx, "s1") // restarts the 5 minutes
	fmt.Println(user, ok)
	ttl, _ := sessions.EntryRemainTTL(ctx, "s1")
	fmt.Println(ttl > 4*time.Minute && ttl <= 5*time.Minute)
	_, _ = sessions.Delete(ctx)
	// Output:
	// CREATED s1 ann
	// ann true
	// true
}
