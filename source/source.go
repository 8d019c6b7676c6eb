// Package source is the one way in to the objects of this module: a
// client's handle that every object package's constructor takes.
//
//	src := client.Source()
//	lock := rlock.New(src, "orders")
//	q := queue.NewQueue[string](src, "jobs", codec.String())
//
// The redisson.Client methods and functions (Client.Lock,
// redisson.NewQueue, ...) are the same constructors spelled shorter.
package source

import "github.com/goredisson/redisson/internal/handle"

// Source is a client's machinery (its go-redis client, pub/sub hub,
// renewal wheel, lock engine and lifetime) as one opaque value; get it from
// (*redisson.Client).Source, the only way to make a usable one. It is safe
// for concurrent use and lives as long as its Client: objects made from it
// fail with redisson.ErrClosed after the Client's Close.
//
// A nil or zero Source has no client: the locks' constructors (rlock.New,
// fairlock.New, rwlock.New, fencedlock.New, multilock.NewGroup) panic on
// it, and every other object made from it fails each call with an error
// wrapping redisson.ErrInvalidArgument.
type Source handle.Source
