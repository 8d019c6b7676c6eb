package bits_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
)

// Feature flags of user ids as bits, shared with Java's
// redisson.getBitSet("beta-users").
func ExampleBitSet() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	beta := client.BitSet("beta-users")
	defer beta.Clear(ctx)
	_, _ = beta.Set(ctx, 42, true) // SETBIT beta-users 42 1
	_, _ = beta.Set(ctx, 7, true)
	on, _ := beta.Get(ctx, 42)
	n, _ := beta.Cardinality(ctx)
	for id, err := range beta.SetBits(ctx) {
		if err != nil {
			panic(err)
		}
		fmt.Print(id, " ")
	}
	fmt.Println(on, n)
	// Output: 7 42 true 2
}
