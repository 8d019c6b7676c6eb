package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Script is one Lua script, sent with EVALSHA and, when a node answers
// NOSCRIPT (a fresh node, a flushed cache, a new cluster master), with EVAL,
// which also caches it there. Only keys, values, channels and messages matter
// for interop with Redisson, never the script text.
type Script struct {
	name string
	src  string
	s    *redis.Script
	// The EVALSHA and EVAL arguments, boxed once.
	shaArg, srcArg any
}

// NewScript returns a named script; the name appears in errors.
func NewScript(name, src string) *Script {
	rs := redis.NewScript(src)
	return &Script{name: name, src: src, s: rs, shaArg: rs.Hash(), srcArg: src}
}

// Name returns the script's name.
func (s *Script) Name() string { return s.name }

// Hash returns the SHA1 of the script text.
func (s *Script) Hash() string { return s.s.Hash() }

// Run runs the script on the node that owns keys[0]. go-redis may send it
// again when the reply is lost: use Run for idempotent scripts only.
func (s *Script) Run(ctx context.Context, p processor, keys []string, args ...any) (any, error) {
	return s.run(ctx, p, true, keys, args)
}

// processor is a client or pipeline that sends one command.
type processor interface {
	Process(ctx context.Context, cmd redis.Cmder) error
}

// noRetryCmd is a command go-redis must not send a second time: its own
// retries (on a lost reply, a reset connection, a read timeout) would run a
// non-idempotent script twice, e.g. double-increment a hold count. Redisson
// sends its acquire scripts "no retry" for the same reason.
type noRetryCmd struct{ *redis.Cmd }

func (noRetryCmd) NoRetry() bool { return true }

// command builds EVALSHA (or EVAL) for keys and args; the second result is
// what to send: the command itself, or with retry false, the command
// wrapped so that go-redis never re-sends it.
func (s *Script) command(ctx context.Context, sha, retry bool, keys []string, args []any) (*redis.Cmd, redis.Cmder) {
	all := make([]any, 0, 3+len(keys)+len(args))
	if sha {
		all = append(all, "evalsha", s.shaArg)
	} else {
		all = append(all, "eval", s.srcArg)
	}
	all = append(all, len(keys))
	for _, k := range keys {
		all = append(all, k)
	}
	all = append(all, args...)
	cmd := redis.NewCmd(ctx, all...)
	if len(keys) > 0 {
		cmd.SetFirstKeyPos(3)
	}
	if retry {
		return cmd, cmd
	}
	return cmd, noRetryCmd{cmd}
}

// RunNoRetry runs the script once at most: go-redis does not re-send it when
// the reply is lost. A NOSCRIPT answer (the script did not run) is followed
// by EVAL.
func (s *Script) RunNoRetry(ctx context.Context, p processor, keys []string, args ...any) (any, error) {
	return s.run(ctx, p, false, keys, args)
}

func (s *Script) run(ctx context.Context, p processor, retry bool, keys []string, args []any) (any, error) {
	cmd, send := s.command(ctx, true, retry, keys, args)
	err := p.Process(ctx, send)
	if IsNoScript(err) {
		cmd, send = s.command(ctx, false, retry, keys, args)
		err = p.Process(ctx, send)
	}
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	return cmd.Val(), nil
}

// evalShaNoRetry queues the script on a pipeline as a no-retry command.
func (s *Script) evalShaNoRetry(ctx context.Context, p redis.Pipeliner, keys []string, args []any) *redis.Cmd {
	cmd, send := s.command(ctx, true, false, keys, args)
	_ = p.Process(ctx, send)
	return cmd
}

// EvalSha queues the script on a pipeline. A NOSCRIPT reply is reported by
// IsNoScript; the caller loads the script and retries.
func (s *Script) EvalSha(ctx context.Context, p redis.Pipeliner, keys []string, args ...any) *redis.Cmd {
	return s.s.EvalSha(ctx, p, keys, args...)
}

// Load loads the script on every node (go-redis broadcasts SCRIPT LOAD to all
// shards of a cluster).
func (s *Script) Load(ctx context.Context, c redis.Scripter) error {
	return s.s.Load(ctx, c).Err()
}

// wrap turns a script's failure into the error its caller reports: the
// caller names the operation, so a network error stays as it is, and
// WRONGTYPE becomes ErrWrongType without the script's internals (the caller
// says what the key holds). A script's WRONGKIND refusal says what the key
// holds itself (a *KindError, see kind.go). Any other error reply names
// the script, since it means a bug or an unexpected server.
func (s *Script) wrap(err error) error {
	var re redis.Error
	if !errors.As(err, &re) {
		return err
	}
	if strings.HasPrefix(re.Error(), "WRONGTYPE") {
		return ErrWrongType
	}
	if ke := kindError(re.Error()); ke != nil {
		return ke
	}
	return fmt.Errorf("script %s: %w", s.name, err)
}

// WrapRedisError maps Redis error replies to the library's sentinel errors,
// keeping the original text for the log.
func WrapRedisError(op string, err error) error {
	if err == nil {
		return nil
	}
	var re redis.Error
	if errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE") {
		return &OpError{Op: op, Err: ErrWrongType, Detail: re.Error()}
	}
	return &OpError{Op: op, Err: err}
}

// IsNoScript reports whether err is Redis' NOSCRIPT reply.
func IsNoScript(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT")
}

// IsRedirect reports whether err is (or wraps) a cluster MOVED or ASK reply.
func IsRedirect(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	var re redis.Error
	if errors.As(err, &re) {
		m = re.Error()
	}
	return strings.HasPrefix(m, "MOVED ") || strings.HasPrefix(m, "ASK ")
}

// OpError tells which operation failed; Unwrap gives the sentinel or the
// underlying Redis error.
type OpError struct {
	Op     string
	Err    error
	Detail string
}

func (e *OpError) Error() string {
	if e.Detail != "" {
		return e.Op + ": " + e.Err.Error() + " (" + e.Detail + ")"
	}
	return e.Op + ": " + e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *OpError) Unwrap() error { return e.Err }
