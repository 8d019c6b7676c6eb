package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/inflight"
	"github.com/goredisson/redisson/internal/retry"
)

// doer sends one command: a go-redis client of any kind.
type doer interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
}

type popReply struct {
	v   any
	err error
}

// wait pops one element with cmd ("blpop" takes the head, "brpop" the
// tail), waiting up to wait (0: until ctx is done); back is how to put an
// element back to the end it came from. It returns false when wait passed
// without an element.
//
// The blocking command runs on a connection of its own, in slices of at most
// blockSlice, each bounded by wait and by ctx's deadline, so that a reply
// never comes to a call whose deadline passed. When ctx is cancelled (or the
// client closes) while a slice waits, the call returns at once and a
// goroutine, registered with the client so that Close waits for it, ends
// the slice with CLIENT UNBLOCK: Redis then either answers the slice as
// timed out (nothing was popped), or had already handed it an element,
// which the goroutine puts back where it came from.
func (b *base[T]) wait(ctx context.Context, p *blockers, op, cmd, back string, wait time.Duration) (T, bool, error) {
	var zero T
	if err := b.check(ctx, op); err != nil {
		return zero, false, err
	}
	if p == nil {
		return zero, false, b.fail(op, fmt.Errorf("%w: use the constructor", core.ErrInvalidArgument))
	}
	rt := b.rt
	inf, err := rt.Inflight().Begin()
	if err != nil {
		return zero, false, b.fail(op, err)
	}
	w := popWait[T]{b: b, ctx: ctx, p: p, op: op, cmd: cmd, back: back, inf: inf, retry: rt.Retry().Budget(b.kind, b.name)}
	defer func() {
		if !w.handedOff {
			inf.End()
		}
	}()
	if wait > 0 {
		w.deadline = time.Now().Add(wait)
	}
	for {
		slice, over := w.nextSlice()
		if over {
			break
		}
		r, over := w.send(slice)
		if over || w.settle(r) {
			break
		}
	}
	return w.v, w.ok, w.err
}

// popWait is one call of wait: what it carries from one slice to the
// next, and its result once a step says the call is over.
type popWait[T any] struct {
	b             *base[T]
	ctx           context.Context
	p             *blockers
	op, cmd, back string
	inf           *inflight.Work
	deadline      time.Time // zero: until ctx is done
	retry         retry.Retry
	bl            *blocker // the call's connection, kept across slices
	redirects     int      // MOVED or UNBLOCKED replies followed
	handedOff     bool     // abandon ends inf

	v   T
	ok  bool
	err error
}

// end ends the call with err (nil: no element came) and says it is over.
func (w *popWait[T]) end(err error) bool {
	w.err = err
	return true
}

// nextSlice returns how long the next slice may block, or says the call is
// over: ctx is done, the client closed, or the wait ran out.
func (w *popWait[T]) nextSlice() (time.Duration, bool) {
	if err := w.b.rt.Check(w.ctx); err != nil {
		if w.bl != nil {
			w.p.put(w.bl)
		}
		return 0, w.end(w.b.fail(w.op, err))
	}
	slice := blockSlice
	if !w.deadline.IsZero() {
		left := time.Until(w.deadline)
		if left <= 0 {
			if w.bl != nil {
				w.p.put(w.bl)
			}
			// Nothing came; a wait that ran out while Redis could
			// not be reached says why.
			return 0, w.end(w.b.fail(w.op, w.retry.Err()))
		}
		slice = min(slice, left)
	}
	if d, ok := w.ctx.Deadline(); ok {
		slice = min(slice, max(time.Until(d), time.Millisecond))
	}
	return slice, false
}

// send runs one slice and returns its reply, or says the call is over:
// its caller left, or the client closed, while the slice waited.
func (w *popWait[T]) send(slice time.Duration) (popReply, bool) {
	var r popReply
	if w.bl == nil {
		w.bl, r.err = w.p.get(w.ctx, w.b.name)
	}
	if r.err != nil {
		return r, false
	}
	res := make(chan popReply, 1)
	go func(bl *blocker, cmd, name, secs string) {
		v, err := bl.blk.Do(context.Background(), cmd, name, secs).Result()
		res <- popReply{v, err}
	}(w.bl, w.cmd, w.b.name, seconds(slice))
	select {
	case r = <-res:
		return r, false
	case <-w.ctx.Done():
		return r, w.leave(res, context.Cause(w.ctx))
	case <-w.b.rt.Closed():
		return r, w.leave(res, core.ErrClosed)
	}
}

// leave ends the call with err while its slice waits: abandon ends the
// slice, puts back what it popped, and ends inf.
func (w *popWait[T]) leave(res <-chan popReply, err error) bool {
	w.handedOff = true
	go w.b.abandon(w.inf, w.p, w.bl, res, w.back)
	return w.end(w.b.fail(w.op, err))
}

// settle handles a slice's reply and says whether the call is over.
func (w *popWait[T]) settle(r popReply) bool {
	switch {
	case errors.Is(r.err, redis.Nil):
		// The slice ended without an element.
		w.retry.Reset()
		return false
	case r.err != nil && isWrongType(r.err):
		w.p.put(w.bl)
		return w.end(w.b.failRedis(w.ctx, w.op, r.err))
	case r.err != nil:
		return w.failed(r.err)
	}
	return w.take(r.v)
}

