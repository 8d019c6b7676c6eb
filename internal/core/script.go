package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
)

// Script is one Lua script, sent with EVALSHA and, when a node answers
// NOSCRIPT (a fresh node, a flushed cache, a new cluster master) or its
// ACL refuses EVALSHA, at once with EVAL, which also caches it there. Only keys, values, channels and messages matter
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
	return s.run(ctx, p, nil, true, keys, args)
}

// Cmd runs the script as Run does and returns its command, for a caller
// that reads the reply with go-redis' typed getters (Int64, Text): a nil
// reply is redis.Nil there, as after go-redis' own Script.Run, whose
// EVAL fallback covers NOSCRIPT only, not an ACL that refuses EVALSHA.
func (s *Script) Cmd(ctx context.Context, p processor, keys []string, args ...any) *redis.Cmd {
	cmd, send := s.command(ctx, true, true, keys, args)
	if err := p.Process(ctx, send); (*EvalMode)(nil).answered(err) {
		cmd, send = s.command(ctx, false, true, keys, args)
		_ = p.Process(ctx, send)
	}
	return cmd
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
	return s.run(ctx, p, nil, false, keys, args)
}

// EvalMode remembers, for one client, that Redis refused it EVALSHA (an
// ACL user with -evalsha): its later script calls go straight to EVAL
// instead of paying a refused EVALSHA each. The zero value sends EVALSHA
// first. A nil *EvalMode remembers nothing.
type EvalMode struct{ evalOnly atomic.Bool }

// sha reports whether EVALSHA is worth sending.
func (m *EvalMode) sha() bool { return m == nil || !m.evalOnly.Load() }

// answered reads the reply to an EVALSHA: it reports whether the script
// did not run for a reason EVAL overcomes (NOSCRIPT, or EVALSHA refused,
// which it remembers).
func (m *EvalMode) answered(err error) bool {
	if IsEvalShaRefused(err) {
		if m != nil {
			m.evalOnly.Store(true)
		}
		return true
	}
	return IsNoScript(err)
}

// run sends EVALSHA (or EVAL when m says EVALSHA is refused) and, when the
// script did not run for want of a cached script or of the right to run
// one, EVAL at once: the script is never missing, whatever was flushed,
// restarted or refused, and nothing is logged for it.
func (s *Script) run(ctx context.Context, p processor, m *EvalMode, retry bool, keys []string, args []any) (any, error) {
	sha := m.sha()
	cmd, send := s.command(ctx, sha, retry, keys, args)
	err := p.Process(ctx, send)
	if sha && m.answered(err) {
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

// Queued is a script call queued on a pipeline (Runtime.Queue).
type Queued struct {
	s    *Script
	rt   *Runtime
	ctx  context.Context
	cmd  *redis.Cmd
	sha  bool
	keys []string
	args []any
}

// Queue adds s to pipe, as EVALSHA unless the client was refused it, for
// an idempotent script whose reply is read with Result once the pipeline
// ran (a watchdog renewal batch). ctx bounds the EVAL that Result may send.
func (rt *Runtime) Queue(ctx context.Context, pipe redis.Pipeliner, s *Script, keys []string, args ...any) *Queued {
	q := &Queued{s: s, rt: rt, ctx: ctx, sha: rt.evalMode.sha(), keys: keys, args: args}
	var send redis.Cmder
	q.cmd, send = s.command(ctx, q.sha, true, keys, args)
	_ = pipe.Process(ctx, send)
	return q
}

// Result returns the script's reply once the pipeline ran. A node that
// answered NOSCRIPT (a flushed or restarted node, a new master) or refused
// EVALSHA gets the script again at once with EVAL, so the call has its
// real answer now rather than a round later.
func (q *Queued) Result() (any, error) {
	err := q.cmd.Err()
	if q.sha && q.rt.evalMode.answered(err) {
		return conns.Bounded(q.ctx, func(ctx context.Context) (any, error) {
			return q.s.run(ctx, q.rt.redis, &q.rt.evalMode, true, q.keys, q.args)
		})
	}
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, q.s.wrap(err)
	}
	return q.cmd.Val(), nil
}

// Load loads the script on every node (go-redis broadcasts SCRIPT LOAD to all
// shards of a cluster). Calls need not load first: they EVAL a missing
// script themselves.
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

// IsEvalShaRefused reports whether err is Redis' NOPERM reply to EVALSHA:
// the ACL user may not run cached scripts (-evalsha), though it may EVAL.
func IsEvalShaRefused(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.HasPrefix(m, "NOPERM") && strings.Contains(m, "'evalsha'")
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
