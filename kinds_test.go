package redisson_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/ratelimit"
)

// One name, one kind (issue #24 point 3): a kind's acquire, set-up and
// ForceUnlock calls refuse a key that another kind of object owns, with an
// error wrapping ErrWrongType that says what is there, and leave Redis as
// it was. Plain, fair and fenced locks share one hash layout and exclude
// each other: they are one family and keep working on each other's key.

// objKind is one kind of object on a name.
type objKind struct {
	name   string // for the subtests
	family string // kinds of one family share their key
	holds  string // what a refusal says the key holds when this kind made it
	is     string // what a refusal says this kind is
	// create makes the kind's key on name through c for owner (0: a fresh
	// one) and returns how to let it go.
	create func(t *testing.T, c *redisson.Client, name string, owner int64) func()
	// calls are the kind's acquire and set-up calls; force its ForceUnlock
	// (nil: none).
	calls []kindCall
	force func(ctx context.Context, c *redisson.Client, name string) (bool, error)
}

// kindCall is one acquire or set-up call of a kind.
type kindCall struct {
	name string
	// waits: the call waits while the key is held, so it runs only where
	// it must be refused at once.
	waits bool
	// run makes the call for owner (0: a fresh one); ok says it acquired
	// (or set), release gives back what it took.
	run func(ctx context.Context, c *redisson.Client, name string, owner int64) (ok bool, release func(), err error)
	// want is ok on a key of the call's own family made by existing (a
	// kind name), held by another owner.
	want func(existing string) bool
}

// kindLease keeps every hold of these tests from being renewed: nothing
// may write in the background while a refusal is checked.
const kindLease = time.Minute

func lockOpts(owner int64) []locks.Option {
	opts := []locks.Option{locks.WithLease(kindLease)}
	if owner != 0 {
		opts = append(opts, locks.WithOwner(owner))
	}
	return opts
}

// handleOf is a lock kind's Lock and TryLock on a name (acquirerOf).
type handleOf func(c *redisson.Client, name string) acquirer

// lockCalls are TryLock and Lock of a lock kind.
func lockCalls(k handleOf, want func(existing string) bool) []kindCall {
	release := func(h holder) func() {
		return func() { _ = h.Unlock(context.Background()) }
	}
	return []kindCall{
		{name: "TryLock", want: want, run: func(ctx context.Context, c *redisson.Client, name string, owner int64) (bool, func(), error) {
			h, ok, err := k(c, name).try(ctx, lockOpts(owner)...)
			if !ok {
				return false, nil, err
			}
			return true, release(h), err
		}},
		{name: "Lock", waits: true, run: func(ctx context.Context, c *redisson.Client, name string, owner int64) (bool, func(), error) {
			h, err := k(c, name).lock(ctx, lockOpts(owner)...)
			if err != nil {
				return false, nil, err
			}
			return true, release(h), nil
		}},
	}
}

func never(string) bool { return false }

// createLock returns the create function of a lock kind: a hold.
func createLock(k handleOf) func(*testing.T, *redisson.Client, string, int64) func() {
	return func(t *testing.T, c *redisson.Client, name string, owner int64) func() {
		h, err := k(c, name).lock(context.Background(), lockOpts(owner)...)
		require.NoError(t, err)
		return func() { _ = h.Unlock(context.Background()) }
	}
}

