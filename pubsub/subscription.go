package pubsub

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
)

// Message is one message of a subscription, or a gap marker.
type Message[T any] struct {
	// Channel is the channel the message was published to.
	Channel string
	// Pattern is the pattern that matched (PatternTopic only).
	Pattern string
	// ID is the stream entry id of the message (ReliableTopic only).
	ID string
	// Value is the decoded message; the zero T when Err or Gap is set.
	Value T
	// Err is set when the payload could not be decoded with the topic's
	// codec (it wraps codec.ErrDecode). Java drops such a message; Go
	// hands it over so the consumer knows.
	Err error
	// Gap is set on a gap marker: no message, but word that messages may
	// be missing at this place in the stream.
	Gap *Gap
}

// Gap says why messages may be missing before the next message.
type Gap struct {
	// Dropped counts the messages this subscription dropped here because
	// its buffer was full (see WithBufferSize).
	Dropped int64
	// Resubscribed is true when the subscription was made again after a
	// reconnect, a failover or a slot move: whatever was published while
	// it was down is lost, and how much is unknown.
	Resubscribed bool
}

// Subscription is one subscription of a topic: its messages arrive,
// decoded, on Messages. Close it when done.
type Subscription[T any] struct {
	t    *topic[T]
	q    *queue
	l    *hub.Listener
	out  chan Message[T]
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the pump has ended
	once sync.Once
	err  error // why it ended; written before out is closed
}

func newSubscription[T any](t *topic[T], buffer int) *Subscription[T] {
	return &Subscription[T]{
		t:    t,
		q:    &queue{size: buffer, notify: make(chan struct{}, 1), ended: make(chan struct{})},
		out:  make(chan Message[T]),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
}

func (s *Subscription[T]) start(l *hub.Listener) {
	s.l = l
	go s.pump()
}

// Messages returns the channel the messages arrive on, in the order Redis
// delivered them, with gap markers where messages may be missing. It is
// closed when the subscription ends: after Close, or when the client
// closes (Err tells which).
func (s *Subscription[T]) Messages() <-chan Message[T] { return s.out }

// Close ends the subscription: the Redis subscription is dropped when no
// other subscription of this client needs it, and Messages is closed
// (messages still buffered are discarded). Close is idempotent and always
// returns nil.
func (s *Subscription[T]) Close() error {
	s.once.Do(func() { close(s.stop) })
	<-s.done
	return nil
}

// Err returns why Messages was closed: nil after Close, an error wrapping
// redisson.ErrClosed when the client was closed, or the error that ended
// the subscription (the go-redis client closed under it). It returns nil
// while the subscription is open.
func (s *Subscription[T]) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Dropped returns how many messages the subscription has dropped because
// its buffer was full.
func (s *Subscription[T]) Dropped() int64 { return s.q.dropped.Load() }

// pump decodes buffered messages on its own goroutine and hands them to
// the consumer: decoding and a slow consumer hold up this subscription
// only, never the hub's reader.
func (s *Subscription[T]) pump() {
	// Deferred calls run last first: done closes before out, so a
	// consumer that sees Messages closed finds Err set.
	defer close(s.out)
	defer close(s.done)
	defer s.l.Close()
	life := s.t.src.life.Done()
	for {
		it, ok := s.q.next(s.stop, life)
		if !ok {
			s.err = s.endErr()
			return
		}
		m := s.convert(it)
		select {
		case s.out <- m:
		case <-s.stop:
			return
		case <-life:
			s.err = s.endErr()
			return
		case <-s.q.ended:
			s.err = s.endErr()
			return
		}
	}
}

// endErr is why the subscription ended, or nil after Close.
func (s *Subscription[T]) endErr() error {
	select {
	case <-s.stop:
		return nil
	default:
	}
	var err error
	switch {
	case s.t.src.life.Err() != nil:
		err = context.Cause(s.t.src.life)
	default:
		err = s.q.endErr()
		if errors.Is(err, hub.ErrClosed) {
			err = core.ErrClosed
		}
	}
	return s.t.fail("receive", err)
}

func (s *Subscription[T]) convert(it item) Message[T] {
	if it.gap != nil {
		g := *it.gap
		return Message[T]{Gap: &g}
	}
	m := Message[T]{Channel: it.msg.Channel, Pattern: it.msg.Pattern}
	if err := s.t.codec.Decode([]byte(it.msg.Payload), &m.Value); err != nil {
		var zero T
		m.Value = zero
		m.Err = s.t.fail("receive", err)
	}
	return m
}

// queue is a subscription's bounded buffer, the hub's Sink for it. The hub
// calls it from its reader goroutine with its lock held: every method
// returns at once.
type queue struct {
	size    int
	notify  chan struct{} // capacity 1: something was queued or it ended
	ended   chan struct{} // closed by End
	dropped atomic.Int64

	mu    sync.Mutex
	items []item // at most size messages, and gap markers between them
	msgs  int    // messages in items
	err   error  // End's
	done  bool
}

// item is a message or a gap marker.
type item struct {
	msg hub.Message
	gap *Gap
}

func (q *queue) signal() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// marker returns the gap marker at the end of the queue, adding one when
// the last item is a message; markers in a row merge, so the queue stays
// bounded (at most size+1 markers).
func (q *queue) marker() *Gap {
	if n := len(q.items); n > 0 && q.items[n-1].gap != nil {
		return q.items[n-1].gap
	}
	g := &Gap{}
	q.items = append(q.items, item{gap: g})
	return g
}

// Message queues m, or drops it (counted, and marked where it was lost)
// when the buffer is full.
func (q *queue) Message(m hub.Message) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.done {
		return true
	}
	if q.msgs >= q.size {
		q.marker().Dropped++
		q.dropped.Add(1)
		q.signal()
		return false
	}
	q.items = append(q.items, item{msg: m})
	q.msgs++
	q.signal()
	return true
}

// Gap marks the resubscription after a reconnect, failover or slot move.
func (q *queue) Gap() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.done {
		return
	}
	q.marker().Resubscribed = true
	q.signal()
}

// End ends the queue for good.
func (q *queue) End(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.done {
		return
	}
	q.done, q.err = true, err
	close(q.ended)
}

func (q *queue) endErr() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// next waits for the oldest item; false when the queue ended, stop closed
// or life ended.
func (q *queue) next(stop, life <-chan struct{}) (item, bool) {
	for {
		q.mu.Lock()
		if q.done {
			q.mu.Unlock()
			return item{}, false
		}
		if len(q.items) > 0 {
			it := q.items[0]
			q.items[0] = item{}
			q.items = q.items[1:]
			if it.gap == nil {
				q.msgs--
			}
			if len(q.items) == 0 {
				q.items = nil // let the backing array go
			}
			q.mu.Unlock()
			return it, true
		}
		q.mu.Unlock()
		select {
		case <-q.notify:
		case <-q.ended:
		case <-stop:
			return item{}, false
		case <-life:
			return item{}, false
		}
	}
}
