package redisson_test

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/bloom"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
	"github.com/goredisson/redisson/semaphore"
)

// errorCase is one way a caller meets a sentinel: make returns the error,
// which must match every sentinel in is and read exactly want.
type errorCase struct {
	name string
	is   []error
	want string
	make func(t *testing.T, e *errorEnv) error
}

// errorEnv is what the cases share: a client on a server of their own and a
// raw go-redis client to put things in the way.
type errorEnv struct {
	ctx context.Context
	c   *redisson.Client
	raw *redis.Client
}

// sentinels names every exported sentinel of the public packages, so that a
// new one cannot be added without a case here (TestEveryErrorNamesItsObject
// reads the sources to check the list is whole).
var sentinels = map[string]error{
	"redisson.ErrNotOwner":            redisson.ErrNotOwner,
	"redisson.ErrLockLost":            redisson.ErrLockLost,
	"redisson.ErrLeaseExpired":        redisson.ErrLeaseExpired,
	"redisson.ErrClosed":              redisson.ErrClosed,
	"redisson.ErrInvalidName":         redisson.ErrInvalidName,
	"redisson.ErrInvalidArgument":     redisson.ErrInvalidArgument,
	"redisson.ErrWrongType":           redisson.ErrWrongType,
	"redisson.ErrNoSyncedReplicas":    redisson.ErrNoSyncedReplicas,
	"redisson.ErrUpgrade":             redisson.ErrUpgrade,
	"redisson.ErrSubscriptionTimeout": redisson.ErrSubscriptionTimeout,
	"redisson.ErrNoPermission":        redisson.ErrNoPermission,
	"redisson.ErrReleaseRefused":      redisson.ErrReleaseRefused,
	"semaphore.ErrUnknownPermit":      semaphore.ErrUnknownPermit,
	"ratelimit.ErrNotInitialized":     ratelimit.ErrNotInitialized,
	"ratelimit.ErrExceedsRate":        ratelimit.ErrExceedsRate,
	"codec.ErrEncode":                 codec.ErrEncode,
	"codec.ErrDecode":                 codec.ErrDecode,
	"codec.ErrWrongClass":             codec.ErrWrongClass,
	"codec.ErrUnsupportedType":        codec.ErrUnsupportedType,
	"pubsub.ErrSubscriberGone":        pubsub.ErrSubscriberGone,
	"redisson.ErrNonReentrant":        redisson.ErrNonReentrant,
	"bloom.ErrNotInitialized":         bloom.ErrNotInitialized,
	"bloom.ErrConfigChanged":          bloom.ErrConfigChanged,
}

