package setcache

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/eviction"
	"github.com/goredisson/redisson/pubsub"
)

// cleanUp is the clean-up task of the set cache name: one run of Redisson
// 4.7's SetCacheEvictionTask script. It answers -1 when another client's
// run holds the latch.
func cleanUp(rt *core.Runtime, name string) eviction.Task {
	keys := []string{name, ExpiredChannel(name), TaskLatch(name)}
	return func(ctx context.Context, limit int, latch time.Duration) (int, error) {
		res, err := evictScript.RunNoRetry(ctx, rt.Redis(), keys,
			nowMS(), limit, int64(latch/time.Second), 1, rt.PublishCommand())
		if err != nil {
			return 0, &core.ObjectError{Kind: kind, Name: name, Op: "clean up", Err: err}
		}
		n, _ := res.(int64)
		return int(n), nil
	}
}

// SubscribeExpired subscribes to the members the clean-up removes as
// expired, Redisson 4.7's SetExpiredListener: the clean-up of any client
// that runs 4.7's task (every Go client, and Java 4.7) publishes each
// removed member on ExpiredChannel(name) while someone listens. It
// returns once Redis has confirmed the subscription; close it when done.
// A member read before the clean-up ran is never announced: only the
// clean-up publishes, and Redisson 3.52's clean-up publishes nothing.
// Options: pubsub.WithBufferSize.
func (s *SetCache[T]) SubscribeExpired(ctx context.Context, opts ...pubsub.SubscribeOption) (*pubsub.Subscription[T], error) {
	if s == nil {
		return nil, core.NilHandle(kind, "subscribe expired")
	}
	const op = "subscribe expired"
	if err := s.base.Check(ctx, op); err != nil {
		return nil, err
	}
	ec := expiredCodec{cd: s.codec}
	var sub *pubsub.Subscription[T]
	var err error
	if s.base.Runtime().PublishCommand() == "SPUBLISH" {
		sub, err = pubsub.NewShardedTopic[T](s.src, ExpiredChannel(s.base.Name()), ec).Subscribe(ctx, opts...)
	} else {
		sub, err = pubsub.NewTopic[T](s.src, ExpiredChannel(s.base.Name()), ec).Subscribe(ctx, opts...)
	}
	if err != nil {
		return nil, s.base.Named(op, err)
	}
	return sub, nil
}

// expiredCodec reads the clean-up's messages: Lua's struct.pack('Lc0'),
// the member's length as a little-endian uint64 and then its bytes, as
// Redisson's SetCacheEventCodec reads them from a Redis on Linux.
type expiredCodec struct{ cd codec.Codec }

func (expiredCodec) Encode(any) ([]byte, error) {
	return nil, fmt.Errorf("%w: expired-member messages are published by the clean-up only", codec.ErrEncode)
}

func (c expiredCodec) Decode(data []byte, v any) error {
	if len(data) < 8 {
		return fmt.Errorf("%w: expired-member message of %d bytes, want a length and a member", codec.ErrDecode, len(data))
	}
	if n := binary.LittleEndian.Uint64(data); n != uint64(len(data)-8) {
		return fmt.Errorf("%w: expired-member message says %d bytes, holds %d", codec.ErrDecode, n, len(data)-8)
	}
	return c.cd.Decode(data[8:], v)
}
