package setcache_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// Session ids shared with Java's redisson.getSetCache("sessions",
// StringCodec.INSTANCE): each one lives for its own time.
func ExampleSetCache() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	sessions := redisson.NewSetCache[string](client, "example:sessions", codec.String())
	_, _ = sessions.Delete(ctx)

	added, _ := sessions.AddTTL(ctx, "s-1", 30*time.Minute) // Java: sessions.add("s-1", 30, MINUTES)
	fmt.Println(added)
	added, _ = sessions.AddTTL(ctx, "s-1", time.Hour) // live already: the expiry moves
	fmt.Println(added)
	_, _ = sessions.Add(ctx, "admin") // no TTL
	in, _ := sessions.Contains(ctx, "s-1")
	n, _ := sessions.Size(ctx)
	fmt.Println(in, n)
	all, _ := sessions.ReadAll(ctx) // soonest to expire first
	fmt.Println(all)
	// Output:
	// true
	// false
	// true 2
	// [s-1 admin]
}
