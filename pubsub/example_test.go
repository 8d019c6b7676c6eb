package pubsub_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/pubsub"
)

// Order is a message shared with Java services as com.example.Order.
type Order struct {
	ID    int64  `json:"id"`
	State string `json:"state"`
}

// Publish and receive on Java's
// redisson.getTopic("orders", JsonJacksonCodec.INSTANCE).
func ExampleTopic() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	types := codec.NewTypes().MustRegister("com.example.Order", Order{})
	orders := redisson.NewTopic[Order](client, "orders", codec.JsonJackson(types))
	sub, err := orders.Subscribe(ctx) // returns once Redis confirmed SUBSCRIBE orders
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Close()

	n, _ := orders.Publish(ctx, Order{ID: 42, State: "paid"}) // PUBLISH orders {"@class":"com.example.Order",...}
	m := <-sub.Messages()
	if m.Gap != nil { // messages may be missing here (reconnect, or a full buffer)
		fmt.Println("gap:", *m.Gap)
	}
	fmt.Println(n, m.Channel, m.Value.ID, m.Value.State)
	// Output: 1 orders 42 paid
}

// A pattern subscription (Java's getPatternTopic("news.*")): each message
// says which channel it came from.
func ExamplePatternTopic() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	sub, err := redisson.NewPatternTopic[string](client, "news.*", codec.String()).Subscribe(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Close()
	_, _ = redisson.NewTopic[string](client, "weather", codec.String()).Publish(ctx, "rain") // no match
	_, _ = redisson.NewTopic[string](client, "news.sport", codec.String()).Publish(ctx, "goal")
	m := <-sub.Messages()
	fmt.Println(m.Pattern, m.Channel, m.Value)
	// Output: news.* news.sport goal
}

// A sharded topic (Java's getShardedTopic): SPUBLISH and SSUBSCRIBE, Redis
// 7+, on a single node as on a cluster.
func ExampleShardedTopic() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	topic := redisson.NewShardedTopic[string](client, "jobs", codec.String())
	sub, err := topic.Subscribe(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Close()
	n, _ := topic.Publish(ctx, "j1")
	count, _ := topic.CountSubscribers(ctx) // PUBSUB SHARDNUMSUB jobs
	fmt.Println(n, count, (<-sub.Messages()).Value)
	// Output: 1 1 j1
}

// A reliable topic (Java's getReliableTopic): a stream with at-least-once
// delivery to every subscriber; a new subscriber also gets what is still
// in the stream.
func ExampleReliableTopic() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	topic := redisson.NewReliableTopic[string](client, "audit", codec.String())
	n, _ := topic.Publish(ctx, "a1") // XADD audit * m a1; no subscriber yet: 0
	sub, err := topic.Subscribe(ctx) // a consumer group of its own, registered in {audit}:timeout
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Close()     // removes the group and the registration
	m := <-sub.Messages() // acknowledged (XACK) once received here
	count, _ := topic.CountSubscribers(ctx)
	fmt.Println(n, m.Value, count)
	// Output: 0 a1 1
}

// A reliable subscriber that reads a long backlog a few entries at a time
// (XREADGROUP ... COUNT 100): without the cap, as in Redisson, one read
// takes every entry it has not read yet.
func ExampleWithReadCount() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	topic := redisson.NewReliableTopic[string](client, "backlog", codec.String())
	for _, v := range []string{"b1", "b2", "b3"} {
		_, _ = topic.Publish(ctx, v)
	}
	sub, err := topic.Subscribe(ctx, pubsub.WithReadCount(100))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Close()
	var got []string
	for range 3 {
		got = append(got, (<-sub.Messages()).Value)
	}
	fmt.Println(got)
	// Output: [b1 b2 b3]
}
