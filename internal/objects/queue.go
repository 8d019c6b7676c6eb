package objects

import "github.com/goredisson/redisson/internal/core"

// NewQueueSource makes a *queue.Source, the client's runtime the queue
// constructors take; set by package queue. (The queues are generic, so the
// root package makes the Source and passes it to queue.NewQueue[T] and its
// kin, as it does for the topics.)
var NewQueueSource func(rt *core.Runtime) any
