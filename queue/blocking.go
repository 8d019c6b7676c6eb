package queue

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
)

// blockSlice bounds one BLPOP or BRPOP: a call that waits longer sends it
// again. The bound lets a connection that died silently (a host gone in a
// failover) be noticed, at the slice plus blockReadMargin, where an
// unbounded BLPOP 0 would wait for TCP keepalive; it costs one command per
// slice per waiting call.
const blockSlice = 30 * time.Second

// blockReadMargin is added to a blocking command's own timeout for its read
// deadline, as go-redis does for its typed blocking commands.
const blockReadMargin = 10 * time.Second

// idleBlockers is how many blocking connections a handle keeps between
// calls; more concurrent calls open more and close them afterwards.
const idleBlockers = 4

// maxRedirects is how many MOVED or UNBLOCKED replies a blocking call
// follows.
const maxRedirects = 5

// blocker is the connection of one blocking call: blk carries the BLPOP,
// ctl (to the same node, dialled when first needed) sends CLIENT UNBLOCK to
// blk's connection when the call's caller leaves. Neither is a connection of
// the application's go-redis pool.
type blocker struct {
	blk *redis.Client
	ctl *redis.Client
	id  atomic.Int64 // CLIENT ID of blk's current connection; 0: unknown
}

func (b *blocker) close() {
	_ = b.blk.Close()
	_ = b.ctl.Close()
}

// blockers keeps a handle's idle blocking connections. They are closed when
// the client closes, or when the handle is garbage (runtime.AddCleanup).
type blockers struct {
	src    *Source
	mu     sync.Mutex
	free   []*blocker
	closed bool
	stop   func() bool // the AfterFunc on the client's lifetime
	once   sync.Once
}

func newBlockers(src *Source) *blockers { return &blockers{src: src} }

// get returns an idle blocking connection, or a new one to the node of key.
func (p *blockers) get(ctx context.Context, key string) (*blocker, error) {
	p.once.Do(func() { p.stop = context.AfterFunc(p.src.rt.Lifetime(), p.close) })
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return b, nil
	}
	p.mu.Unlock()
	o, err := nodeOptions(ctx, p.src.rt.Redis(), key)
	if err != nil {
		return nil, err
	}
	b := &blocker{}
	blk := conns.SideOptions(o)
	blk.PoolSize, blk.MinIdleConns, blk.MaxIdleConns, blk.MaxActiveConns = 1, 0, 1, 1
	blk.ReadTimeout = blockSlice + blockReadMargin
	blk.ContextTimeoutEnabled = false // the call's reply is always read: see wait
	blk.MaxRetries = -1               // a pop is never sent twice
	user := o.OnConnect
	blk.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
		if user != nil {
			if err := user(ctx, cn); err != nil {
				return err
			}
		}
		id, err := cn.ClientID(ctx).Result()
		if err != nil {
			return err
		}
		b.id.Store(id)
		return nil
	}
	ctl := conns.SideOptions(o)
	ctl.PoolSize, ctl.MinIdleConns, ctl.MaxIdleConns, ctl.MaxActiveConns = 1, 0, 1, 1
	b.blk, b.ctl = redis.NewClient(&blk), redis.NewClient(&ctl)
	return b, nil
}

