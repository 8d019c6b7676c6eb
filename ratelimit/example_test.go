package ratelimit_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/ratelimit"
)

// Every process calling a partner's API shares 10 calls per second (Java's
// RRateLimiter of the same name included).
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	limiter := client.RateLimiter("partner-api")
	// Only the first process to get here sets the rate.
	if _, err := limiter.TrySetRate(ctx, ratelimit.Overall, 10, time.Second); err != nil {
		panic(err)
	}
	for range 10 {
		if err := limiter.Acquire(ctx, 1); err != nil { // waits when over the rate
			panic(err)
		}
		// ... call the API ...
	}
	ok, _ := limiter.TryAcquire(ctx, 1)
	fmt.Println("an 11th call within the second:", ok)
	// Output: an 11th call within the second: false
}
