package adder_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
)

// Requests counted without a Redis command each, summed across every
// service on demand: Java's redisson.getLongAdder("requests") answers the
// same sums.
func ExampleLongAdder() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	requests := client.LongAdder("requests")
	defer requests.Close()
	for range 3 {
		requests.Increment() // local only
	}
	n, err := requests.Sum(ctx) // PUBLISH {requests}:adder-topic 1:<id>, then every instance answers
	if err != nil {
		panic(err)
	}
	fmt.Println(n)
	// Output: 3
}