func objKinds() []objKind {
	plain := func(c *redisson.Client, name string) acquirer {
		l := c.Lock(name)
		return acquirerOf(l.Lock, l.TryLock)
	}
	fair := func(c *redisson.Client, name string) acquirer {
		l := c.FairLock(name)
		return acquirerOf(l.Lock, l.TryLock)
	}
	fenced := func(c *redisson.Client, name string) acquirer {
		l := c.FencedLock(name)
		return acquirerOf(l.Lock, l.TryLock)
	}
	read := func(c *redisson.Client, name string) acquirer {
		l := c.ReadWriteLock(name).ReadLock()
		return acquirerOf(l.Lock, l.TryLock)
	}
	write := func(c *redisson.Client, name string) acquirer {
		l := c.ReadWriteLock(name).WriteLock()
		return acquirerOf(l.Lock, l.TryLock)
	}
	// A group is made holding values a and b; its calls take a.
	group := func(c *redisson.Client, name string) acquirer {
		l := c.MultiLockGroup(name, "a", "b")
		return acquirerOf(l.Lock, l.TryLock)
	}
	groupA := func(c *redisson.Client, name string) acquirer {
		l := c.MultiLockGroup(name, "a")
		return acquirerOf(l.Lock, l.TryLock)
	}
	return []objKind{
		{name: "lock", family: "lock", holds: "a lock", is: "a lock", create: createLock(plain),
			calls: lockCalls(plain, never),
			force: func(ctx context.Context, c *redisson.Client, name string) (bool, error) {
				return c.Lock(name).ForceUnlock(ctx)
			}},
		{name: "fair lock", family: "lock", holds: "a lock", is: "a fair lock", create: createLock(fair),
			calls: lockCalls(fair, never),
			force: func(ctx context.Context, c *redisson.Client, name string) (bool, error) {
				return c.FairLock(name).ForceUnlock(ctx)
			}},
		{name: "fenced lock", family: "lock", holds: "a lock", is: "a fenced lock", create: createLock(fenced),
			calls: lockCalls(fenced, never),
			force: func(ctx context.Context, c *redisson.Client, name string) (bool, error) {
				return c.FencedLock(name).ForceUnlock(ctx)
			}},
		{name: "read lock", family: "rwlock", holds: "a read-write lock", is: "a read-write lock", create: createLock(read),
			calls: lockCalls(read, func(existing string) bool { return existing == "read lock" }),
			force: func(ctx context.Context, c *redisson.Client, name string) (bool, error) {
				return c.ReadWriteLock(name).ReadLock().ForceUnlock(ctx)
			}},
		{name: "write lock", family: "rwlock", holds: "a read-write lock", is: "a read-write lock", create: createLock(write),
			calls: lockCalls(write, never),
			force: func(ctx context.Context, c *redisson.Client, name string) (bool, error) {
				return c.ReadWriteLock(name).WriteLock().ForceUnlock(ctx)
			}},
		{name: "group multi-lock", family: "group", holds: "a group multi-lock", is: "a group multi-lock", create: createLock(group),
			calls: lockCalls(groupA, never),
			force: func(ctx context.Context, c *redisson.Client, name string) (bool, error) {
				return c.MultiLockGroup(name, "a").ForceUnlock(ctx)
			}},
		{name: "rate limiter", family: "ratelimiter", holds: "a rate limiter", is: "a rate limiter",
			create: func(t *testing.T, c *redisson.Client, name string, _ int64) func() {
				ctx := context.Background()
				ok, err := c.RateLimiter(name).TrySetRate(ctx, ratelimit.Overall, 100, time.Minute)
				require.NoError(t, err)
				require.True(t, ok)
				// A grant, so that the window's value and grants keys exist too.
				ok, err = c.RateLimiter(name).TryAcquire(ctx, 1)
				require.NoError(t, err)
				require.True(t, ok)
				return func() {}
			},
			calls: []kindCall{
				{name: "TrySetRate", want: never, run: func(ctx context.Context, c *redisson.Client, name string, _ int64) (bool, func(), error) {
					ok, err := c.RateLimiter(name).TrySetRate(ctx, ratelimit.Overall, 10, time.Second)
					return ok, nil, err
				}},
				{name: "SetRate", want: always, run: func(ctx context.Context, c *redisson.Client, name string, _ int64) (bool, func(), error) {
					err := c.RateLimiter(name).SetRate(ctx, ratelimit.Overall, 10, time.Second)
					return err == nil, nil, err
				}},
				{name: "TryAcquire", want: always, run: func(ctx context.Context, c *redisson.Client, name string, _ int64) (bool, func(), error) {
					ok, err := c.RateLimiter(name).TryAcquire(ctx, 1)
					return ok, nil, err
				}},
				{name: "Acquire", waits: true, run: func(ctx context.Context, c *redisson.Client, name string, _ int64) (bool, func(), error) {
					err := c.RateLimiter(name).Acquire(ctx, 1)
					return err == nil, nil, err
				}},
				{name: "Config", want: always, run: func(ctx context.Context, c *redisson.Client, name string, _ int64) (bool, func(), error) {
					_, err := c.RateLimiter(name).Config(ctx)
					return err == nil, nil, err
				}},
			}},
	}
}

func always(string) bool { return true }

// foreignHash is a hash that no kind of ours made: every kind refuses it
// but the group multi-lock, which can tell only the other kinds' hashes
// from its own at no cost (see notForeign).
var foreignHash = objKind{name: "foreign hash", family: "hash", holds: "a hash of another kind",
	create: func(t *testing.T, c *redisson.Client, name string, _ int64) func() {
		require.NoError(t, c.Redis().HSet(context.Background(), name, "x", "1", "y", "2").Err())
		return func() {}
	}}

