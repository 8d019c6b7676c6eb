package queue

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/source"
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
	rt     *core.Runtime
	mu     sync.Mutex
	free   []*blocker
	closed bool
	stop   func() bool // the AfterFunc on the client's lifetime
	once   sync.Once
}

func newBlockers(rt *core.Runtime) *blockers { return &blockers{rt: rt} }

// get returns an idle blocking connection, or a new one to the node of key.
func (p *blockers) get(ctx context.Context, key string) (*blocker, error) {
	p.once.Do(func() { p.stop = context.AfterFunc(p.rt.Lifetime(), p.close) })
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return b, nil
	}
	p.mu.Unlock()
	o, err := nodeOptions(ctx, p.rt.Redis(), key)
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
// with cd (redisson.NewBlockingQueue). An empty name, a nil codec or a
// nil Source gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument).
func NewBlockingQueue[T any](src *source.Source, name string, cd codec.Codec) *BlockingQueue[T] {
	q := &BlockingQueue[T]{Queue: Queue[T]{base: newBase[T]("blocking queue", src, name, cd)}}
	if q.err == nil {
		q.pool = newBlockers(q.rt)
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
// with cd (redisson.NewBlockingDeque).
func NewBlockingDeque[T any](src *source.Source, name string, cd codec.Codec) *BlockingDeque[T] {
	d := &BlockingDeque[T]{Deque: Deque[T]{Queue: Queue[T]{base: newBase[T]("blocking deque", src, name, cd)}}}
	if d.err == nil {
		d.pool = newBlockers(d.rt)
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
