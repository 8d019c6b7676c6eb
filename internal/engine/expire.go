package engine

import (
	"context"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// expireScript sets the lease of a lock the owner still holds: the extend
// of a lock whose lease is its hash's TTL (RLock, the fenced lock, whose
// token counter keeps no TTL, and the fair lock, whose queue and timeout
// keys are left alone), which a multi-lock also sends after taking its
// members with a provisional lease. Redisson's expire PEXPIREs without the
// check, lengthening a lock someone else may hold by then.
// KEYS: [name]. ARGV: [lease ms, owner field].
// Reply: 1 = set, 0 = the owner holds the lock no more.
var expireScript = core.NewScript("engine.expire", lua.MustText(luaFiles, "lua/expire.lua"))

// Expire gives h's lock the lease a multi-lock chose for it once every
// member is held (lockable.Hold's Expire): Extend, under the operation name
// "expire".
func (h *Hold) Expire(ctx context.Context, lease time.Duration) error {
	return h.extend(ctx, "expire", lease)
}