// put keeps b for the next call, or closes it.
func (p *blockers) put(b *blocker) {
	p.mu.Lock()
	if !p.closed && len(p.free) < idleBlockers {
		p.free = append(p.free, b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	b.close()
}

// close closes the idle connections; busy ones close when their call ends.
func (p *blockers) close() {
	p.mu.Lock()
	p.closed = true
	free := p.free
	p.free = nil
	p.mu.Unlock()
	for _, b := range free {
		b.close()
	}
}

// release ends the handle's hold on the client's lifetime (cleanup of a
// handle that became garbage).
func (p *blockers) release() {
	if p.stop != nil {
		p.stop()
	}
	p.close()
}

// nodeOptions returns the options of a client to the master of key: the
// application's client itself outside a cluster (a Sentinel failover
// client's dialer follows the master), the key's master in one.
func nodeOptions(ctx context.Context, rdb redis.UniversalClient, key string) (*redis.Options, error) {
	switch c := rdb.(type) {
	case *redis.Client:
		return c.Options(), nil
	case *redis.ClusterClient:
		m, err := c.MasterForKey(ctx, key)
		if err != nil {
			return nil, err
		}
		return m.Options(), nil
	}
	return nil, fmt.Errorf("%w: blocking calls need a *redis.Client or *redis.ClusterClient, not %T",
		core.ErrInvalidArgument, rdb)
}

// seconds formats a blocking command's timeout in seconds with millisecond
// precision (Redis 6+ reads a fraction), at least 1 ms: 0 would block
// forever.
func seconds(d time.Duration) string {
	ms := max(d.Milliseconds(), 1)
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

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
	rt := b.src.rt
	inf, err := rt.Inflight()
	if err != nil {
		return zero, false, b.fail(op, err)
	}
	handedOff := false
	defer func() {
		if !handedOff {
			inf.End()
		}
	}()
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	retry := rt.Retry().Budget(b.kind, b.name)
	var bl *blocker
	redirects := 0
	for {
		if err := rt.Check(ctx); err != nil {
			if bl != nil {
				p.put(bl)
			}
			return zero, false, b.fail(op, err)
		}
		slice := blockSlice
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				if bl != nil {
					p.put(bl)
				}
				// Nothing came; a wait that ran out while Redis could
				// not be reached says why.
				if err := retry.Err(); err != nil {
					return zero, false, b.fail(op, err)
				}
				return zero, false, nil
			}
			slice = min(slice, left)
		}
		if d, ok := ctx.Deadline(); ok {
			slice = min(slice, max(time.Until(d), time.Millisecond))
		}
		var r popReply
		if bl == nil {
			bl, r.err = p.get(ctx, b.name)
		}
		if r.err == nil {
			res := make(chan popReply, 1)
			go func(bl *blocker, secs string) {
				v, err := bl.blk.Do(context.Background(), cmd, b.name, secs).Result()
				res <- popReply{v, err}
			}(bl, seconds(slice))
			select {
			case r = <-res:
			case <-ctx.Done():
				handedOff = true
				go b.abandon(inf, p, bl, res, back)
				return zero, false, b.fail(op, context.Cause(ctx))
			case <-rt.Closed():
				handedOff = true
				go b.abandon(inf, p, bl, res, back)
				return zero, false, b.fail(op, core.ErrClosed)
			}
		}
		switch {
		case errors.Is(r.err, redis.Nil):
			// The slice ended without an element.
			retry.Reset()
			continue
		case r.err != nil && isWrongType(r.err):
			p.put(bl)
			return zero, false, b.failRedis(ctx, op, r.err)
		case r.err != nil:
			if bl != nil {
				// Broken, or bound to a node that no longer has the key
				// (MOVED): the next try opens a new one.
				bl.close()
				bl = nil
			}
			d, again := retry.After(ctx, r.err)
			if !again && (core.IsRedirect(r.err) || isUnblocked(r.err)) && redirects < maxRedirects {
				// The key's slot moved, or its master became a replica
				// (Redis unblocks the waiting clients then): find the
				// master again.
				redirects++
				again, d = true, 100*time.Millisecond
				if cc, ok := b.rdb().(*redis.ClusterClient); ok {
					cc.ReloadState(ctx)
				}
			}
			if !again {
				return zero, false, b.failRedis(ctx, op, r.err)
			}
			if err := sleep(ctx, rt.Lifetime(), d); err != nil {
				return zero, false, b.fail(op, err)
			}
			continue
		}
		data, err := popped(r.v)
		if err != nil {
			p.put(bl)
			return zero, false, b.fail(op, err)
		}
		if err := rt.Check(ctx); err != nil {
			// The reply raced the caller's leaving: it goes back.
			b.putBackOn(ctx, bl.blk, back, data)
			p.put(bl)
			return zero, false, b.fail(op, err)
		}
		p.put(bl)
		v, err := b.decode(op, data)
		if err != nil {
			b.putBackOn(ctx, b.rdb(), back, data)
			return zero, false, err
		}
		return v, true, nil
	}
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
func (b *base[T]) abandon(inf *core.Inflight, p *blockers, bl *blocker, res <-chan popReply, back string) {
	defer inf.End()
	rt := b.src.rt
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
	rt := b.src.rt
	lost := func(err error) {
		rt.Logger().Error("redisson: an element popped for a caller that left could not be put back; it is in this log only",
			"kind", b.kind, "name", b.name, "element", data, "err", err)
	}
	first := true
	err, pending := rt.GiveBack(ctx, func(dctx context.Context) error {
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

// BlockingQueue is Redisson's RBlockingQueue<T>: a Queue whose consumers
// can wait for an element. Take waits with BLPOP, as Java's take does, so a
// push by any client (Java's put or offer, RPUSH) wakes the longest waiting
// consumer, Java's or Go's. Poll with a timeout waits at most that long.
//
// Each waiting call uses a connection of its own (see the package doc); the
// handle keeps up to 4 of them between calls, so keep the handle rather
// than making one per call.
type BlockingQueue[T any] struct {
	Queue[T]
	pool *blockers
}

// NewBlockingQueue returns the blocking queue called name on src, encoded
// with cd. Use redisson.NewBlockingQueue. An empty name, a nil codec or a
// nil Source gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument).
func NewBlockingQueue[T any](src *Source, name string, cd codec.Codec) *BlockingQueue[T] {
	q := &BlockingQueue[T]{Queue: Queue[T]{base: newBase[T]("blocking queue", src, name, cd)}}
	if q.err == nil {
		q.pool = newBlockers(src)
		runtime.AddCleanup(q, (*blockers).release, q.pool)
	}
	return q
}

// Put appends v to the tail (RPUSH), Java's put; the same as Offer.
func (q *BlockingQueue[T]) Put(ctx context.Context, v T) error {
	if q == nil {
		return core.NilHandle("blocking queue", "put")
	}
	return q.push(ctx, "put", "rpush", v)
}

// Take removes and returns the head, waiting until there is one or ctx is
// done (BLPOP). See the package doc for what happens to an element that
// arrives as the caller leaves.
func (q *BlockingQueue[T]) Take(ctx context.Context) (T, error) {
	if q == nil {
		return *new(T), core.NilHandle("blocking queue", "take")
	}
	v, _, err := q.wait(ctx, q.pool, "take", "blpop", "lpush", 0)
	return v, err
}

// Poll removes and returns the head, waiting up to timeout for one (BLPOP
// with the timeout in seconds to the millisecond; Java rounds it to whole
// seconds, at least 1), and false when none came. A zero timeout does not
// wait (LPOP); a negative one is ErrInvalidArgument.
func (q *BlockingQueue[T]) Poll(ctx context.Context, timeout time.Duration) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("blocking queue", "poll")
	}
	return pollTimeout(ctx, &q.base, q.pool, "poll", "lpop", "blpop", "lpush", timeout)
}

func pollTimeout[T any](ctx context.Context, b *base[T], p *blockers, op, now, block, back string, timeout time.Duration) (T, bool, error) {
	switch {
	case timeout < 0:
		var zero T
		return zero, false, b.fail(op, fmt.Errorf("%w: the timeout must not be negative, got %v", core.ErrInvalidArgument, timeout))
	case timeout == 0:
		return b.pop(ctx, op, back, now, b.name)
	}
	return b.wait(ctx, p, op, block, back, timeout)
}

// BlockingDeque is Redisson's RBlockingDeque<T>: a Deque whose consumers
// can wait at either end, TakeFirst and PollFirst with BLPOP, TakeLast and
// PollLast with BRPOP, as Java does. Take and Poll are TakeFirst and
// PollFirst. Connections as for BlockingQueue.
type BlockingDeque[T any] struct {
	Deque[T]
	pool *blockers
}

// NewBlockingDeque returns the blocking deque called name on src, encoded
// with cd. Use redisson.NewBlockingDeque.
func NewBlockingDeque[T any](src *Source, name string, cd codec.Codec) *BlockingDeque[T] {
	d := &BlockingDeque[T]{Deque: Deque[T]{Queue: Queue[T]{base: newBase[T]("blocking deque", src, name, cd)}}}
	if d.err == nil {
		d.pool = newBlockers(src)
		runtime.AddCleanup(d, (*blockers).release, d.pool)
	}
	return d
}

// Put appends v to the tail (RPUSH), Java's put and putLast.
func (d *BlockingDeque[T]) Put(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("blocking deque", "put")
	}
	return d.push(ctx, "put", "rpush", v)
}

// PutFirst inserts v at the head (LPUSH), Java's putFirst.
func (d *BlockingDeque[T]) PutFirst(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("blocking deque", "put first")
	}
	return d.push(ctx, "put first", "lpush", v)
}

