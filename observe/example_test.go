package observe_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/observe"
)

// TestMain starts the private redis-server the Examples reach through
// REDIS_ADDR, as a user's program would.
func TestMain(m *testing.M) { os.Exit(redistest.Main(m, 1)) }

// Two observers on one client: here a counter and a printer; in a service,
// extra/redissonotel's observer and one of your own:
//
//	otelObs, err := redissonotel.NewObserver()
//	...
//	client, err := redisson.New(rdb, redisson.WithObserver(observe.Join(otelObs, mine)))
func ExampleJoin() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	var acquired int
	counter := &observe.Observer{
		AcquireEnd: func(ctx context.Context, e observe.AcquireEnd) {
			if e.Outcome == observe.Acquired {
				acquired++ // one goroutine here; a service would use an atomic
			}
		},
	}
	printer := &observe.Observer{
		HoldEnd: func(ctx context.Context, e observe.HoldEnd) {
			fmt.Printf("%s %q: %s\n", e.Kind, e.Name, e.Cause)
		},
	}
	client, err := redisson.New(rdb, redisson.WithObserver(observe.Join(counter, printer)))
	if err != nil {
		panic(err)
	}
	defer client.Close()

	ctx := context.Background()
	h, err := client.Lock("invoices:8").Lock(ctx)
	if err != nil {
		panic(err)
	}
	_ = h.Unlock(ctx)
	fmt.Println("acquired:", acquired)
	// Output:
	// lock "invoices:8": released
	// acquired: 1
}
