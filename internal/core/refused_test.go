package core_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/replies"
)

// TestRefused classifies the replies of a release that failed: refused
// before anything changed (send it again later), a script's runtime error
// (it may have written), or no reply at all. The texts are Redis 7.0's,
// 7.2's and 6.2's own.
func TestRefused(t *testing.T) {
	tests := []struct {
		name          string
		err           error
		refused       bool
		denied        bool
		channelDenied bool
	}{
		{"OOM before a flagged script", proto("OOM command not allowed when used memory > 'maxmemory'."), true, false, false},
		{"OOM at a script's first write", proto("OOM command not allowed when used memory > 'maxmemory'. script: 54f2ba61d0fd4d34cc1bf98218aa4d1161e62224, on @user_script:1."), true, false, false},
		{"OOM inside a script, Redis 6", proto("ERR Error running script (call to f_54f2ba61d0fd4d34cc1bf98218aa4d1161e62224): @user_script:1: @user_script: 1: -OOM command not allowed when used memory > 'maxmemory'. "), true, false, false},
		{"NOPERM on a declared key", proto("NOPERM this user has no permissions to access one of the keys used as arguments"), true, true, false},
		{"NOPERM on the command", proto("NOPERM this user has no permissions to run the 'evalsha' command"), true, true, false},
		{"NOPERM on a key, Redis 7.2", proto("NOPERM No permissions to access a key"), true, true, false},
		{"READONLY", proto("READONLY You can't write against a read only replica."), true, false, false},
		{"READONLY inside a script", proto("READONLY You can't write against a read only replica. script: 54f2ba61, on @user_script:1."), true, false, false},
		{"CROSSSLOT", proto("CROSSSLOT Keys in request don't hash to the same slot"), true, false, false},
		{"NOSCRIPT", proto("NOSCRIPT No matching script. Please use EVAL."), true, false, false},
		{"LOADING", proto("LOADING Redis is loading the dataset in memory"), true, false, false},
		{"MASTERDOWN", proto("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."), true, false, false},
		{"CLUSTERDOWN", proto("CLUSTERDOWN The cluster is down"), true, false, false},
		{"TRYAGAIN", proto("TRYAGAIN Multiple keys request during rehashing of slot"), true, false, false},
		{"MOVED", proto("MOVED 3999 127.0.0.1:6381"), true, false, false},
		{"ASK", proto("ASK 3999 127.0.0.1:6381"), true, false, false},
		{"BUSY", proto("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."), true, false, false},
		{"MISCONF", proto("MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk."), true, false, false},
		{"NOREPLICAS", proto("NOREPLICAS Not enough good replicas to write."), true, false, false},
		{"NOAUTH", proto("NOAUTH Authentication required."), true, false, false},
		{"wrapped by a script's name", fmt.Errorf("script semaphore.release: %w", proto("OOM command not allowed when used memory > 'maxmemory'.")), true, false, false},
		{"a channel refused inside a script, Redis 7.0", proto("ERR The user executing the script can't publish to the channel mentioned in the command script: 8592fc3f144d7f51d8cf1c0494073540918bb568, on @user_script:1."), false, true, true},
		{"a command refused inside a script, Redis 7.0", proto("ERR The user executing the script can't run this command or subcommand script: e7c7541270a28c36c9764e00f4a1b72e11088675, on @user_script:1."), false, true, false},
		{"a channel refused inside a script, Redis 7.2", proto("ERR ACL failure in script: User app has no permissions to access the 'redisson_sc:{s}' channel script: 8592fc3f, on @user_script:1."), false, true, true},
		{"a NOPERM raised inside a script", proto("NOPERM User app has no permissions to access the 'redisson_sc:{s}' channel script: 8592fc3f, on @user_script:1."), false, true, true},
		{"a CROSSSLOT raised inside a script", proto("ERR Script attempted to access keys that do not hash to the same slot script: 8592fc3f, on @user_script:1."), false, false, false},
		{"another runtime error, Redis 6", proto("ERR Error running script (call to f_1): @user_script:1: user_script:1: attempt to compare nil with number "), false, false, false},
		{"a script's own error reply", proto("ERR semaphore value is not an integer"), false, false, false},
		{"WRONGTYPE", proto("WRONGTYPE Operation against a key holding the wrong kind of value"), false, false, false},
		{"the wrong-type sentinel", core.ErrWrongType, false, false, false},
		{"redis.Nil", redis.Nil, false, false, false},
		{"a read timeout", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ETIMEDOUT}, false, false, false},
		{"a reset connection", io.EOF, false, false, false},
		{"a deadline", context.DeadlineExceeded, false, false, false},
		{"an abandoned call", &conns.AbandonedError{Cause: context.Canceled}, false, false, false},
		{"nil", nil, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.refused, replies.Refused(tc.err), "Refused")
			require.Equal(t, tc.denied, replies.Denied(tc.err), "Denied")
			require.Equal(t, tc.channelDenied, replies.ChannelDenied(tc.err), "ChannelDenied")
			perm := core.Permission(tc.err)
			require.Equal(t, tc.denied, errors.Is(perm, core.ErrNoPermission), "Permission matches ErrNoPermission")
			if tc.err != nil {
				require.Equal(t, tc.err.Error(), perm.Error(), "Permission keeps the text")
				require.ErrorIs(t, perm, tc.err)
			}
		})
	}
}

// TestRefusedRealReplies checks the classification against what the
// installed redis-server answers: a script refused by OOM and by a key
// ACL did not run, one whose PUBLISH an ACL refused after its write did.
func TestRefusedRealReplies(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartFullable(t)
	admin := redistest.Client(t, srv)
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "narrow", "on", ">pw", "~app:*", "&*", "+@all").Err())
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "quiet", "on", ">pw", "~*", "&app:*", "+@all").Err())
	script := core.NewScript("t.release", "local v = redis.call('incrby', KEYS[1], 1)\nredis.call('publish', KEYS[2], v)\nreturn v")
	keys := []string{"app:s", "redisson_sc:{app:s}"}

	narrow := redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = "narrow", "pw" })
	_, err := script.Run(ctx, narrow, keys)
	require.True(t, replies.Refused(err), "a channel passed as a key outside the user's keys: %v", err)
	require.ErrorIs(t, core.Permission(err), core.ErrNoPermission)
	require.Equal(t, "", getOrEmpty(t, admin, "app:s"), "nothing was written")

	quiet := redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = "quiet", "pw" })
	_, err = script.Run(ctx, quiet, keys)
	require.False(t, replies.Refused(err), "a PUBLISH refused after the write: %v", err)
	require.True(t, replies.ChannelDenied(err), "%v", err)
	require.ErrorIs(t, core.Permission(err), core.ErrNoPermission)
	require.Equal(t, "1", getOrEmpty(t, admin, "app:s"), "the write was made")

	free := redistest.Fill(t, admin)
	_, err = script.Run(ctx, admin, keys)
	require.True(t, replies.Refused(err), "OOM: %v", err)
	require.Equal(t, "1", getOrEmpty(t, admin, "app:s"), "nothing was written")
	free()
	_, err = script.Run(ctx, admin, keys)
	require.NoError(t, err)
}

func getOrEmpty(t *testing.T, rdb *redis.Client, key string) string {
	t.Helper()
	v, err := rdb.Get(context.Background(), key).Result()
	if errors.Is(err, redis.Nil) {
		return ""
	}
	require.NoError(t, err)
	return v
}
