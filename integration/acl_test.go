package integration

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

// logRecords is a slog.Handler that keeps the records at Warn and above.
type logRecords struct {
	mu   *sync.Mutex
	recs *[]string
}

func newLogRecords() logRecords { return logRecords{mu: new(sync.Mutex), recs: new([]string)} }

func (l logRecords) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelWarn }
func (l logRecords) WithAttrs([]slog.Attr) slog.Handler            { return l }
func (l logRecords) WithGroup(string) slog.Handler                 { return l }
func (l logRecords) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	*l.recs = append(*l.recs, b.String())
	l.mu.Unlock()
	return nil
}

// all returns the records kept so far.
func (l logRecords) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), *l.recs...)
}

// matching returns the records that contain s.
func (l logRecords) matching(s string) []string {
	var out []string
	for _, r := range l.all() {
		if strings.Contains(r, s) {
			out = append(out, r)
		}
	}
	return out
}

// aclUser creates the ACL user name with password "pw" and rules, and
// returns a go-redis client of it.
func aclUser(t *testing.T, srv *redistest.Server, admin *redis.Client, name, rules string) *redis.Client {
	t.Helper()
	args := []any{"ACL", "SETUSER", name, "reset", "on", ">pw"}
	for _, r := range strings.Fields(rules) {
		args = append(args, r)
	}
	require.NoError(t, admin.Do(t.Context(), args...).Err(), "ACL SETUSER %s %s", name, rules)
	return redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = name, "pw" })
}

// TestACLRefusalsLogOnce: a client whose ACL refuses the registration
// record's key and INFO (-@dangerous) works, and says so once each, naming
// what the ACL must allow, instead of a warning per refresh or per lock
// call; a success in between (the rights granted, then taken back) earns
// one more warning.
func TestACLRefusalsLogOnce(t *testing.T) {
	srv := redistest.StartServer(t)
	redistest.StartReplica(t, srv) // lock writes read the replica count
	admin := redistest.Client(t, srv)
	ctx := t.Context()
	const noRecord = "~app:* ~redisson_*{app:* &redisson_*{app:* +@all -@dangerous"
	rdb := aclUser(t, srv, admin, "app", noRecord)
	logs := newLogRecords()
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(3*time.Second), redisson.WithLogger(slog.New(logs)))
	require.NoError(t, err)
	defer c.Close()

	// Lock calls for 3 s: a record refresh every second, a replica-count
	// read due every few seconds.
	lockFor := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			h, err := c.Lock("app:lock").Lock(ctx)
			require.NoError(t, err)
			require.NoError(t, h.Unlock(ctx))
			time.Sleep(20 * time.Millisecond)
		}
	}
	lockFor(3 * time.Second)
	redistest.Eventually(t, 30*time.Second, "the refusals logged", func() bool {
		return len(logs.matching("registration record")) > 0 && len(logs.matching("replica count")) > 0
	})
	lockFor(3 * time.Second)
	reg, info := logs.matching("registration record"), logs.matching("replica count")
	require.Equal(t, 1, len(reg), "registration warnings in 6 s of lock calls; the first: %q", reg)
	require.Equal(t, 1, len(info), "replica-count warnings in 6 s of lock calls; the first: %q", first(info))
	require.Contains(t, reg[0], "~redisson-go:client:*", "the warning names the key pattern the ACL must allow")
	require.Contains(t, reg[0], "NOPERM")
	require.Contains(t, info[0], "+info", "the warning names the command the ACL must allow")

	// Granted, then refused again: one more warning each.
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "~redisson-go:client:*", "+info").Err())
	redistest.Eventually(t, 30*time.Second, "the record written once allowed", func() bool {
		return admin.Exists(ctx, "redisson-go:client:"+c.ID()).Val() == 1
	})
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "resetkeys", "~app:*", "~redisson_*{app:*", "-info").Err())
	redistest.Eventually(t, 30*time.Second, "the refusal logged again", func() bool {
		return len(logs.matching("registration record")) == 2
	})
	lockFor(3 * time.Second)
	require.Len(t, logs.matching("registration record"), 2, "%q", logs.matching("registration record"))
}

// first returns the first of ss, "" when there is none.
func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

// The ACL rules of docs/acl.md, word for word: each use's least-privilege
// user for objects named app:*. TestLeastPrivilegeACL runs every object of
// the use as that user.
const (
	// aclCommon is what every client needs: its scripts, the pub/sub
	// connection's heartbeat, the replica sync and the registration record.
	aclCommon = "+evalsha +eval +script|load +ping +echo +wait +info " +
		"~redisson-go:client:* +set +del"
	aclLocks = "resetkeys resetchannels -@all " + aclCommon + " " +
		"~app:* ~{app:* ~redisson_lock__channel:{app:* ~redisson_unlock_latch:{app:* " +
		"~redisson_lock_queue:{app:* ~redisson_lock_timeout:{app:* ~redisson_rwlock:{app:* " +
		"~redisson_lock_token:{app:* " +
		"&redisson_lock__channel:{app:* &redisson_rwlock:{app:* " +
		"+subscribe +unsubscribe +publish " +
		"+get +exists +type +pttl +pexpire +incr " +
		"+hget +hset +hdel +hlen +hexists +hincrby +hkeys +hmget " +
		"+lindex +lpop +lrange +lrem +rpush +zadd +zincrby +zrange +zrem +zscore"
	aclTopics = "resetkeys resetchannels -@all " + aclCommon + " " +
		"~app:* ~{app:* &app:* &app:ev* " +
		"+subscribe +unsubscribe +psubscribe +punsubscribe +publish +pubsub|numsub " +
		"+xadd +xgroup|create +xgroup|destroy +xinfo|groups +xpending +xrange +xtrim +xlen " +
		"+xreadgroup +xack +zadd +zrangebyscore +zrem +zscore"
	aclEverything = "resetkeys resetchannels -@all " +
		"~app:* ~{app:* ~redisson_*{app:* ~redisson-go:client:* &app:* &app:ev* &redisson_*{app:* " +
		"+@read +@write +@pubsub -@dangerous " +
		"+evalsha +eval +script|load +ping +echo +wait +info +client|id +client|unblock"
)

