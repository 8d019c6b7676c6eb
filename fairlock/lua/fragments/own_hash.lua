-- own_hash is the first step of both acquire variants: a lock's hash has
-- exactly one field, its holder's, so a hash with more is another kind's
-- (a read-write lock's reader has the very field the caller would
-- re-enter) and is refused before anything, a stale head included, is
-- written. It leaves n, the hash's length, for take_or_reenter: HLEN takes
-- the place of Redisson's EXISTS, so no path sends one call more.

local n = redis.call('hlen', KEYS[1])
if n > 1 then
{{refuse_hash key=KEYS[1] want=fairlock}}
end
