package queue

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/source"
)

// The delayed queue's scripts make the same Redis calls, with the same keys
// and arguments, as Redisson's RDelayedQueue (the interop records compare
// them). An entry is packed as Lua's struct.pack('Bc0Lc0', ...) packs it:
// the id's length (one byte, 8), 8 random bytes, the value's length as a
// little-endian uint64, the encoded value.
var (
	// KEYS: destination, timeout zset, entry list, channel. ARGV: due time
	// (ms), id, encoded value. Publishes the due time when the entry is the
	// new head of the zset, so every transfer task reschedules.
	delayedOfferScript = core.NewScript("delayedQueue.offer", lua.MustText(luaFiles, "lua/delayed_queue_offer.lua"))

	// KEYS: destination, timeout zset, entry list. ARGV: now (ms), limit.
	// Moves up to limit due entries to the destination (their bare values,
	// RPUSH) and returns the due time of the next one, nil when none is
	// left.
	delayedTransferScript = core.NewScript("delayedQueue.transfer", lua.MustText(luaFiles, "lua/delayed_queue_transfer.lua"))

	// KEYS: entry list, timeout zset. Takes the list's head entry.
	delayedPollScript = core.NewScript("delayedQueue.poll", lua.MustText(luaFiles, "lua/delayed_queue_poll.lua"))

	// KEYS: entry list. The head entry's value.
	delayedPeekScript = core.NewScript("delayedQueue.peek", lua.MustText(luaFiles, "lua/delayed_queue_peek.lua"))

	// KEYS: entry list. Every entry's value, list order.
	delayedReadAllScript = core.NewScript("delayedQueue.readAll", lua.MustText(luaFiles, "lua/delayed_queue_read_all.lua"))

	// KEYS: entry list. ARGV: encoded value. 1 when an entry holds it.
	delayedContainsScript = core.NewScript("delayedQueue.contains", lua.MustText(luaFiles, "lua/delayed_queue_contains.lua"))

	// KEYS: entry list, timeout zset. ARGV: encoded value. Removes the
	// first entry holding it; 1 when there was one.
	delayedRemoveScript = core.NewScript("delayedQueue.remove", lua.MustText(luaFiles, "lua/delayed_queue_remove.lua"))
)

// transferLimit is how many due entries one transfer moves, as Redisson.
const transferLimit = 100

// transferRetry is when a transfer that failed runs again, as Redisson
// (a message or a resubscription runs it sooner).
const transferRetry = 5 * time.Second

// DelayedQueue is Redisson's RDelayedQueue<T> over the destination queue of
// the same name: Offer(ctx, v, delay) keeps v aside until its due time, when
// a transfer task appends it to the destination (a list any Queue,
// BlockingQueue or Java RQueue of that name reads), where a Take waiting on
// it gets it.
//
// The layout is Redisson's: the entries, packed with 8 random bytes so that
// equal values stay distinct, in the list redisson_delay_queue:{name} (offer
// order) and the zset redisson_delay_queue_timeout:{name} (score: due time,
// ms since the epoch by the producer's clock). An offer that becomes the
// earliest entry publishes its due time on redisson_delay_queue_channel:{name}.
//
// Nothing in Redis moves a due entry: every client holding a delayed queue
// of the name, Java's or Go's, runs a transfer task, and the first to run at
// a due time moves the entry. Like Redisson's, a DelayedQueue's task starts
// with the handle: it subscribes to the channel and moves every entry already
// due as soon as the subscription is confirmed (and again after every
// resubscription), then runs at the earliest due time it learned, from its
// own last run or from a published due time. A run moves at most 100 entries
// and reports the next due time; a failed run is tried again after 5 s. Call
// Destroy when done with the handle (Java's destroy()): it stops the task;
// the entries stay in Redis for other holders, or for the next one. (The
// task also stops when the client closes, and when the handle is garbage
// collected.)
type DelayedQueue[T any] struct {
	base[T]
	queue, timeout, channel string
	dest                    *BlockingQueue[T]
	task                    *transfer
}