// TestLeastPrivilegeACL: a user with exactly one of docs/acl.md's lines runs
// every object of its use (acquire, contend, wake-up by message, renew,
// release; publish and receive; a blocking take), on a master alone (lock
// calls then run on connections of their own, claimed with ECHO) and on a
// master with a replica (lock writes read the replica count and send
// WAIT). Redis refuses nothing (ACL LOG stays empty), the library warns of
// no refusal (registration record, replica count, heartbeat), and the
// client's registration record is there.
func TestLeastPrivilegeACL(t *testing.T) {
	everything := append(append(append(append(append([]objectOp{}, lockOps...), syncOps...), valueOps...), queueOps...), topicOps...)
	for _, replica := range []bool{false, true} {
		t.Run(fmt.Sprintf("replica=%v", replica), func(t *testing.T) {
			srv := redistest.StartServer(t)
			if replica {
				redistest.StartReplica(t, srv)
			}
			admin := redistest.Client(t, srv)
			for _, row := range []struct {
				use   string
				rules string
				ops   []objectOp
			}{
				{"locks", aclLocks, lockOps},
				{"topics", aclTopics, topicOps},
				{"everything", aclEverything, everything},
			} {
				t.Run(row.use, func(t *testing.T) { leastPrivilege(t, srv, admin, "app-"+row.use, row.rules, row.ops) })
			}
		})
	}
}

// leastPrivilege runs ops as a new ACL user with rules.
func leastPrivilege(t *testing.T, srv *redistest.Server, admin *redis.Client, user, rules string, ops []objectOp) {
	ctx := t.Context()
	require.NoError(t, admin.Do(ctx, "ACL", "LOG", "RESET").Err())
	logs := newLogRecords()
	client := func() *redisson.Client {
		c, err := redisson.New(aclUser(t, srv, admin, user, rules),
			redisson.WithWatchdogTimeout(3*time.Second), redisson.WithLogger(slog.New(logs)))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	e := opEnv{a: client(), b: client(), admin: admin}
	for _, op := range ops {
		t.Run(op.object, func(t *testing.T) { op.run(t, ctx, e) })
	}
	redistest.Eventually(t, 30*time.Second, "the registration record", func() bool {
		return admin.Exists(ctx, "redisson-go:client:"+e.a.ID()).Val() == 1
	})
	denied, err := admin.Do(ctx, "ACL", "LOG").Slice()
	require.NoError(t, err)
	require.Empty(t, denied, "Redis refused commands, keys or channels to %s", user)
	// Warnings of other causes (a first renewal's NOSCRIPT on a fresh
	// server) are not the ACL's.
	require.Empty(t, logs.matching("NOPERM"), "warnings of refusals")
}

// TestACLLockChannelIsAKey: docs/acl.md's warning. A user whose key
// patterns cover the lock's name but not its channel (~app:* &app:*, a
// common first try) acquires the lock, since the acquire script's only key
// is the lock, and is refused the unlock with NOPERM, since the unlock
// script gets the channel redisson_lock__channel:{app:lock} (and the unlock
// latch) as KEYS: the key patterns must cover them too; the lock stays in
// Redis. With those key patterns but without the channel's &pattern, the
// release script deletes the lock and then fails on its PUBLISH: released,
// but no waiter is told.
func TestACLLockChannelIsAKey(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	ctx := t.Context()
	c, err := redisson.New(aclUser(t, srv, admin, "app", "~app:* ~redisson-go:client:* &app:* +@all -@dangerous +info"),
		redisson.WithLogger(slog.New(newLogRecords())))
	require.NoError(t, err)
	defer c.Close()
	h, err := c.Lock("app:lock").Lock(ctx, rlock.WithLease(time.Minute))
	require.NoError(t, err)
	require.ErrorContains(t, h.Unlock(ctx), "NOPERM")
	require.EqualValues(t, 1, admin.Exists(ctx, "app:lock").Val(), "the refused unlock left the lock in Redis")

	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "~redisson_lock__channel:{app:*", "~redisson_unlock_latch:{app:*").Err())
	_, err = c.Lock("app:lock").ForceUnlock(ctx)
	require.ErrorContains(t, err, "can't publish", "the channel's key pattern without its &pattern")
	require.EqualValues(t, 0, admin.Exists(ctx, "app:lock").Val(), "the script deleted the lock before its PUBLISH failed")

	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "&redisson_lock__channel:{app:*").Err())
	h, err = c.Lock("app:lock").Lock(ctx, rlock.WithLease(time.Minute))
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx), "with the channel's key and channel patterns")
}
