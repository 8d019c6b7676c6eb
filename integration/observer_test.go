package integration

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// The observer is a Redis server of its own (so that faults on the objects'
// server do not touch it) that keeps, per test object, a gauge of who is
// inside a critical section and a non-atomic counter.

// enterScript counts a holder in.
// KEYS[1] gauge hash; ARGV[1] role (x, w, r, p), ARGV[2] permits.
// Fields: one count per role, max_<role>, violations (incremented when two
// exclusive holders, a writer and anybody, or more than permits holders
// are inside at once). Returns the role's count.
var enterScript = redis.NewScript(`
local n = redis.call('hincrby', KEYS[1], ARGV[1], 1)
local function get(f) return tonumber(redis.call('hget', KEYS[1], f) or '0') end
local x, w, r, p = get('x'), get('w'), get('r'), get('p')
if x > 1 or w > 1 or (w > 0 and r > 0) or p > tonumber(ARGV[2]) then
  redis.call('hincrby', KEYS[1], 'violations', 1)
end
if n > get('max_' .. ARGV[1]) then redis.call('hset', KEYS[1], 'max_' .. ARGV[1], n) end
return n`)

// gaugeKey and counterKey name an object's observer keys.
func gaugeKey(name string) string   { return "gauge:" + name }
func counterKey(name string) string { return "counter:" + name }

// enter counts a holder of role into name's gauge.
func enter(ctx context.Context, obs *redis.Client, name, role string, permits int) error {
	return enterScript.Run(ctx, obs, []string{gaugeKey(name)}, role, permits).Err()
}

// leave counts it out.
func leave(ctx context.Context, obs *redis.Client, name, role string) error {
	return obs.HIncrBy(ctx, gaugeKey(name), role, -1).Err()
}

// bump is the non-atomic read-modify-write whose lost updates show an
// overlap of exclusive holders.
func bump(ctx context.Context, obs *redis.Client, name string) error {
	v, err := obs.Get(ctx, counterKey(name)).Int64()
	if err != nil && err != redis.Nil {
		return err
	}
	return obs.Set(ctx, counterKey(name), strconv.FormatInt(v+1, 10), 0).Err()
}

// gaugeStats reads name's gauge.
func gaugeStats(ctx context.Context, obs *redis.Client, name string) (map[string]int64, error) {
	m, err := obs.HGetAll(ctx, gaugeKey(name)).Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		n, _ := strconv.ParseInt(v, 10, 64)
		out[k] = n
	}
	return out, nil
}

// fenceScript checks that a fencing token is greater than every token
// seen before in the critical sections of name, counting a violation
// otherwise. KEYS[1] last token, KEYS[2] gauge hash; ARGV[1] the token.
var fenceScript = redis.NewScript(`
local last = tonumber(redis.call('get', KEYS[1]) or '0')
if tonumber(ARGV[1]) <= last then
  redis.call('hincrby', KEYS[2], 'token_violations', 1)
  return 0
end
redis.call('set', KEYS[1], ARGV[1])
return 1`)

// fence checks a fencing token inside the critical section.
func fence(ctx context.Context, obs *redis.Client, name string, token int64) error {
	return fenceScript.Run(ctx, obs, []string{"token:" + name, gaugeKey(name)}, token).Err()
}
