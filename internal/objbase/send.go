package objbase

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
)

// Bounded runs call so that it returns by ctx's end even when go-redis
// would wait for its own ReadTimeout (see conns.Bounded).
func Bounded[T any](ctx context.Context, rt *core.Runtime, call func(context.Context) (T, error)) (T, error) {
	if !rt.Conns().NeedsBound(ctx) {
		return call(ctx)
	}
	return conns.Bounded(ctx, call)
}

// noRetryCmd is a command go-redis must not send a second time when its
// reply is lost: a second RPUSH would add the element twice, a second LPOP
// would pop another and lose the first.
type noRetryCmd struct{ *redis.Cmd }

func (noRetryCmd) NoRetry() bool { return true }

// Send sends one command whose first key is args[1] and returns it; a nil
// reply is no error. A read may be retried by go-redis; a write is sent
// at most once (a lost reply is an error, never a second run).
func (b *Base) Send(ctx context.Context, write bool, args ...any) (*redis.Cmd, error) {
	return Bounded(ctx, b.rt, func(ctx context.Context) (*redis.Cmd, error) {
		cmd := redis.NewCmd(ctx, args...)
		cmd.SetFirstKeyPos(1)
		var send redis.Cmder = cmd
		if write {
			send = noRetryCmd{cmd}
		}
		err := b.Redis().Process(ctx, send)
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		return cmd, err
	})
}

// Eval runs script s on keys; a write is sent at most once.
func (b *Base) Eval(ctx context.Context, s *core.Script, write bool, keys []string, args ...any) (any, error) {
	return Bounded(ctx, b.rt, func(ctx context.Context) (any, error) {
		if write {
			return s.RunNoRetry(ctx, b.Redis(), keys, args...)
		}
		return s.Run(ctx, b.Redis(), keys, args...)
	})
}
