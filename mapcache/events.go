package mapcache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/pubsub"
)

// EventType is the kind of an entry event, and the channel it comes on.
type EventType int

const (
	// EntryCreated: a write stored a key the map had no live value for
	// (redisson_map_cache_created:{name}).
	EntryCreated EventType = iota + 1
	// EntryUpdated: a write replaced a live value
	// (redisson_map_cache_updated:{name}).
	EntryUpdated
	// EntryRemoved: a remove, or an eviction for the size limit
	// (redisson_map_cache_removed:{name}).
	EntryRemoved
	// EntryExpired: the clean-up deleted an expired entry
	// (redisson_map_cache_expired:{name}).
	EntryExpired
)

// String returns the type as Java's EntryEvent.Type names it.
func (t EventType) String() string {
	switch t {
	case EntryCreated:
		return "CREATED"
	case EntryUpdated:
		return "UPDATED"
	case EntryRemoved:
		return "REMOVED"
	case EntryExpired:
		return "EXPIRED"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one entry event, as Java's EntryEvent has it: Value is the new
// value (created, updated) or the expired one; OldValue is the replaced
// value (updated) or the removed one (removed).
type Event[K, V any] struct {
	Type     EventType
	Key      K
	Value    V
	OldValue V
	// Err is set, and the rest zero but Type, when the message could not
	// be decoded (it wraps codec.ErrDecode, or says the layout is wrong).
	// Java drops such a message; Go hands it over.
	Err error
}

// Listener receives one type of entry event of a map cache. Close it when
// done.
type Listener[K comparable, V any] struct {
	sub  interface{ Close() error }
	out  chan Event[K, V]
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// Events returns the channel the events arrive on, in the order Redis
// delivered them; it is closed after Close or when the client closes.
func (l *Listener[K, V]) Events() <-chan Event[K, V] { return l.out }

// Close ends the listener: the Redis subscription is dropped when no other
// listener of the client needs it, and Events is closed. Idempotent; it
// returns nil. As in Redisson, has-listeners stays set in the options
// hash: writers keep publishing.
func (l *Listener[K, V]) Close() error {
	l.once.Do(func() { close(l.stop) })
	err := l.sub.Close()
	<-l.done
	return err
}

func (m *MapCache[K, V]) channel(t EventType) string {
	switch t {
	case EntryCreated:
		return m.k.created
	case EntryUpdated:
		return m.k.updated
	case EntryRemoved:
		return m.k.removed
	case EntryExpired:
		return m.k.expired
	}
	return ""
}

// AddListener subscribes to the events of type t (Redisson's addListener
// with an EntryCreatedListener, EntryUpdatedListener, EntryRemovedListener
// or EntryExpiredListener): it sets has-listeners in the options hash,
// which makes every client's writes publish their events, then subscribes
// to the type's channel through the client's pub/sub hub (SSUBSCRIBE on a
// cluster, as Redisson 3.22+). It returns once Redis has confirmed the
// subscription.
func (m *MapCache[K, V]) AddListener(ctx context.Context, t EventType) (*Listener[K, V], error) {
	if m == nil {
		return nil, core.NilHandle(kind, "add listener")
	}
	const op = "add listener"
	if err := m.base.Check(ctx, op); err != nil {
		return nil, err
	}
	ch := m.channel(t)
	if ch == "" {
		return nil, m.base.Invalid(op, "unknown event type %d", int(t))
	}
	_, err := objbase.Bounded(ctx, m.base.Runtime(), func(ctx context.Context) (int64, error) {
		return m.base.Redis().HSet(ctx, m.k.options, "has-listeners", 1).Result()
	})
	if err != nil {
		if objbase.IsWrongType(err) {
			err = core.WrongTypeError(ctx, m.base.Redis(), m.k.options, "hash")
		}
		return nil, m.base.Named(op, err)
	}
	var msgs <-chan pubsub.Message[[]byte]
	var sub interface{ Close() error }
	if m.base.Runtime().PublishCommand() == "SPUBLISH" {
		s, err := pubsub.NewShardedTopic[[]byte](m.src, ch, codec.ByteArray()).Subscribe(ctx)
		if err != nil {
			return nil, m.base.Named(op, unwrapTopic(err))
		}
		msgs, sub = s.Messages(), s
	} else {
		s, err := pubsub.NewTopic[[]byte](m.src, ch, codec.ByteArray()).Subscribe(ctx)
		if err != nil {
			return nil, m.base.Named(op, unwrapTopic(err))
		}
		msgs, sub = s.Messages(), s
	}
	l := &Listener[K, V]{sub: sub, out: make(chan Event[K, V]), stop: make(chan struct{}), done: make(chan struct{})}
	go l.pump(m, t, msgs)
	return l, nil
}

// unwrapTopic drops the topic's own naming from a subscribe error, which
// the map cache names again.
func unwrapTopic(err error) error {
	var oe *core.ObjectError
	if errors.As(err, &oe) {
		return oe.Err
	}
	return err
}

// pump decodes the subscription's messages and hands them over; gap
// markers (messages lost to a reconnect) carry no event.
func (l *Listener[K, V]) pump(m *MapCache[K, V], t EventType, msgs <-chan pubsub.Message[[]byte]) {
	defer close(l.done)
	defer close(l.out)
	for {
		var msg pubsub.Message[[]byte]
		var ok bool
		select {
		case msg, ok = <-msgs:
		case <-l.stop:
			return
		}
		if !ok {
			return
		}
		if msg.Gap != nil {
			continue
		}
		e := Event[K, V]{Type: t, Err: msg.Err}
		if e.Err == nil {
			e = m.decodeEvent(t, msg.Value)
		}
		select {
		case l.out <- e:
		case <-l.stop:
			return
		}
	}
}

// decodeEvent reads Redisson's event message: the key, the value and, for
// an update, the old value, each as a little-endian uint64 length and the
// encoded bytes (Lua struct.pack('Lc0Lc0[Lc0]')).
func (m *MapCache[K, V]) decodeEvent(t EventType, payload []byte) Event[K, V] {
	e := Event[K, V]{Type: t}
	var parts [][]byte
	for len(payload) > 0 && len(parts) < 3 {
		if len(payload) < 8 {
			break
		}
		n := binary.LittleEndian.Uint64(payload)
		if n > uint64(len(payload)-8) {
			break
		}
		parts = append(parts, payload[8:8+n])
		payload = payload[8+n:]
	}
	if len(payload) != 0 || len(parts) < 2 {
		e.Err = m.base.Named("receive", fmt.Errorf("%w: not a map cache event message", codec.ErrDecode))
		return e
	}
	var v V
	err := m.keys.Decode(parts[0], &e.Key)
	if err == nil {
		err = m.values.Decode(parts[1], &v)
	}
	if err == nil && len(parts) == 3 {
		err = m.values.Decode(parts[2], &e.OldValue)
	}
	if err != nil {
		return Event[K, V]{Type: t, Err: m.base.Named("receive", err)}
	}
	if t == EntryRemoved {
		e.OldValue = v
	} else {
		e.Value = v
	}
	return e
}