// NewDelayedQueue returns the delayed queue in front of the queue called
// name on src, encoded with cd, and starts its transfer task (Java:
// getDelayedQueue(getBlockingQueue(name, codec)); redisson.NewDelayedQueue).
// An empty name, a nil codec, a nil Source or a
// closed client gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument, ErrClosed), and no task.
func NewDelayedQueue[T any](src *source.Source, name string, cd codec.Codec) *DelayedQueue[T] {
	q := &DelayedQueue[T]{
		base:    newBase[T]("delayed queue", src, name, cd),
		queue:   core.PrefixName("redisson_delay_queue", name),
		timeout: core.PrefixName("redisson_delay_queue_timeout", name),
		channel: core.PrefixName("redisson_delay_queue_channel", name),
		dest:    NewBlockingQueue[T](src, name, cd),
	}
	if q.err == nil {
		q.err = core.CheckName(name, q.queue, q.timeout, q.channel)
	}
	if q.err == nil && q.rt.Lifetime().Err() == nil {
		q.task = startTransfer(q.rt, name, q.timeout, q.queue, q.channel)
		// A handle dropped without Destroy does not keep its task running
		// until the client closes.
		runtime.AddCleanup(q, (*transfer).halt, q.task)
	}
	return q
}

// Name returns the name of the delayed queue and of its destination.
func (q *DelayedQueue[T]) Name() string {
	if q == nil {
		return *new(string)
	}
	return q.name
}

// Destination returns the blocking queue due elements are moved to.
func (q *DelayedQueue[T]) Destination() *BlockingQueue[T] {
	if q == nil {
		return *new(*BlockingQueue[T])
	}
	return q.dest
}

// Destroy stops the handle's transfer task and waits until it has stopped
// (Java's destroy()). Further calls do nothing; the other methods still
// work.
func (q *DelayedQueue[T]) Destroy() {
	if q == nil {
		return
	}
	if q.task != nil {
		q.task.stop()
	}
}

// failKeys names the object in a Redis failure; a WRONGTYPE reply says
// which of the queue's keys holds what.
func (q *DelayedQueue[T]) failKeys(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if isWrongType(err) {
		err = wrongKey(ctx, q.rdb(), [][2]string{{q.timeout, "zset"}, {q.queue, "list"}, {q.name, "list"}})
	} else if q.rt.Lifetime().Err() != nil && core.Transport(err) {
		err = core.ErrClosed
	}
	return q.fail(op, err)
}

// wrongKey says which of keys holds another type than the one named with
// it (one TYPE each, on this error path only).
func wrongKey(ctx context.Context, rdb redis.UniversalClient, keys [][2]string) error {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	for _, k := range keys {
		typ, err := rdb.Type(tctx, k[0]).Result()
		if err == nil && typ != "none" && typ != k[1] {
			return fmt.Errorf("%w: the key %q holds a %s, not a %s", core.ErrWrongType, k[0], typ, k[1])
		}
	}
	return fmt.Errorf("%w: one of the queue's keys holds another type", core.ErrWrongType)
}

// Offer adds v, to be moved to the destination once delay has passed
// (Redisson's offer script, sent once at most). The due time is this
// process's clock plus delay, in whole milliseconds; a zero delay is due at
// once (the next transfer moves it), a negative one is ErrInvalidArgument.
func (q *DelayedQueue[T]) Offer(ctx context.Context, v T, delay time.Duration) error {
	if q == nil {
		return core.NilHandle("delayed queue", "offer")
	}
	const op = "offer"
	if err := q.check(ctx, op); err != nil {
		return err
	}
	if delay < 0 {
		return q.fail(op, fmt.Errorf("%w: the delay must not be negative, got %v", core.ErrInvalidArgument, delay))
	}
	data, err := q.encode(op, v)
	if err != nil {
		return err
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	due := time.Now().UnixMilli() + delay.Milliseconds()
	_, err = delayedOfferScript.RunNoRetry(ctx, q.rdb(), []string{q.name, q.timeout, q.queue, q.channel},
		strconv.FormatInt(due, 10), id[:], data)
	return q.failKeys(ctx, op, err)
}

// value decodes a script's reply holding one value, nil for none.
func (q *DelayedQueue[T]) value(ctx context.Context, op string, res any, err error) (T, bool, error) {
	var zero T
	if err != nil {
		return zero, false, q.failKeys(ctx, op, err)
	}
	data, ok := res.(string)
	if !ok {
		return zero, false, nil
	}
	v, err := q.decode(op, data)
	return v, err == nil, err
}

// Poll removes and returns the entry offered first, due or not, and false
// when there is none (Redisson's poll script: the head of the entry list).
// A value the codec cannot decode is lost, as in Java: it was removed before
// it could be decoded.
func (q *DelayedQueue[T]) Poll(ctx context.Context) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("delayed queue", "poll")
	}
	const op = "poll"
	if err := q.check(ctx, op); err != nil {
		var zero T
		return zero, false, err
	}
	res, err := delayedPollScript.RunNoRetry(context.WithoutCancel(ctx), q.rdb(), []string{q.queue, q.timeout})
	return q.value(ctx, op, res, err)
}

