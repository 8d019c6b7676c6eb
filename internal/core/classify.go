package core

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/observe"
)

// ErrReleaseRefused is matched by the error of a release Redis refused
// before it ran (Refused): the hold is still its owner's.
var ErrReleaseRefused = errors.New("the release did not run")

// isReply reports whether err is an answer from Redis to this command,
// not a failure to get one. go-redis' refusal of a Conn it marked bad is
// not, though it wraps the reply that made it so (READONLY).
func isReply(err error) bool {
	// No error is no reply to classify; errors.As below would move re to
	// the heap on every call, the successful ones included.
	if err == nil || conns.BadConn(err) {
		return false
	}
	var re redis.Error
	return errors.As(err, &re) || errors.Is(err, ErrWrongType)
}

// finalError marks a failure that must end a wait even though its cause
// may pass: trying again could count a hold twice.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// Final marks err as ending a wait: Retryable reports false for it, while
// errors.Is and errors.As still see what it wraps.
func Final(err error) error { return &finalError{err} }

// Retryable reports whether a try that failed with err may succeed when
// sent again a moment later: the connection failed or timed out (a server
// restarting or failing over, a network fault), Redis turned the command
// away for a passing state without running it (CLUSTERDOWN, TRYAGAIN,
// LOADING, MASTERDOWN, READONLY), or no replica acknowledged a write that
// was undone (ErrNoSyncedReplicas, which Redisson retries the same way).
// Context errors count: the caller checks its own context first, so one
// here comes from a bound of the client's.
func Retryable(err error) bool {
	var final *finalError
	if err == nil || errors.As(err, &final) || errors.Is(err, ErrClosed) || errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, ErrNoPermission) {
		// An ACL's refusal stays until an operator changes the ACL.
		return false
	}
	if errors.Is(err, hub.ErrNotConfirmed) || errors.Is(err, redis.ErrPoolTimeout) {
		// A subscription not confirmed in time, no free connection: the
		// command did not reach Redis.
		return true
	}
	if errors.Is(err, ErrNoSyncedReplicas) || Rejected(err) {
		return true
	}
	return Transport(err)
}

// Transport reports whether err is a failure to get a reply, not a reply
// from Redis: a network failure or a timeout, which leaves a command's
// outcome unknown unless NotSent says it never left.
func Transport(err error) bool {
	var re redis.Error
	if err == nil || errors.As(err, &re) || errors.Is(err, ErrWrongType) || errors.Is(err, ErrInvalidArgument) {
		return false
	}
	var ab *conns.AbandonedError
	var ne net.Error
	return errors.As(err, &ab) || errors.As(err, &ne) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED)
}

// Rejected reports whether err is a Redis reply that turned the command
// away before running it, for a state that passes (CLUSTERDOWN, TRYAGAIN,
// LOADING, MASTERDOWN, READONLY): sending it again is safe.
func Rejected(err error) bool {
	return conns.ReplyHasPrefix(err, "CLUSTERDOWN ", "TRYAGAIN ", "LOADING ", "MASTERDOWN ", "READONLY ")
}

// NotSent reports whether err certainly came before the command reached
// the server, so that it cannot have run: the connection could not be
// made, none was free in time, the go-redis client was closed (it says so
// before taking a connection), a dedicated connection go-redis already knew
// to be bad was used, or the write met a socket closed under us, which
// sends nothing. (Go's poll.FD lets a write under way
// finish before the descriptor closes; one fails with ErrClosed after
// sending part of its bytes only when it waited for room in the send
// buffer, which a script call and its WAIT, a few kilobytes at most on a
// connection with no unanswered command, never do. Redis does not run a
// command it got part of.)
func NotSent(err error) bool {
	if err == nil {
		return false
	}
	var oe *net.OpError
	// Not "set" (a deadline on a closed socket): go-redis sets the read
	// deadline after the command was written, and a failed SetReadDeadline
	// reads the same as a failed SetWriteDeadline.
	if errors.As(err, &oe) && (oe.Op == "dial" || oe.Op == "write" && errors.Is(err, net.ErrClosed)) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrClosed) ||
		conns.BadConn(err)
}

// retryReason classifies a failure Retryable accepted.
func retryReason(err error) observe.RetryReason {
	switch {
	case errors.Is(err, hub.ErrNotConfirmed):
		return observe.RetryNotConfirmed
	case errors.Is(err, redis.ErrPoolTimeout):
		return observe.RetryPoolTimeout
	case errors.Is(err, ErrNoSyncedReplicas):
		return observe.RetryNoSyncedReplicas
	case Rejected(err):
		return observe.RetryRejected
	}
	return observe.RetryConnection
}
