package fairlock_test

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// scriptReplies is a go-redis hook counting the script replies a client
// has received, so a test can wait until a waiter's tries have run instead
// of guessing how long they take.
type scriptReplies struct{ n atomic.Int64 }

func isScript(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
		return true
	}
	return false
}

func (h *scriptReplies) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *scriptReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if isScript(cmd) {
			h.n.Add(1)
		}
		return err
	}
}
func (h *scriptReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if isScript(c) {
				h.n.Add(1)
			}
		}
		return err
	}
}