// failed handles a slice that failed with err: the call is over unless the
// retry policy, or a redirect to follow, says to try again.
func (w *popWait[T]) failed(err error) bool {
	if w.bl != nil {
		// Broken, or bound to a node that no longer has the key
		// (MOVED): the next try opens a new one.
		w.bl.close()
		w.bl = nil
	}
	d, again := w.retry.After(w.ctx, err)
	if !again && (core.IsRedirect(err) || isUnblocked(err)) && w.redirects < maxRedirects {
		// The key's slot moved, or its master became a replica
		// (Redis unblocks the waiting clients then): find the
		// master again.
		w.redirects++
		again, d = true, 100*time.Millisecond
		if cc, ok := w.b.rdb().(*redis.ClusterClient); ok {
			cc.ReloadState(w.ctx)
		}
	}
	if !again {
		return w.end(w.b.failRedis(w.ctx, w.op, err))
	}
	if err := sleep(w.ctx, w.b.rt.Lifetime(), d); err != nil {
		return w.end(w.b.fail(w.op, err))
	}
	return false
}

// take hands the caller the element of a slice's reply v, or puts it back
// when the caller left meanwhile or the codec cannot read it.
func (w *popWait[T]) take(v any) bool {
	data, err := popped(v)
	if err != nil {
		w.p.put(w.bl)
		return w.end(w.b.fail(w.op, err))
	}
	if err := w.b.rt.Check(w.ctx); err != nil {
		// The reply raced the caller's leaving: it goes back.
		w.b.putBackOn(w.ctx, w.bl.blk, w.back, data)
		w.p.put(w.bl)
		return w.end(w.b.fail(w.op, err))
	}
	w.p.put(w.bl)
	e, err := w.b.decode(w.op, data)
	if err != nil {
		w.b.putBackOn(w.ctx, w.b.rdb(), w.back, data)
		return w.end(err)
	}
	w.v, w.ok = e, true
	return true
}

// isUnblocked reports Redis' UNBLOCKED reply: the server ended a blocking
// command because it stopped being a master (a failover demoted it) or the
// key's slot moved away.
func isUnblocked(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(re.Error(), "UNBLOCKED")
}

// popped returns the element of a BLPOP or BRPOP reply: [key, element].
func popped(v any) (string, error) {
	pair, ok := v.([]any)
	if !ok || len(pair) != 2 {
		return "", fmt.Errorf("unexpected reply %v", v)
	}
	data, ok := pair[1].(string)
	if !ok {
		return "", fmt.Errorf("unexpected reply %v", v)
	}
	return data, nil
}

// sleep waits d, or until ctx is done or the client closes.
func sleep(ctx context.Context, closed context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-closed.Done():
		return core.ErrClosed
	}
}

// abandon ends the slice of a call whose caller left (see wait) and puts
// back what it popped. inf keeps Close waiting until it is done.
//
// CLIENT UNBLOCK changes nothing when the slice's BLPOP has not reached
// Redis yet (the caller left while it was being dialled or written), or
// when its connection's id is not known yet; the slice would then block for
// up to blockSlice. So until the slice answers, the unblock is sent again,
// at growing intervals.
func (b *base[T]) abandon(inf *inflight.Work, p *blockers, bl *blocker, res <-chan popReply, back string) {
	defer inf.End()
	rt := b.rt
	t := time.NewTimer(blockSlice + blockReadMargin)
	defer t.Stop()
	again := time.NewTimer(0)
	defer again.Stop()
	pause := time.Millisecond
	for {
		select {
		case r := <-res:
			switch {
			case r.err == nil:
				if data, err := popped(r.v); err == nil {
					b.putBackOn(context.Background(), bl.blk, back, data)
				}
				p.put(bl)
			case errors.Is(r.err, redis.Nil):
				p.put(bl)
			default:
				bl.close()
			}
			return
		case <-t.C:
			// go-redis' read deadline has passed: the goroutine gets an
			// error.
			bl.close()
			return
		case <-again.C:
			if id := bl.id.Load(); id != 0 {
				uctx, cancel := context.WithTimeout(context.Background(), rt.Timeout())
				// Unblocked, the slice answers as timed out; an id that
				// does not block (the reply is on its way, or the BLPOP
				// has not arrived) answers 0 and changes nothing.
				_ = bl.ctl.Do(uctx, "client", "unblock", id).Err()
				cancel()
			}
			again.Reset(pause)
			pause = min(2*pause, time.Second)
		}
	}
}

// putBackOn pushes an element popped for a caller that cannot have it back
// to the end it came from, through c (the call's own connection when the
// application may have closed its go-redis client). A push Redis refuses
// (out of memory, an ACL, a failover under way) is sent again, through the
// application's client, until Redis accepts it (core.Runtime.GiveBack).
// Should it fail for good, the element is logged with its bytes, the only
// place left to recover it from.
func (b *base[T]) putBackOn(ctx context.Context, c doer, cmd, data string) {
	rt := b.rt
	lost := func(err error) {
		rt.Logger().Error("redisson: an element popped for a caller that left could not be put back; it is in this log only",
			"kind", b.kind, "name", b.name, "element", data, "err", err)
	}
	first := true
	err, pending := rt.Inflight().GiveBack(ctx, func(dctx context.Context) error {
		via := c
		if !first {
			// c may be the blocking call's connection, back in use by
			// another call by now.
			via = b.rdb()
		}
		first = false
		return via.Do(dctx, cmd, b.name, data).Err()
	}, func(err error) {
		if err != nil {
			lost(err)
		}
	})
	switch {
	case pending:
		rt.Logger().Warn("redisson: Redis refused putting back an element popped for a caller that left; trying again until it accepts",
			"kind", b.kind, "name", b.name, "element", data, "err", err)
	case err != nil:
		lost(err)
	}
}
