package collection_test

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// Price is shared with Java services as com.example.Price.
type Price struct {
	Sku   string `json:"sku"`
	Cents int64  `json:"cents"`
}

func exampleClient() (*redisson.Client, func()) {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	return client, func() { _ = client.Close(); _ = rdb.Close() }
}

// A cache shared with Java's redisson.getMap("prices", JsonJacksonCodec.INSTANCE).
func ExampleMap() {
	client, done := exampleClient()
	defer done()
	ctx := context.Background()

	types := codec.NewTypes().MustRegister("com.example.Price", Price{})
	prices := redisson.NewMap[string, Price](client, "example:prices", codec.JsonJackson(types))
	_, _ = prices.Delete(ctx)

	_, _, err := prices.Put(ctx, "tea", Price{Sku: "tea", Cents: 350}) // Java: prices.put("tea", price)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, ok, _ := prices.Get(ctx, "tea")
	fmt.Println(p.Cents, ok)
	old, present, _ := prices.PutIfAbsent(ctx, "tea", Price{Sku: "tea", Cents: 1})
	fmt.Println(old.Cents, present)
	// Output:
	// 350 true
	// 350 true
}

// Counters in a hash: AddAndGet is HINCRBYFLOAT, as Java's addAndGet.
func ExampleMap_AddAndGet() {
	client, done := exampleClient()
	defer done()
	ctx := context.Background()

	hits := redisson.NewMap[string, int64](client, "example:hits", codec.String())
	_, _ = hits.Delete(ctx)
	_, _ = hits.AddAndGet(ctx, "/home", 1)
	n, err := hits.AddAndGet(ctx, "/home", 2)
	fmt.Println(n, err)
	// Output: 3 <nil>
}

// Entries walks a map of any size with HSCAN; an error is the last pair.
func ExampleMap_Entries() {
	client, done := exampleClient()
	defer done()
	ctx := context.Background()

	m := redisson.NewMap[string, int32](client, "example:stock", codec.JsonJackson(nil))
	_, _ = m.Delete(ctx)
	_ = m.PutAll(ctx, map[string]int32{"a": 1, "b": 2, "c": 3})

	var keys []string
	for e, err := range m.Entries(ctx) {
		if err != nil {
			fmt.Println(err) // a failed page, a value the codec cannot read, ctx done
			return
		}
		keys = append(keys, fmt.Sprint(e.Key, "=", e.Value))
	}
	sort.Strings(keys) // a hash has no order
	fmt.Println(keys)
	// Output: [a=1 b=2 c=3]
}

// A list shared with Java's redisson.getList("tasks", StringCodec.INSTANCE).
func ExampleList() {
	client, done := exampleClient()
	defer done()
	ctx := context.Background()

	tasks := redisson.NewList[string](client, "example:tasks", codec.String())
	_, _ = tasks.Delete(ctx)
	_ = tasks.AddAll(ctx, "build", "test", "deploy") // RPUSH
	_ = tasks.Insert(ctx, 1, "lint")                 // Java: tasks.add(1, "lint")
	for v, err := range tasks.Values(ctx) {          // LRANGE pages
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output: build lint test deploy
}

// A set shared with Java's redisson.getSet("tags", StringCodec.INSTANCE).
func ExampleSet() {
	client, done := exampleClient()
	defer done()
	ctx := context.Background()

	tags := redisson.NewSet[string](client, "example:tags", codec.String())
	_, _ = tags.Delete(ctx)
	added, _ := tags.Add(ctx, "go")
	again, _ := tags.Add(ctx, "go")
	has, _ := tags.Contains(ctx, "go")
	fmt.Println(added, again, has)
	// Output: true false true
}

// A ranking shared with Java's
// redisson.getScoredSortedSet("scores", StringCodec.INSTANCE).
func ExampleScoredSortedSet() {
	client, done := exampleClient()
	defer done()
	ctx := context.Background()

	scores := redisson.NewScoredSortedSet[string](client, "example:scores", codec.String())
	_, _ = scores.Delete(ctx)
	_, _ = scores.Add(ctx, 10, "ann") // ZADD example:scores 10.0 ann
	_, _ = scores.Add(ctx, 7, "bob")
	s, _ := scores.AddScore(ctx, "bob", 5) // ZINCRBY
	rank, _, _ := scores.RevRank(ctx, "bob")
	top, ok, _ := scores.PollLast(ctx)
	fmt.Println(s, rank, top, ok)
	// Output: 12 0 bob true
}
