package redisson_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// Person is the Go side of a Java class com.example.Person with fields
// String name, int age and Long id.
type Person struct {
	Name string `json:"name"`
	Age  int32  `json:"age"`
	ID   *int64 `json:"id"` // a pointer: Java's boxed Long
}

// A bucket a Java service reads with
// redisson.getBucket("person:7", new JsonJacksonCodec()).
func ExampleNewBucket() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	types := codec.NewTypes().MustRegister("com.example.Person", Person{})
	people := redisson.NewBucket[Person](client, "person:7", codec.JsonJackson(types))
	id := int64(7)
	if err := people.Set(ctx, Person{Name: "Ann", Age: 42, ID: &id}); err != nil {
		panic(err)
	}
	stored, _ := rdb.Get(ctx, "person:7").Result()
	fmt.Println(stored)

	p, found, err := people.Get(ctx)
	fmt.Println(p.Name, p.Age, *p.ID, found, err)
	// Output:
	// {"@class":"com.example.Person","age":42,"id":["java.lang.Long",7],"name":"Ann"}
	// Ann 42 7 true <nil>
}

// A counter shared with Java's redisson.getAtomicLong("visits").
func ExampleClient_AtomicLong() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	visits := client.AtomicLong("visits")
	n, _ := visits.IncrementAndGet(ctx)
	n, _ = visits.AddAndGet(ctx, 10)
	swapped, _ := visits.CompareAndSet(ctx, 11, 100)
	stored, _ := rdb.Get(ctx, "visits").Result()
	fmt.Println(n, swapped, stored)
	// Output: 11 true 100
}