// notForeign reports whether a row is left out because the group
// multi-lock does not refuse a hash that no kind of ours made: telling it
// from its own would mean reading every field (docs/interop.md, deviation
// 13).
func notForeign(existing, asking objKind) bool {
	return existing.family == "hash" && asking.family == "group"
}

// kindBed is one server on which every row starts from an empty database
// with clients of its own, so that no key of another row expires, and no
// hold is renewed, while a row checks that nothing was written.
type kindBed struct {
	srv *redistest.Server
	raw *redis.Client
	n   int
}

func newKindBed(t *testing.T) *kindBed {
	srv := redistest.StartServer(t)
	return &kindBed{srv: srv, raw: redistest.Client(t, srv)}
}

// row empties the database and returns a fresh name and two clients.
func (b *kindBed) row(t *testing.T) (name string, a, other *redisson.Client) {
	t.Helper()
	require.NoError(t, b.raw.FlushAll(context.Background()).Err())
	b.n++
	return "kind" + strconv.Itoa(b.n), b.client(t), b.client(t)
}

// client returns a client whose waiting calls would back off half a
// minute or more before trying again: a refusal taken for a failure that
// may pass would then outlast requireRefused's deadline.
func (b *kindBed) client(t *testing.T) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, b.srv), redisson.WithRetry(redisson.RetryOptions{Delay: time.Minute}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// keyState is what a key holds, for comparing Redis before and after.
type keyState struct {
	typ   string
	value any // a hash as a map: a big hash's field order may change unwritten
	pttl  time.Duration
}

// redisState reads every key of the database but the clients'
// registration records.
func redisState(t *testing.T, rdb *redis.Client) map[string]keyState {
	t.Helper()
	ctx := context.Background()
	keys := redistest.Keys(t, rdb, "*")
	out := make(map[string]keyState, len(keys))
	for _, k := range keys {
		typ, err := rdb.Type(ctx, k).Result()
		require.NoError(t, err)
		var v any
		switch typ {
		case "hash":
			v, err = rdb.HGetAll(ctx, k).Result()
		case "set":
			var m []string
			m, err = rdb.SMembers(ctx, k).Result()
			slices.Sort(m)
			v = m
		default: // strings, lists and zsets dump in a fixed order
			v, err = rdb.Dump(ctx, k).Result()
		}
		require.NoError(t, err)
		pttl, err := rdb.PTTL(ctx, k).Result()
		require.NoError(t, err)
		out[k] = keyState{typ, v, pttl}
	}
	return out
}

// requireSameState fails unless after holds the keys, types and values of
// before, with TTLs that only ran on (the calls take milliseconds).
func requireSameState(t *testing.T, before, after map[string]keyState) {
	t.Helper()
	require.Len(t, after, len(before), "the keys: before %v, after %v", before, after)
	for k, b := range before {
		a, ok := after[k]
		require.True(t, ok, "key %s is gone", k)
		require.Equal(t, b.typ, a.typ, "type of %s", k)
		require.Equal(t, b.value, a.value, "value of %s", k)
		if b.pttl < 0 {
			require.Equal(t, b.pttl, a.pttl, "TTL of %s", k)
		} else {
			require.InDelta(t, b.pttl.Seconds(), a.pttl.Seconds(), 2, "TTL of %s", k)
			require.LessOrEqual(t, a.pttl, b.pttl, "TTL of %s was not renewed", k)
		}
	}
}

// requireRefused runs call and checks the refusal: ErrWrongType, a message
// naming the object and what the key holds, no write, nothing published.
func (b *kindBed) requireRefused(t *testing.T, name, want string, call func(context.Context) (bool, error)) {
	t.Helper()
	before := redisState(t, b.raw)
	msgs := redistest.Capture(t, b.raw)
	// A waiting call must end at once: one that waited, or backed off to
	// try again (see client), would end with this deadline's error
	// instead.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var ok bool
	var err error
	// Redis' count of changes (any write, a PEXPIRE included; a write that
	// changes nothing, like ZREM of a member that is not there, does not
	// count), less the clients' registration writes.
	changes := redistest.Changes(t, b.srv, b.raw, func() { ok, err = call(ctx) })
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.False(t, ok)
	require.ErrorContains(t, err, want)
	require.ErrorContains(t, err, strconv.Quote(name), "the error names the object")
	require.NoError(t, ctx.Err(), "refused at once, not after waiting")
	require.Zero(t, changes, "nothing written")
	requireSameState(t, before, redisState(t, b.raw))
	require.Empty(t, msgs.Drain(t), "nothing published")
}

// TestOneNameOneKind: every (existing kind, acquiring kind) pair. Across
// families the acquire or set-up call is refused, whoever asks; within
// the lock family (and within a kind) it behaves as before.
func TestOneNameOneKind(t *testing.T) {
	bed := newKindBed(t)
	kinds := objKinds()
	for _, existing := range append(kinds, foreignHash) {
		for _, asking := range kinds {
			for _, call := range asking.calls {
				refused := existing.family != asking.family
				if !refused && call.waits || notForeign(existing, asking) {
					continue // it would wait for the holder
				}
				t.Run(fmt.Sprintf("%s/%s %s", existing.name, asking.name, call.name), func(t *testing.T) {
					name, a, b := bed.row(t)
					t.Cleanup(existing.create(t, a, name, 0))
					if refused {
						bed.requireRefused(t, name, "key holds "+existing.holds+", not "+asking.is, func(ctx context.Context) (bool, error) {
							ok, release, err := call.run(ctx, b, name, 0)
							if release != nil {
								release()
							}
							return ok, err
						})
						return
					}
					ok, release, err := call.run(context.Background(), b, name, 0)
					require.NoError(t, err)
					require.Equal(t, call.want(existing.name), ok)
					if release != nil {
						release()
					}
				})
			}
		}
	}
}

// TestOneNameOneKindSameOwner: the owner of a read hold and of a lock hold
// has the very same hash field, "<client id>:<owner>": a lock kind would
// re-enter a read hold and a reader would count itself into a lock's
// hash. Both are refused. Within the lock family the same owner re-enters,
// as in Redisson.
func TestOneNameOneKindSameOwner(t *testing.T) {
	bed := newKindBed(t)
	kinds := map[string]objKind{}
	for _, k := range objKinds() {
		kinds[k.name] = k
	}
	tryLock := func(k objKind) kindCall { return k.calls[0] }
	for _, tc := range []struct{ existing, asking string }{
		{"read lock", "lock"}, {"read lock", "fair lock"}, {"read lock", "fenced lock"},
		{"lock", "read lock"}, {"fair lock", "read lock"}, {"fenced lock", "read lock"},
		{"lock", "write lock"},
	} {
		t.Run(tc.existing+"/"+tc.asking, func(t *testing.T) {
			name, a, _ := bed.row(t)
			owner := redisson.NewOwnerID()
			existing, asking := kinds[tc.existing], kinds[tc.asking]
			t.Cleanup(existing.create(t, a, name, owner))
			bed.requireRefused(t, name, "key holds "+existing.holds+", not "+asking.is, func(ctx context.Context) (bool, error) {
				ok, release, err := tryLock(asking).run(ctx, a, name, owner)
				if release != nil {
					release()
				}
				return ok, err
			})
		})
	}
	for _, tc := range []struct{ existing, asking string }{
		{"lock", "fair lock"}, {"fair lock", "lock"}, {"lock", "fenced lock"}, {"fenced lock", "lock"},
	} {
		t.Run(tc.existing+"/"+tc.asking+" re-enters", func(t *testing.T) {
			name, a, _ := bed.row(t)
			owner := redisson.NewOwnerID()
			release := kinds[tc.existing].create(t, a, name, owner)
			ok, again, err := tryLock(kinds[tc.asking]).run(context.Background(), a, name, owner)
			require.NoError(t, err)
			require.True(t, ok)
			field := a.ID() + ":" + strconv.FormatInt(owner, 10)
			require.Equal(t, map[string]string{field: "2"}, bed.raw.HGetAll(context.Background(), name).Val())
			again()
			release()
			require.Zero(t, bed.raw.Exists(context.Background(), name).Val())
		})
	}
}

// TestForceUnlockOneKind: ForceUnlock deletes only its own family's hash:
// another kind's is left as it was (Redisson's DEL, or its read-write
// lock's "not in that mode", would not tell).
func TestForceUnlockOneKind(t *testing.T) {
	bed := newKindBed(t)
	kinds := objKinds()
	// want is ForceUnlock's answer within a family.
	want := map[[2]string]bool{
		{"read lock", "read lock"}: true, {"read lock", "write lock"}: false,
		{"write lock", "write lock"}: true, {"write lock", "read lock"}: false,
		{"group multi-lock", "group multi-lock"}: true,
	}
	for _, existing := range append(kinds, foreignHash) {
		for _, forcing := range kinds {
			if forcing.force == nil || notForeign(existing, forcing) {
				continue
			}
			t.Run(existing.name+"/"+forcing.name, func(t *testing.T) {
				name, a, b := bed.row(t)
				t.Cleanup(existing.create(t, a, name, 0))
				if existing.family != forcing.family {
					bed.requireRefused(t, name, "key holds "+existing.holds+", not "+forcing.is, func(ctx context.Context) (bool, error) {
						return forcing.force(ctx, b, name)
					})
					return
				}
				deleted, err := forcing.force(context.Background(), b, name)
				require.NoError(t, err)
				w, ok := want[[2]string{existing.name, forcing.name}]
				if !ok {
					w = true // the lock family: one hash layout
				}
				require.Equal(t, w, deleted)
				if existing.family != "group" {
					require.Equal(t, !w, bed.raw.Exists(context.Background(), name).Val() == 1)
				}
			})
		}
	}
}

// TestWrongKindErrorShape: the refusal is an error of its own wrapping
// ErrWrongType, not a Redis error reply: it reaches the caller as a cause
// that errors.Is recognises, without the script's internals.
func TestWrongKindErrorShape(t *testing.T) {
	bed := newKindBed(t)
	name, a, b := bed.row(t)
	_, err := a.ReadWriteLock(name).ReadLock().Lock(context.Background(), locks.WithLease(kindLease))
	require.NoError(t, err)
	_, _, err = b.Lock(name).TryLock(context.Background())
	require.ErrorIs(t, err, redisson.ErrWrongType)
	var re redis.Error
	require.False(t, errors.As(err, &re), "no Redis error reply leaks: %v", err)
	require.NotContains(t, err.Error(), "WRONGKIND")
	require.NotContains(t, err.Error(), "script")
	require.Contains(t, err.Error(), "key holds a read-write lock, not a lock")
}

// TestRateLimiterDeleteOneKind: a rate limiter's Delete leaves another
// kind's hash alone (Redisson's is a plain DEL, which would delete a lock
// held under the same name), and deletes its own keys.
func TestRateLimiterDeleteOneKind(t *testing.T) {
	bed := newKindBed(t)
	for _, existing := range append(objKinds(), foreignHash) {
		if existing.family == "ratelimiter" {
			continue
		}
		t.Run(existing.name, func(t *testing.T) {
			name, a, b := bed.row(t)
			t.Cleanup(existing.create(t, a, name, 0))
			bed.requireRefused(t, name, "key holds "+existing.holds+", not a rate limiter", func(ctx context.Context) (bool, error) {
				return b.RateLimiter(name).Delete(ctx)
			})
		})
	}
	t.Run("its own", func(t *testing.T) {
		name, _, b := bed.row(t)
		ctx := context.Background()
		l := b.RateLimiter(name)
		_, err := l.TrySetRate(ctx, ratelimit.Overall, 2, time.Second)
		require.NoError(t, err)
		ok, err := l.TryAcquire(ctx, 1)
		require.NoError(t, err)
		require.True(t, ok)
		deleted, err := l.Delete(ctx)
		require.NoError(t, err)
		require.True(t, deleted)
		require.Empty(t, redisState(t, bed.raw), "every key of the limiter is gone")
	})
}

// TestFencedDeleteOneKind: a fenced lock's Delete leaves another kind's
// hash and a key of another type alone, and deletes its own lock.
func TestFencedDeleteOneKind(t *testing.T) {
	bed := newKindBed(t)
	for _, existing := range append(objKinds(), foreignHash) {
		if existing.family == "lock" {
			continue
		}
		t.Run(existing.name, func(t *testing.T) {
			name, a, b := bed.row(t)
			t.Cleanup(existing.create(t, a, name, 0))
			bed.requireRefused(t, name, "key holds "+existing.holds+", not a fenced lock", func(ctx context.Context) (bool, error) {
				return b.FencedLock(name).Delete(ctx)
			})
		})
	}
	t.Run("a string", func(t *testing.T) {
		name, _, b := bed.row(t)
		require.NoError(t, bed.raw.Set(context.Background(), name, "7", 0).Err())
		bed.requireRefused(t, name, name+" holds a string, not a hash", func(ctx context.Context) (bool, error) {
			return b.FencedLock(name).Delete(ctx)
		})
	})
	t.Run("its own", func(t *testing.T) {
		name, _, b := bed.row(t)
		ctx := context.Background()
		h, err := b.FencedLock(name).Lock(ctx)
		require.NoError(t, err)
		deleted, err := b.FencedLock(name).Delete(ctx)
		require.NoError(t, err)
		require.True(t, deleted)
		<-h.Done()
		require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
		require.Empty(t, redisState(t, bed.raw), "the lock and its token counter are gone")
	})
}