func errorCases() []errorCase {
	lockThen := func(name string, then func(e *errorEnv, h *rlock.Hold) error) func(*testing.T, *errorEnv) error {
		return func(t *testing.T, e *errorEnv) error {
			h, err := e.c.Lock(name).Lock(e.ctx)
			require.NoError(t, err)
			return then(e, h)
		}
	}
	forceUnlocked := func(e *errorEnv, h *rlock.Hold) {
		_, _ = e.c.Lock(h.Name()).ForceUnlock(e.ctx)
		<-h.Done()
	}
	return []errorCase{
		{"a non-reentrant lock taken again by its owner", []error{redisson.ErrNonReentrant}, `non-reentrant lock "nr": lock: the owner already holds this non-reentrant lock: owner field <client id>:1 holds it or is acquiring it in this client`,
			func(t *testing.T, e *errorEnv) error {
				nr := e.c.NonReentrantLock("nr")
				_, err := nr.Lock(e.ctx, rlock.WithOwner(1))
				require.NoError(t, err)
				_, err = nr.Lock(e.ctx, rlock.WithOwner(1))
				return clientIDHidden{err, e.c.ID()}
			}},
		{"a Bloom filter never initialised", []error{bloom.ErrNotInitialized}, `bloom filter "bf": add: redisson: bloom filter is not initialized`,
			func(t *testing.T, e *errorEnv) error {
				_, err := redisson.NewBloomFilter[string](e.c, "bf", codec.String()).Add(e.ctx, "x")
				return err
			}},
		{"a Bloom filter whose config another handle set", []error{bloom.ErrConfigChanged}, `bloom filter "bfc": add: redisson: bloom filter config has been changed`,
			func(t *testing.T, e *errorEnv) error {
				first := redisson.NewBloomFilter[string](e.c, "bfc", codec.String())
				_, err := first.TryInit(e.ctx, 100, 0.01)
				require.NoError(t, err)
				second := redisson.NewBloomFilter[string](e.c, "bfc", codec.String())
				ok, err := second.TryInit(e.ctx, 1000, 0.03)
				require.NoError(t, err)
				require.False(t, ok)
				_, err = second.Add(e.ctx, "x")
				return err
			}},
		{"empty lock name", []error{redisson.ErrInvalidName}, `lock "": lock: invalid name: the name must not be empty`,
			func(t *testing.T, e *errorEnv) error { _, err := e.c.Lock("").Lock(e.ctx); return err }},
		{"empty bucket name", []error{redisson.ErrInvalidName}, `bucket "": get: invalid name: the name must not be empty`,
			func(t *testing.T, e *errorEnv) error {
				_, _, err := redisson.NewBucket[string](e.c, "", codec.String()).Get(e.ctx)
				return err
			}},
		{"zero lease", []error{redisson.ErrInvalidArgument}, `lock "l": try lock: invalid argument: the lease must be at least 1ms, got 0s (leave WithLease out for the watchdog)`,
			func(t *testing.T, e *errorEnv) error {
				_, _, err := e.c.Lock("l").TryLock(e.ctx, rlock.WithLease(0))
				return err
			}},
		{"negative permits", []error{redisson.ErrInvalidArgument}, `semaphore "s": try acquire: invalid argument: permits must not be negative, got -1`,
			func(t *testing.T, e *errorEnv) error {
				_, _, err := e.c.Semaphore("s").TryAcquirePermits(e.ctx, -1)
				return err
			}},
		{"bucket TTL", []error{redisson.ErrInvalidArgument}, `bucket "b": set with TTL: invalid argument: the TTL must be at least 1ms, got 0s`,
			func(t *testing.T, e *errorEnv) error {
				return redisson.NewBucket[string](e.c, "b", codec.String()).SetTTL(e.ctx, "v", 0)
			}},
		{"second unlock", []error{redisson.ErrNotOwner}, `lock "l2": unlock: this hold was already released`,
			lockThen("l2", func(e *errorEnv, h *rlock.Hold) error {
				if err := h.Unlock(e.ctx); err != nil {
					return err
				}
				return h.Unlock(e.ctx)
			})},
		{"permits released twice", []error{redisson.ErrNotOwner}, `semaphore "s2": release permits: these 2 permits were already released`,
			func(t *testing.T, e *errorEnv) error {
				s := e.c.Semaphore("s2")
				_, err := s.TrySetPermits(e.ctx, 3)
				require.NoError(t, err)
				p, err := s.AcquirePermits(e.ctx, 2)
				require.NoError(t, err)
				require.NoError(t, p.Release(e.ctx))
				return p.Release(e.ctx)
			}},
		{"unknown permit", []error{semaphore.ErrUnknownPermit, redisson.ErrNotOwner},
			`permit-expirable semaphore "e": release: permit 0123456789abcdef0123456789abcdef: it was released, it expired or it never existed`,
			func(t *testing.T, e *errorEnv) error {
				return e.c.PermitExpirableSemaphore("e").Release(e.ctx, "0123456789abcdef0123456789abcdef")
			}},
		{"lost hold", []error{redisson.ErrLockLost}, `lock "l3": ownership lost: force-unlocked`,
			lockThen("l3", func(e *errorEnv, h *rlock.Hold) error { forceUnlocked(e, h); return h.Err() })},
		{"unlock of a lost hold", []error{redisson.ErrLockLost}, `lock "l4": unlock: ownership lost: force-unlocked`,
			lockThen("l4", func(e *errorEnv, h *rlock.Hold) error { forceUnlocked(e, h); return h.Unlock(e.ctx) })},
		{"expired fixed lease", []error{redisson.ErrLeaseExpired}, `lock "l5": lease expired (a fixed lease, not renewed)`,
			func(t *testing.T, e *errorEnv) error {
				h, _, err := e.c.Lock("l5").TryLock(e.ctx, rlock.WithLease(50*time.Millisecond))
				require.NoError(t, err)
				<-h.Done()
				return h.Err()
			}},
		{"unlock of an expired hold", []error{redisson.ErrLeaseExpired}, `lock "l6": unlock: lease expired (a fixed lease, not renewed)`,
			func(t *testing.T, e *errorEnv) error {
				h, _, err := e.c.Lock("l6").TryLock(e.ctx, rlock.WithLease(50*time.Millisecond))
				require.NoError(t, err)
				<-h.Done()
				return h.Unlock(e.ctx)
			}},
		{"closed client", []error{redisson.ErrClosed}, `lock "l": lock: client is closed`,
			func(t *testing.T, e *errorEnv) error {
				c, err := redisson.New(e.raw)
				require.NoError(t, err)
				require.NoError(t, c.Close())
				_, err = c.Lock("l").Lock(e.ctx)
				return err
			}},
		{"closed client, atomic long", []error{redisson.ErrClosed}, `atomic long "a": get: client is closed`,
			func(t *testing.T, e *errorEnv) error {
				c, err := redisson.New(e.raw)
				require.NoError(t, err)
				require.NoError(t, c.Close())
				_, err = c.AtomicLong("a").Get(e.ctx)
				return err
			}},
		{"lock on a string", []error{redisson.ErrWrongType}, `lock "str": lock: wrong type: the key holds a string, not a hash`,
			func(t *testing.T, e *errorEnv) error {
				require.NoError(t, e.raw.Set(e.ctx, "str", "x", 0).Err())
				_, err := e.c.Lock("str").Lock(e.ctx)
				return err
			}},
		{"atomic long on text", []error{redisson.ErrWrongType}, `atomic long "text": get: wrong type: the key holds the string "x", not a long`,
			func(t *testing.T, e *errorEnv) error {
				require.NoError(t, e.raw.Set(e.ctx, "text", "x", 0).Err())
				_, err := e.c.AtomicLong("text").Get(e.ctx)
				return err
			}},
		{"bucket on a hash", []error{redisson.ErrWrongType}, `bucket "h": get: wrong type: the key holds a hash, not a string`,
			func(t *testing.T, e *errorEnv) error {
				require.NoError(t, e.raw.HSet(e.ctx, "h", "f", "v").Err())
				_, _, err := redisson.NewBucket[string](e.c, "h", codec.String()).Get(e.ctx)
				return err
			}},
		{"upgrade", []error{redisson.ErrUpgrade}, `write lock "rw": lock: a read holder cannot take the write lock (no upgrade): owner 7 holds the read lock`,
			func(t *testing.T, e *errorEnv) error {
				rw := e.c.ReadWriteLock("rw")
				_, err := rw.ReadLock().Lock(e.ctx, rwlock.WithOwner(7))
				require.NoError(t, err)
				_, err = rw.WriteLock().Lock(e.ctx, rwlock.WithOwner(7))
				return err
			}},
		{"rate not set", []error{ratelimit.ErrNotInitialized}, `rate limiter "rl": try acquire: no rate is set (TrySetRate or SetRate sets one)`,
			func(t *testing.T, e *errorEnv) error {
				_, err := e.c.RateLimiter("rl").TryAcquire(e.ctx, 1)
				return err
			}},
		{"more than the rate", []error{ratelimit.ErrExceedsRate, redisson.ErrInvalidArgument},
			`rate limiter "rl2": try acquire: invalid argument: requested permits exceed the rate`,
			func(t *testing.T, e *errorEnv) error {
				l := e.c.RateLimiter("rl2")
				_, err := l.TrySetRate(e.ctx, ratelimit.Overall, 2, time.Second)
				require.NoError(t, err)
				_, err = l.TryAcquire(e.ctx, 3)
				return err
			}},
		{"reliable subscriber gone", []error{pubsub.ErrSubscriberGone},
			`reliable topic "rt": receive: subscriber registration expired or removed`,
			func(t *testing.T, e *errorEnv) error {
				sub, err := redisson.NewReliableTopic[string](e.c, "rt", codec.String()).
					Subscribe(e.ctx, pubsub.WithWatchdogTimeout(300*time.Millisecond))
				require.NoError(t, err)
				defer sub.Close()
				require.NoError(t, e.raw.ZRem(e.ctx, "{rt}:timeout", sub.ID()).Err())
				select {
				case _, open := <-sub.Messages():
					require.False(t, open, "a message nobody published")
				case <-time.After(10 * time.Second):
					t.Fatal("the subscription did not end")
				}
				return sub.Err()
			}},
		{"unsupported type", []error{codec.ErrEncode, codec.ErrUnsupportedType},
			`bucket "f": set: codec JsonJackson: cannot encode: unsupported Go type func(): Java has no counterpart`,
			func(t *testing.T, e *errorEnv) error {
				return redisson.NewBucket[func()](e.c, "f", codec.JsonJackson(nil)).Set(e.ctx, func() {})
			}},
		{"bytes the codec cannot read", []error{codec.ErrDecode},
			`bucket "bad": get: codec JsonJackson: cannot decode: invalid character 'x' looking for beginning of value`,
			func(t *testing.T, e *errorEnv) error {
				require.NoError(t, e.raw.Set(e.ctx, "bad", "x", 0).Err())
				_, _, err := redisson.NewBucket[int](e.c, "bad", codec.JsonJackson(nil)).Get(e.ctx)
				return err
			}},
		{"another Java class", []error{codec.ErrDecode, codec.ErrWrongClass},
			`bucket "cls": get: codec JsonJackson: cannot decode: wrong Java class: "@class" is "com.example.Other", want "com.example.Point" for Go type redisson_test.point`,
			func(t *testing.T, e *errorEnv) error {
				types := codec.NewTypes()
				require.NoError(t, types.Register("com.example.Point", point{}))
				require.NoError(t, e.raw.Set(e.ctx, "cls", `{"@class":"com.example.Other","x":1}`, 0).Err())
				_, _, err := redisson.NewBucket[point](e.c, "cls", codec.JsonJackson(types)).Get(e.ctx)
				return err
			}},
	}
}

