package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
)

// expireScript sets the lease of a lock the owner still holds: what a
// multi-lock sends after taking its members with a provisional lease
// (Redisson's expireAsync PEXPIREs without the check, reviving nothing but
// lengthening a lock someone else may hold by then).
// KEYS: [name]. ARGV: [lease ms, owner field].
// Reply: 1 = set, 0 = the owner holds the lock no more.
var expireScript = core.NewScript("engine.expire", `
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('pexpire', KEYS[1], ARGV[1])
	return 1
end
return 0
`)

// Expire gives h's lock the lease a multi-lock chose for it once every
// member is held: the hash alone, and only while h's owner holds it. The
// hold's loss signal is re-timed to the new lease.
func (h *Hold) Expire(ctx context.Context, lease time.Duration) error {
	return h.ExpireWith(ctx, lease, expireScript, []string{h.l.cfg.Name})
}

// ExpireWith is Expire with an object's own script (the read-write lock's,
// which must not cut the hash below what its other holders need). script
// gets ARGV [lease ms, owner field, extra...] and replies 1 when the lease
// was set, 0 when the owner holds the lock no more. It is sent with replica
// sync, as the acquire was.
func (h *Hold) ExpireWith(ctx context.Context, lease time.Duration, script *core.Script, keys []string, extra ...any) error {
	l := h.l
	if lease < time.Millisecond {
		return l.Err("expire", fmt.Errorf("%w: the lease must be at least 1ms, got %v", core.ErrInvalidArgument, lease))
	}
	if err := h.Err(); err != nil {
		return l.Err("expire", err)
	}
	field := h.OwnerField()
	start := time.Now()
	res, err := l.rt.EvalSyncedChecked(ctx, script, keys, append([]any{lease.Milliseconds(), field}, extra...)...)
	if err != nil {
		return l.Err("expire", l.typed(ctx, err))
	}
	if res != int64(1) || !l.rt.Extended(l.cfg.Name, field, start, lease) {
		return l.Err("expire", fmt.Errorf("%w: %q is held by this owner no more", core.ErrLockLost, l.cfg.Name))
	}
	return nil
}
