package engine

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/renewal"
)

// PlainRenewal is Redisson's plain-lock watchdog batch (docs/protocol.md §5.2) for
// objects whose hold is a field of the lock hash: RLock, the fair lock and
// the write lock, whose leases due together share one script call per slot.
// Keep it comparable: the wheel groups leases by Kind.
type PlainRenewal struct{ RT *core.Runtime }

// plainRenewScript renews every lease of one batch.
// KEYS: [name1..nameK]. ARGV: [lease ms, owner1..ownerK].
// Reply: per key 1 = renewed, 0 = gone or held by someone else. A key of the
// wrong type counts as gone, so that it cannot fail the whole batch.
var plainRenewScript = core.NewScript("engine.plainRenew", lua.MustText(luaFiles, "lua/plain_renew.lua"))

// Queue implements renewal.Kind.
func (k PlainRenewal) Queue(ctx context.Context, pipe redis.Pipeliner, ttl time.Duration, leases []*renewal.Lease) func() ([]bool, error) {
	keys := make([]string, len(leases))
	args := make([]any, 1, len(leases)+1)
	args[0] = ttl.Milliseconds()
	for i, l := range leases {
		keys[i] = l.Key()
		args = append(args, l.Owner())
	}
	q := k.RT.Queue(ctx, pipe, plainRenewScript, keys, args...)
	return func() ([]bool, error) {
		v, err := q.Result()
		if err != nil {
			return nil, err
		}
		vals, _ := v.([]any)
		out := make([]bool, len(leases))
		for i := range out {
			out[i] = i < len(vals) && vals[i] == int64(1)
		}
		return out, nil
	}
}