// clientIDHidden shows err with the client's random id written as
// "<client id>", so that a case can name the text it expects.
type clientIDHidden struct {
	err error
	id  string
}

func (c clientIDHidden) Error() string { return strings.ReplaceAll(c.err.Error(), c.id, "<client id>") }
func (c clientIDHidden) Unwrap() error { return c.err }

type point struct {
	X int `json:"x"`
}

// TestEveryErrorNamesItsObject: every sentinel of the public packages is
// met through an object, and the error reads `<kind> "<name>": <op>:
// <cause>` with the name once and words that fit the object.
func TestEveryErrorNamesItsObject(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	e := &errorEnv{ctx: context.Background(), c: c, raw: raw}

	met := map[error]bool{}
	for _, tc := range errorCases() {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.make(t, e)
			require.Error(t, err)
			for _, s := range tc.is {
				require.ErrorIs(t, err, s)
				met[s] = true
			}
			require.EqualError(t, err, tc.want)
			require.Equal(t, 1, strings.Count(err.Error(), `"`+nameOf(tc.want)+`"`), "the name once")
		})
	}
	met[redisson.ErrNoSyncedReplicas] = true    // TestErrNoSyncedReplicasNamesItsObject
	met[redisson.ErrSubscriptionTimeout] = true // TestErrSubscriptionTimeoutNamesItsObject
	met[redisson.ErrNoPermission] = true        // TestUnlockRefusedByACL
	met[redisson.ErrReleaseRefused] = true      // TestUnlockRefusedByOOM
	for name, s := range sentinels {
		require.True(t, met[s], "no case meets %s", name)
	}
	require.ElementsMatch(t, exportedSentinels(t), mapKeys(sentinels), "the sentinels of the public packages")
}