// Peek returns the entry offered first without removing it, and false when
// there is none.
func (q *DelayedQueue[T]) Peek(ctx context.Context) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("delayed queue", "peek")
	}
	const op = "peek"
	if err := q.check(ctx, op); err != nil {
		var zero T
		return zero, false, err
	}
	res, err := delayedPeekScript.Run(ctx, q.rdb(), []string{q.queue})
	return q.value(ctx, op, res, err)
}

// Size returns the number of entries not yet moved (LLEN of the entry
// list).
func (q *DelayedQueue[T]) Size(ctx context.Context) (int64, error) {
	if q == nil {
		return *new(int64), core.NilHandle("delayed queue", "size")
	}
	const op = "size"
	if err := q.check(ctx, op); err != nil {
		return 0, err
	}
	n, err := q.rdb().LLen(ctx, q.queue).Result()
	if err != nil {
		return 0, q.failKeys(ctx, op, err)
	}
	return n, nil
}

// ReadAll returns the values of the entries not yet moved, in offer order.
func (q *DelayedQueue[T]) ReadAll(ctx context.Context) ([]T, error) {
	if q == nil {
		return *new([]T), core.NilHandle("delayed queue", "read all")
	}
	const op = "read all"
	if err := q.check(ctx, op); err != nil {
		return nil, err
	}
	res, err := delayedReadAllScript.Run(ctx, q.rdb(), []string{q.queue})
	if err != nil {
		return nil, q.failKeys(ctx, op, err)
	}
	items, _ := res.([]any)
	out := make([]T, 0, len(items))
	for _, it := range items {
		s, _ := it.(string)
		v, err := q.decode(op, s)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Contains reports whether an entry not yet moved holds a value that
// encodes to the same bytes as v.
func (q *DelayedQueue[T]) Contains(ctx context.Context, v T) (bool, error) {
	if q == nil {
		return false, core.NilHandle("delayed queue", "contains")
	}
	const op = "contains"
	if err := q.check(ctx, op); err != nil {
		return false, err
	}
	data, err := q.encode(op, v)
	if err != nil {
		return false, err
	}
	res, err := delayedContainsScript.Run(ctx, q.rdb(), []string{q.queue}, data)
	if err != nil {
		return false, q.failKeys(ctx, op, err)
	}
	return res == int64(1), nil
}

// Remove removes the first entry (in offer order) holding a value that
// encodes to the same bytes as v, and reports whether there was one.
func (q *DelayedQueue[T]) Remove(ctx context.Context, v T) (bool, error) {
	if q == nil {
		return false, core.NilHandle("delayed queue", "remove")
	}
	const op = "remove"
	if err := q.check(ctx, op); err != nil {
		return false, err
	}
	data, err := q.encode(op, v)
	if err != nil {
		return false, err
	}
	res, err := delayedRemoveScript.Run(ctx, q.rdb(), []string{q.queue, q.timeout}, data)
	if err != nil {
		return false, q.failKeys(ctx, op, err)
	}
	return res == int64(1), nil
}

// Delete deletes every entry not yet moved (DEL of the entry list and the
// timeout zset, Java's delete and clear) and reports whether there were
// any. The destination is left alone.
func (q *DelayedQueue[T]) Delete(ctx context.Context) (bool, error) {
	if q == nil {
		return false, core.NilHandle("delayed queue", "delete")
	}
	const op = "delete"
	if err := q.check(ctx, op); err != nil {
		return false, err
	}
	n, err := q.rdb().Del(ctx, q.queue, q.timeout).Result()
	if err != nil {
		return false, q.failKeys(ctx, op, err)
	}
	return n > 0, nil
}

// transfer is a delayed queue's transfer task (see DelayedQueue).
type transfer struct {
	rt                            *core.Runtime
	dest, timeout, queue, channel string

	mu     sync.Mutex
	runNow bool  // subscribed (again): move what is due
	due    int64 // the earliest published due time not yet acted on; 0: none
	ended  bool  // the hub ended the subscription
	wake   chan struct{}

	ctx    context.Context // done on stop or when the client closes
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func startTransfer(rt *core.Runtime, dest, timeout, queue, channel string) *transfer {
	t := &transfer{rt: rt, dest: dest, timeout: timeout, queue: queue, channel: channel,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	t.ctx, t.cancel = context.WithCancel(rt.Lifetime())
	go t.run()
	return t
}

func (t *transfer) stop() {
	t.halt()
	<-t.done
}

// halt tells the task to stop, without waiting.
func (t *transfer) halt() { t.once.Do(t.cancel) }

func (t *transfer) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Message, Gap and End make the transfer the hub's Sink: they are called
// with the hub's lock held and only note what to do.
func (t *transfer) Message(m hub.Message) bool {
	due, err := strconv.ParseInt(m.Payload, 10, 64)
	if err != nil {
		return true
	}
	t.mu.Lock()
	if t.due == 0 || due < t.due {
		t.due = due
	}
	t.mu.Unlock()
	t.signal()
	return true
}

func (t *transfer) Gap() {
	t.mu.Lock()
	t.runNow = true
	t.mu.Unlock()
	t.signal()
}

func (t *transfer) End(error) {
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
	t.signal()
}

// run is the task: subscribe, move what is due, then sleep until the
// earliest due time known, a message or a resubscription.
func (t *transfer) run() {
	defer close(t.done)
	log := t.rt.Logger()
	var l *hub.Listener
	defer func() {
		if l != nil {
			l.Close()
		}
	}()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var next int64 // when to run next, ms; 0: not scheduled
	for {
		if l == nil {
			var err error
			l, err = t.rt.Hub().Listen(t.ctx, hub.Channel, t.channel, t)
			if err != nil {
				if t.ctx.Err() != nil {
					return
				}
				log.Warn("redisson: a delayed queue's transfer task could not subscribe; trying again",
					"channel", t.channel, "in", transferRetry, "err", err)
				if sleep(t.ctx, t.rt.Lifetime(), transferRetry) != nil {
					return
				}
				continue
			}
			// Subscribed: move what is due now (Redisson's onSubscribe).
			t.Gap()
		}
		t.mu.Lock()
		runNow, due, ended := t.runNow, t.due, t.ended
		t.runNow, t.due, t.ended = false, 0, false
		t.mu.Unlock()
		if ended {
			l.Close()
			l = nil
			continue
		}
		if due != 0 && (next == 0 || due < next) {
			next = due
		}
		now := time.Now().UnixMilli()
		if runNow || next != 0 && next <= now {
			next = t.transfer(now)
			continue
		}
		wait := time.Hour
		if next != 0 {
			wait = time.Duration(next-now) * time.Millisecond
		}
		timer.Reset(wait)
		select {
		case <-t.wake:
		case <-timer.C:
		case <-t.ctx.Done():
			return
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// transfer runs the transfer script once and returns when to run next: the
// due time of the next entry, 0 when there is none, 5 s later after a
// failure.
func (t *transfer) transfer(now int64) int64 {
	if t.ctx.Err() != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(t.ctx, t.rt.Timeout())
	defer cancel()
	res, err := delayedTransferScript.Run(ctx, t.rt.Redis(), []string{t.dest, t.timeout, t.queue},
		strconv.FormatInt(now, 10), transferLimit)
	if err != nil {
		if t.ctx.Err() == nil {
			if errors.Is(err, core.ErrWrongType) {
				err = wrongKey(ctx, t.rt.Redis(), [][2]string{{t.timeout, "zset"}, {t.queue, "list"}, {t.dest, "list"}})
			}
			t.rt.Logger().Error("redisson: a delayed queue's transfer failed; trying again",
				"queue", t.dest, "in", transferRetry, "err", err)
		}
		return time.Now().Add(transferRetry).UnixMilli()
	}
	s, ok := res.(string)
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return max(int64(f), 1)
}
