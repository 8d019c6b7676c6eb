package objects

import "github.com/goredisson/redisson/internal/core"

// NewPubSubSource makes a *pubsub.Source, the client's pub/sub machinery
// the topic constructors take; set by package pubsub. (The topics are
// generic, so they cannot be made here behind an any like the other
// objects: the root package makes the Source and passes it to
// pubsub.NewTopic[T] and its kin.)
var NewPubSubSource func(rt *core.Runtime) any