// TestErrNoSyncedReplicasNamesItsObject: a try whose write no replica
// acknowledged (the replica is stopped) is undone and says so.
func TestErrNoSyncedReplicasNamesItsObject(t *testing.T) {
	master := redistest.StartServer(t)
	replica := redistest.StartReplica(t, master)
	c, err := redisson.New(redistest.Client(t, master))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	rraw := redistest.Client(t, replica)
	pid, err := strconv.Atoi(redistest.ParseInfo(rraw.Info(ctx, "server").Val())["process_id"])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })

	_, _, err = c.Lock("unsynced").TryLock(ctx)
	require.ErrorIs(t, err, redisson.ErrNoSyncedReplicas)
	require.EqualError(t, err, `lock "unsynced": try lock: no replica acknowledged the write within 1s (1 replica connected)`)
}

// TestErrSubscriptionTimeoutNamesItsObject: a latch waiter whose
// subscription Redis does not confirm within the 7.5 s bound (its SUBSCRIBE
// is held back on the way to a real server, as a stalled network would)
// fails naming the latch.
func TestErrSubscriptionTimeoutNamesItsObject(t *testing.T) {
	t.Parallel()
	srv := redistest.StartServer(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	stall := make(chan struct{})
	rdb.AddHook(stallSubscribes{stall})
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	t.Cleanup(func() { close(stall) }) // first: Close waits for the held-back write
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l := c.CountDownLatch("gate")
	_, err = l.TrySetCount(ctx, 1)
	require.NoError(t, err)

	_, err = l.Await(ctx, latch.WithTimeout(9*time.Second)) // past one 7.5 s bound
	require.ErrorIs(t, err, redisson.ErrSubscriptionTimeout)
	require.True(t, strings.HasPrefix(err.Error(), `latch "gate": await: subscription not confirmed in time`), err.Error())
	require.Equal(t, 1, strings.Count(err.Error(), `"gate"`), err.Error())
}

// stallSubscribes holds back every write that carries a SUBSCRIBE until
// stall is closed; everything else passes.
type stallSubscribes struct{ stall chan struct{} }

func (s stallSubscribes) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &stallConn{Conn: conn, stall: s.stall}, nil
	}
}

func (stallSubscribes) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (stallSubscribes) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

type stallConn struct {
	net.Conn
	stall chan struct{}
}

func (c *stallConn) Write(b []byte) (int, error) {
	if bytes.Contains(bytes.ToLower(b), []byte("subscribe")) {
		<-c.stall
	}
	return c.Conn.Write(b)
}

// nameOf returns the quoted name an error text starts with.
func nameOf(msg string) string {
	i := strings.IndexByte(msg, '"')
	j := strings.IndexByte(msg[i+1:], '"')
	return msg[i+1 : i+1+j]
}

func mapKeys(m map[string]error) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// exportedSentinels lists the exported Err* variables declared in the
// public packages' sources, as "<package>.<name>".
func exportedSentinels(t *testing.T) []string {
	var out []string
	dirs := []string{"."}
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "internal" && e.Name() != "bench" &&
			e.Name() != "integration" && e.Name() != "cmd" && e.Name() != "docs" && e.Name() != "scripts" {
			dirs = append(dirs, e.Name())
		}
	}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			require.NoError(t, err)
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
							pkg := file.Name.Name
							out = append(out, pkg+"."+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}
