package redisson

import (
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/queue"
)

// NewQueue returns the queue called name (Redisson's getQueue(name,
// codec)): a FIFO in the Redis list name, elements of type T encoded with
// cd, which must match the codec of the Java services sharing it (see
// package codec). A Go method cannot have type parameters, hence a
// function. After c.Close every call fails with ErrClosed.
func NewQueue[T any](c *Client, name string, cd codec.Codec) *queue.Queue[T] {
	return queue.NewQueue[T](c.Source(), name, cd)
}

// NewDeque returns the deque called name (Redisson's getDeque(name, codec)):
// the Redis list name, used at both ends.
func NewDeque[T any](c *Client, name string, cd codec.Codec) *queue.Deque[T] {
	return queue.NewDeque[T](c.Source(), name, cd)
}

// NewBlockingQueue returns the blocking queue called name (Redisson's
// getBlockingQueue(name, codec)): a queue whose Take and Poll wait for an
// element with BLPOP, each on a connection of its own (never one of the
// go-redis pool), woken by a push of any client, Java's or Go's. Keep the
// handle: it keeps those connections between calls. After c.Close waiting
// calls end with ErrClosed. See docs/queues.md.
func NewBlockingQueue[T any](c *Client, name string, cd codec.Codec) *queue.BlockingQueue[T] {
	return queue.NewBlockingQueue[T](c.Source(), name, cd)
}

// NewBlockingDeque returns the blocking deque called name (Redisson's
// getBlockingDeque(name, codec)): TakeFirst/PollFirst wait with BLPOP,
// TakeLast/PollLast with BRPOP.
func NewBlockingDeque[T any](c *Client, name string, cd codec.Codec) *queue.BlockingDeque[T] {
	return queue.NewBlockingDeque[T](c.Source(), name, cd)
}

// NewDelayedQueue returns the delayed queue in front of the queue called
// name (Redisson's getDelayedQueue(getBlockingQueue(name, codec))) and
// starts its transfer task, which moves due elements to the queue name
// while the handle lives: call Destroy when done with it. Elements offered
// by Java reach Go consumers of name and the other way round, whichever
// side's task runs. See docs/queues.md.
func NewDelayedQueue[T any](c *Client, name string, cd codec.Codec) *queue.DelayedQueue[T] {
	return queue.NewDelayedQueue[T](c.Source(), name, cd)
}