// Take is TakeFirst.
func (d *BlockingDeque[T]) Take(ctx context.Context) (T, error) {
	if d == nil {
		return *new(T), core.NilHandle("blocking deque", "take")
	}
	v, _, err := d.wait(ctx, d.pool, "take", "blpop", "lpush", 0)
	return v, err
}

// TakeFirst removes and returns the head, waiting until there is one or ctx
// is done (BLPOP).
func (d *BlockingDeque[T]) TakeFirst(ctx context.Context) (T, error) {
	if d == nil {
		return *new(T), core.NilHandle("blocking deque", "take first")
	}
	v, _, err := d.wait(ctx, d.pool, "take first", "blpop", "lpush", 0)
	return v, err
}

// TakeLast removes and returns the tail, waiting until there is one or ctx
// is done (BRPOP).
func (d *BlockingDeque[T]) TakeLast(ctx context.Context) (T, error) {
	if d == nil {
		return *new(T), core.NilHandle("blocking deque", "take last")
	}
	v, _, err := d.wait(ctx, d.pool, "take last", "brpop", "rpush", 0)
	return v, err
}

// Poll is PollFirst.
func (d *BlockingDeque[T]) Poll(ctx context.Context, timeout time.Duration) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("blocking deque", "poll")
	}
	return pollTimeout(ctx, &d.base, d.pool, "poll", "lpop", "blpop", "lpush", timeout)
}

// PollFirst removes and returns the head, waiting up to timeout (BLPOP; a
// zero timeout does not wait: LPOP), and false when none came.
func (d *BlockingDeque[T]) PollFirst(ctx context.Context, timeout time.Duration) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("blocking deque", "poll first")
	}
	return pollTimeout(ctx, &d.base, d.pool, "poll first", "lpop", "blpop", "lpush", timeout)
}

// PollLast removes and returns the tail, waiting up to timeout (BRPOP; a
// zero timeout does not wait: RPOP), and false when none came.
func (d *BlockingDeque[T]) PollLast(ctx context.Context, timeout time.Duration) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("blocking deque", "poll last")
	}
	return pollTimeout(ctx, &d.base, d.pool, "poll last", "rpop", "brpop", "rpush", timeout)
}
