package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/retry"
	"github.com/goredisson/redisson/observe"
)

// replyErr is what go-redis returns for an error reply.
type replyErr string

func (e replyErr) Error() string { return string(e) }
func (replyErr) RedisError()     {}

var _ redis.Error = replyErr("")

func TestRetryable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: &net.OpError{Op: "connect", Err: syscall.ECONNREFUSED}}
	read := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	tests := []struct {
		name      string
		err       error
		retryable bool
		notSent   bool
	}{
		{"nil", nil, false, false},
		{"connection refused", dial, true, true},
		{"connection reset while reading", read, true, false},
		{"EOF", io.EOF, true, false},
		{"wrapped EOF", fmt.Errorf("no reply to the acquire: %w", io.EOF), true, false},
		{"unexpected EOF", io.ErrUnexpectedEOF, true, false},
		{"broken pipe", syscall.EPIPE, true, false},
		{"abandoned call", &conns.AbandonedError{Cause: context.DeadlineExceeded}, true, false},
		{"CLUSTERDOWN", replyErr("CLUSTERDOWN The cluster is down"), true, false},
		{"TRYAGAIN", replyErr("TRYAGAIN Multiple keys request during rehashing of slot"), true, false},
		{"LOADING", replyErr("LOADING Redis is loading the dataset in memory"), true, false},
		{"MASTERDOWN", replyErr("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."), true, false},
		{"READONLY", replyErr("READONLY You can't write against a read only replica."), true, false},
		{"no synced replicas", fmt.Errorf("%w: 1 replicas", ErrNoSyncedReplicas), true, false},
		{"WRONGTYPE", ErrWrongType, false, false},
		{"script error", replyErr("ERR user_script:1: Script attempted to access nonexistent global variable"), false, false},
		{"NOSCRIPT is handled elsewhere", replyErr("NOSCRIPT No matching script."), false, false},
		{"closed Client", ErrClosed, false, false},
		{"closed go-redis client", redis.ErrClosed, false, true},
		{"write on a closed socket", &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}, true, true},
		{"bad sticky connection", errors.New("redis: Conn is in a bad state: EOF"), false, true},
		{"bad argument", ErrInvalidArgument, false, false},
		{"not owner", ErrNotOwner, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.retryable, Retryable(tt.err), "Retryable")
			if tt.err != nil {
				require.Equal(t, tt.notSent, NotSent(tt.err), "NotSent")
			}
		})
	}
}

// TestRetryAfter checks the budget of tries in a row, the back-off's
// bounds (Redisson's EqualJitterDelay) and when After says no at once.
func TestRetryAfter(t *testing.T) {
	rt := New(Config{Retry: retry.Config{Attempts: 3, Delay: 100 * time.Millisecond}})
	defer rt.Close()
	ctx := context.Background()
	r := rt.Retry().Budget("", "")
	bounds := [][2]time.Duration{{50, 100}, {100, 200}, {100, 200}}
	for round := 0; round < 2; round++ {
		for i, b := range bounds {
			d, again := r.After(ctx, io.EOF)
			require.True(t, again, "retry %d", i)
			require.GreaterOrEqual(t, d, b[0]*time.Millisecond, "retry %d", i)
			require.LessOrEqual(t, d, b[1]*time.Millisecond, "retry %d", i)
			require.ErrorIs(t, r.Err(), io.EOF)
		}
		_, again := r.After(ctx, io.EOF)
		require.False(t, again, "the budget is spent")
		// An answer starts a new streak with a full budget.
		r.Reset()
		require.NoError(t, r.Err())
	}

	_, again := r.After(ctx, ErrWrongType)
	require.False(t, again, "a reply about the key does not pass by itself")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, again = r.After(cctx, io.EOF)
	require.False(t, again, "the caller's context is done")

	off := New(Config{})
	defer off.Close()
	require.False(t, off.Retry().On())
	ro := off.Retry().Budget("", "")
	_, again = ro.After(ctx, io.EOF)
	require.False(t, again, "retrying is off")

	closed := New(Config{Retry: retry.Config{Attempts: 3}})
	closed.Close()
	rc := closed.Retry().Budget("", "")
	_, again = rc.After(ctx, io.EOF)
	require.False(t, again, "the client is closed")
	require.False(t, errors.Is(r.Err(), io.EOF))
}

// TestRetryObserved: each back-off is reported to the observer with the
// object, the reason and the delay it returns.
func TestRetryObserved(t *testing.T) {
	var got []observe.Retry
	obs := &observe.Observer{Retry: func(_ context.Context, e observe.Retry) { got = append(got, e) }}
	rt := New(Config{Retry: retry.Config{Attempts: 3, Delay: 10 * time.Millisecond}, Observer: obs})
	defer rt.Close()
	ctx := context.Background()
	r := rt.Retry().Budget("fair lock", "jobs")
	tests := []struct {
		err    error
		reason observe.RetryReason
	}{
		{io.EOF, observe.RetryConnection},
		{replyErr("READONLY You can't write against a read only replica."), observe.RetryRejected},
		{fmt.Errorf("acquire: %w", ErrNoSyncedReplicas), observe.RetryNoSyncedReplicas},
	}
	var delays []time.Duration
	for _, tc := range tests {
		d, again := r.After(ctx, tc.err)
		require.True(t, again, "%v", tc.err)
		delays = append(delays, d)
	}
	_, again := r.After(ctx, io.EOF)
	require.False(t, again)
	require.Len(t, got, len(tests), "a retry refused is no back-off")
	for i, tc := range tests {
		require.Equal(t, observe.Retry{Kind: observe.KindFairLock, Name: "jobs", Reason: tc.reason, Attempt: i + 1, Delay: delays[i], Err: tc.err}, got[i])
	}
}
