package pubsub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/source"
)

// DefaultReliableWatchdogTimeout is how long a reliable topic subscriber's
// registration lives without renewal: Redisson's default
// reliableTopicWatchdogTimeout (10 minutes). A live subscription renews it
// every third of it.
const DefaultReliableWatchdogTimeout = 10 * time.Minute

// ErrSubscriberGone is the cause a ReliableSubscription ends with when its
// registration vanished while it ran: it was not renewed in time (another
// subscriber then destroys its consumer group as expired), or someone
// removed its group. Messages published meanwhile may be missing.
var ErrSubscriberGone = errors.New("subscriber registration expired or removed")

// ReliableOption configures one ReliableTopic subscription.
type ReliableOption func(*reliableOptions)

type reliableOptions struct {
	watchdog  time.Duration
	readCount int
}

// WithWatchdogTimeout sets how long the subscription's registration in
// {name}:timeout lives without renewal (Redisson's
// reliableTopicWatchdogTimeout; default DefaultReliableWatchdogTimeout,
// at least 3 ms). It is renewed every third of it; a subscriber that stops
// renewing (its process died) is unregistered, and its consumer group
// destroyed, by the next subscriber that polls after it expired.
func WithWatchdogTimeout(d time.Duration) ReliableOption {
	return func(o *reliableOptions) { o.watchdog = d }
}

// WithReadCount caps how many new entries one read takes (XREADGROUP ...
// COUNT n). The default, 0, sends no COUNT, as Redisson does: a read then
// takes every entry the subscriber has not read yet in one reply, the
// whole backlog for a new subscriber of a long stream, which Redis, the
// network and this process hold at once. A cap bounds that memory; the
// reader then reads again, at once, for the next n.
func WithReadCount(n int) ReliableOption {
	return func(o *reliableOptions) { o.readCount = n }
}

// The scripts: the same Redis calls, keys and arguments as Redisson's
// RReliableTopic, in the same order (the interop records compare them).
var (
	// KEYS: stream. ARGV: encoded message. Returns the number of groups.
	reliablePublishScript = core.NewScript("reliableTopic.publish", lua.MustText(luaFiles, "lua/reliable_topic_publish.lua"))

	// KEYS: stream, timeout zset. ARGV: start id, subscriber id, expiry ms.
	reliableRegisterScript = core.NewScript("reliableTopic.register", lua.MustText(luaFiles, "lua/reliable_topic_register.lua"))

	// KEYS: stream. ARGV: group, start, end, count. Returns the entries
	// delivered to the group but not acknowledged, oldest first.
	reliablePendingScript = core.NewScript("reliableTopic.pending", lua.MustText(luaFiles, "lua/reliable_topic_pending.lua"))

	// KEYS: stream, timeout zset. ARGV: subscriber id, now ms. Destroys
	// the groups whose registration expired, trims the stream to what the
	// slowest group has not read (by the ms of its last delivered id, as
	// Redisson does) and returns 1 while the caller is still registered.
	reliableUpdateScript = core.NewScript("reliableTopic.update", lua.MustText(luaFiles, "lua/reliable_topic_update.lua"))

	// KEYS: timeout zset. ARGV: expiry ms, subscriber id. Returns 0 when
	// the registration is gone.
	reliableRenewScript = core.NewScript("reliableTopic.renew", lua.MustText(luaFiles, "lua/reliable_topic_renew.lua"))

	// KEYS: stream, timeout zset. ARGV: subscriber id.
	reliableRemoveScript = core.NewScript("reliableTopic.remove", lua.MustText(luaFiles, "lua/reliable_topic_remove.lua"))

	// KEYS: stream. Returns the number of groups, 0 without the stream.
	reliableCountScript = core.NewScript("reliableTopic.countSubscribers", lua.MustText(luaFiles, "lua/reliable_topic_count_subscribers.lua"))
)

// reliableConsumer is the consumer name every subscriber uses in its own
// group, as Redisson does.
const reliableConsumer = "consumer"

// pendingBatch is how many unacknowledged entries one poll re-reads, as
// Redisson.
const pendingBatch = "100"

// retryDelay is the pause after a failed poll before the next, as Redisson.
const retryDelay = time.Second

// closeTimeout bounds Close's unregistration.
const closeTimeout = 10 * time.Second

// ReliableTopic is Redisson's RReliableTopic<T>: a stream under the topic's
// name (field "m" holds the encoded message) with at-least-once delivery to
// every subscriber. Each subscription is one subscriber: a consumer group
// of a random 32-hex id, created at stream id 0 (so it also gets what is
// still in the stream), registered with an expiry in the zset
// {name}:timeout and renewed while it runs. See docs/topics.md.
type ReliableTopic[T any] struct {
	name    string
	timeout string // {name}:timeout
	codec   codec.Codec
	src     *backend
	err     error
}

// NewReliableTopic returns the reliable topic called name on src, encoded
// with cd (redisson.NewReliableTopic). An empty name, a nil codec or a
// nil Source gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument).
func NewReliableTopic[T any](src *source.Source, name string, cd codec.Codec) *ReliableTopic[T] {
	t := &ReliableTopic[T]{name: name, timeout: core.SuffixName(name, "timeout"), codec: cd, src: backendOf(src)}
	t.err = core.CheckName(name, t.timeout)
	switch {
	case t.err != nil:
	case cd == nil:
		t.err = fmt.Errorf("%w: nil codec", core.ErrInvalidArgument)
	case t.src == nil || t.src.rdb == nil:
		t.err = fmt.Errorf("%w: nil Source (get topics from a redisson.Client)", core.ErrInvalidArgument)
	}
	return t
}

// Name returns the topic's name, which is also its stream's key.
func (t *ReliableTopic[T]) Name() string { return t.name }

func (t *ReliableTopic[T]) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: "reliable topic", Name: t.name, Op: op, Err: err}
}

func (t *ReliableTopic[T]) check(op string) error {
	if t.err != nil {
		return t.fail(op, t.err)
	}
	if t.src.life.Err() != nil {
		return t.fail(op, context.Cause(t.src.life))
	}
	return nil
}

// Publish appends msg to the stream (XADD name * m <encoded msg>) and
// returns the number of subscribers registered at that moment (consumer
// groups, Java's and Go's), as Java's publish does. The message is kept
// for subscribers that have not read it yet, also when there are none
// (the next subscriber starts at the beginning of the stream).
func (t *ReliableTopic[T]) Publish(ctx context.Context, msg T) (subscribers int64, err error) {
	const op = "publish"
	if err := t.check(op); err != nil {
		return 0, err
	}
	data, err := t.codec.Encode(msg)
	if err != nil {
		return 0, t.fail(op, err)
	}
	// XADD with an auto id is not idempotent: never sent twice.
	res, err := reliablePublishScript.RunNoRetry(ctx, t.src.rdb, []string{t.name}, data)
	if err != nil {
		return 0, t.fail(op, err)
	}
	n, _ := res.(int64)
	return n, nil
}

// CountSubscribers returns the number of subscribers (consumer groups of
// the stream, Java's and Go's), Java's countSubscribers; 0 without the
// stream.
func (t *ReliableTopic[T]) CountSubscribers(ctx context.Context) (int64, error) {
	const op = "count subscribers"
	if err := t.check(op); err != nil {
		return 0, err
	}
	res, err := reliableCountScript.Run(ctx, t.src.rdb, []string{t.name})
	if err != nil {
		return 0, t.fail(op, err)
	}
	n, _ := res.(int64)
	return n, nil
}

// Size returns the number of messages in the stream (XLEN), Java's size:
// those some subscriber has not read yet, and up to a few it has.
func (t *ReliableTopic[T]) Size(ctx context.Context) (int64, error) {
	const op = "size"
	if err := t.check(op); err != nil {
		return 0, err
	}
	n, err := t.src.rdb.XLen(ctx, t.name).Result()
	if err != nil {
		return 0, t.fail(op, core.WrapRedisError("XLEN", err))
	}
	return n, nil
}

// listenerCounts are the open subscriptions per client (its hub) and topic
// name, for CountListeners.
var listenerCounts = struct {
	sync.Mutex
	m map[listenerKey]int
}{m: map[listenerKey]int{}}

type listenerKey struct {
	hub  *hub.Hub
	name string
}

func (t *ReliableTopic[T]) countListener(delta int) {
	k := listenerKey{t.src.hub, t.name}
	listenerCounts.Lock()
	defer listenerCounts.Unlock()
	listenerCounts.m[k] += delta
	if listenerCounts.m[k] <= 0 {
		delete(listenerCounts.m, k)
	}
}

// CountListeners returns how many open subscriptions of the topic this
// client has (Java's countListeners counts the listeners of one
// RReliableTopic instance; in Go every subscription is its own subscriber).
func (t *ReliableTopic[T]) CountListeners() int {
	if t.err != nil {
		return 0
	}
	listenerCounts.Lock()
	defer listenerCounts.Unlock()
	return listenerCounts.m[listenerKey{t.src.hub, t.name}]
}

// newSubscriberID returns 16 random bytes in hex, the form of Redisson's
// generated ids.
func newSubscriberID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// blockingClient returns a go-redis client of its own, one connection to
// the node of the topic's key, for the subscription's XREADGROUP BLOCK 0:
// the block never holds a connection of the shared pool, and closing this
// client ends a blocked read at once.
func (t *ReliableTopic[T]) blockingClient(ctx context.Context) (*redis.Client, error) {
	var o *redis.Options
	switch c := t.src.rdb.(type) {
	case *redis.Client:
		o = c.Options()
	case *redis.ClusterClient:
		m, err := c.MasterForKey(ctx, t.name)
		if err != nil {
			return nil, err
		}
		o = m.Options()
	default:
		return nil, fmt.Errorf("%w: a reliable topic needs a *redis.Client or *redis.ClusterClient, not %T",
			core.ErrInvalidArgument, t.src.rdb)
	}
	cp := conns.SideOptions(o)
	cp.PoolSize, cp.MinIdleConns, cp.MaxIdleConns, cp.MaxActiveConns = 1, 0, 1, 1
	cp.ReadTimeout = -1 // BLOCK 0 waits for the next message, however long
	cp.MaxRetries = -1  // a lost reply is handled by the poll loop (pending entries)
	return redis.NewClient(&cp), nil
}

// Subscribe registers a new subscriber and returns once it is registered
// (ZADD {name}:timeout, XGROUP CREATE name <id> 0 MKSTREAM): every message
// still in the stream and every message published after Subscribe returns
// is delivered on Messages. A ctx done before that leaves no registration
// behind. Close the subscription when done: it removes the registration.
// Options: WithWatchdogTimeout, WithReadCount.
func (t *ReliableTopic[T]) Subscribe(ctx context.Context, opts ...ReliableOption) (*ReliableSubscription[T], error) {
	const op = "subscribe"
	if err := t.check(op); err != nil {
		return nil, err
	}
	o := reliableOptions{watchdog: DefaultReliableWatchdogTimeout}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.watchdog < 3*time.Millisecond {
		return nil, t.fail(op, fmt.Errorf("%w: the watchdog timeout must be at least 3ms, got %v",
			core.ErrInvalidArgument, o.watchdog))
	}
	if o.readCount < 0 {
		return nil, t.fail(op, fmt.Errorf("%w: the read count must not be negative, got %d",
			core.ErrInvalidArgument, o.readCount))
	}
	blk, err := t.blockingClient(ctx)
	if err != nil {
		return nil, t.fail(op, err)
	}
	id := newSubscriberID()
	expiry := time.Now().Add(o.watchdog).UnixMilli()
	_, err = reliableRegisterScript.RunNoRetry(ctx, t.src.rdb, []string{t.name, t.timeout},
		"0", id, strconv.FormatInt(expiry, 10))
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		_ = blk.Close()
		// The script may have run (a reply lost to ctx or the network),
		// or half run (the ZADD before a failed XGROUP CREATE): undo.
		t.unregister(id)
		if t.src.life.Err() != nil {
			err = context.Cause(t.src.life)
		}
		return nil, t.fail(op, err)
	}
	s := &ReliableSubscription[T]{
		t: t, id: id, watchdog: o.watchdog, readCount: o.readCount, blk: blk,
		out:  make(chan Message[T]),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	t.countListener(1)
	s.wg.Add(2)
	go s.read()
	go s.renew()
	go func() {
		select {
		case <-t.src.life.Done():
			s.halt(t.fail("receive", context.Cause(t.src.life)))
		case <-s.stop:
		}
		s.wg.Wait()
		t.countListener(-1)
		s.err = s.cause
		// done before out: a consumer that sees Messages closed must find
		// Err set.
		close(s.done)
		close(s.out)
	}()
	return s, nil
}

// unregister removes subscriber id: its group and its registration.
func (t *ReliableTopic[T]) unregister(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_, err := reliableRemoveScript.Run(ctx, t.src.rdb, []string{t.name, t.timeout}, id)
	return err
}

// ReliableSubscription is one subscriber of a ReliableTopic: its messages
// arrive, decoded, on Messages, in stream order. Close it when done.
//
// A message is acknowledged (XACK, the subscriber's offset) right after
// the consumer has received it from Messages, as Java acknowledges after
// its listener returned; the reader then waits for the next receive, so
// nothing is ever dropped and a slow consumer holds up its own
// subscription only.
type ReliableSubscription[T any] struct {
	t         *ReliableTopic[T]
	id        string
	watchdog  time.Duration
	readCount int // COUNT of XREADGROUP; 0: none, as Redisson
	bmu       sync.Mutex
	blk       *redis.Client // the dedicated connection of XREADGROUP BLOCK; nil once halted

	ctx    context.Context // cancelled by halt
	cancel context.CancelFunc
	out    chan Message[T]
	stop   chan struct{} // closed by halt
	done   chan struct{} // closed when the goroutines ended
	wg     sync.WaitGroup
	once   sync.Once
	cause  error // why it ended, set by the first halt
	err    error // cause, published when done is closed
	closed sync.Once
	cerr   error
}

// ID returns the subscriber id: the name of its consumer group and its
// member of {name}:timeout.
func (s *ReliableSubscription[T]) ID() string { return s.id }

// Messages returns the channel the messages arrive on, oldest first. Each
// Message has Channel (the topic name), ID (the stream entry id) and Value,
// or Err when the entry cannot be decoded. It is closed when the
// subscription ends: after Close, when the client closes, or when the
// registration vanished (Err tells which).
func (s *ReliableSubscription[T]) Messages() <-chan Message[T] { return s.out }

// Err returns why Messages was closed: nil after Close, an error wrapping
// redisson.ErrClosed when the client was closed, or one wrapping
// ErrSubscriberGone. It returns nil while the subscription is open.
func (s *ReliableSubscription[T]) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// halt ends the goroutines with cause (nil for Close).
func (s *ReliableSubscription[T]) halt(cause error) {
	s.once.Do(func() {
		s.cause = cause
		close(s.stop)
		s.cancel()
		s.bmu.Lock()
		blk := s.blk
		s.blk = nil
		s.bmu.Unlock()
		_ = blk.Close() // ends a blocked XREADGROUP
	})
}

// Close ends the subscription and removes the subscriber from Redis, as
// Java's removeAllListeners: its consumer group (XGROUP DESTROY) and its
// registration (ZREM {name}:timeout). Messages is closed; entries it had
// read but not handed over are left to the destroyed group. It returns an
// error when the removal failed (the registration then expires after the
// watchdog timeout); after the client's Close it removes nothing (like
// Java's shutdown: the registration expires) and returns nil.
func (s *ReliableSubscription[T]) Close() error {
	s.halt(nil)
	<-s.done
	s.closed.Do(func() {
		if s.t.src.life.Err() != nil || errors.Is(s.err, ErrSubscriberGone) {
			return
		}
		if err := s.t.unregister(s.id); err != nil {
			s.cerr = s.t.fail("unsubscribe", err)
		}
	})
	return s.cerr
}

// sleep waits d; false when the subscription ends first.
func (s *ReliableSubscription[T]) sleep(d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-s.stop:
		return false
	}
}

func (s *ReliableSubscription[T]) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// renew re-sets the registration's expiry to now + watchdog every third of
// the watchdog, as Redisson's timer does.
func (s *ReliableSubscription[T]) renew() {
	defer s.wg.Done()
	t := s.t
	for s.sleep(s.watchdog / 3) {
		expiry := time.Now().Add(s.watchdog).UnixMilli()
		res, err := reliableRenewScript.Run(s.ctx, t.src.rdb, []string{t.timeout},
			strconv.FormatInt(expiry, 10), s.id)
		if err != nil {
			continue // a network error: the next tick tries again
		}
		if n, _ := res.(int64); n == 0 {
			s.halt(t.fail("receive", ErrSubscriberGone))
			return
		}
	}
}

// read is the poll loop, Redisson's: re-read the entries delivered but not
// acknowledged (XPENDING), else block for new ones (XREADGROUP ... BLOCK 0
// ... >), hand each to the consumer and acknowledge it, then run the
// update script (expire dead subscribers, trim the stream) and loop.
func (s *ReliableSubscription[T]) read() {
	defer s.wg.Done()
	t := s.t
	keys := []string{t.name, t.timeout}
	for !s.stopped() {
		entries, err := s.poll()
		if err != nil {
			if s.stopped() {
				return
			}
			if strings.HasPrefix(err.Error(), "NOGROUP") {
				s.halt(t.fail("receive", ErrSubscriberGone))
				return
			}
			if !s.reconnect() || !s.sleep(retryDelay) {
				return
			}
			continue
		}
		for _, e := range entries {
			m := s.decode(e)
			select {
			case s.out <- m:
			case <-s.stop:
				return
			}
			if !s.ack(e.ID) {
				return
			}
		}
		res, err := reliableUpdateScript.Run(s.ctx, t.src.rdb, keys, s.id,
			strconv.FormatInt(time.Now().UnixMilli(), 10))
		if err != nil {
			if !s.sleep(retryDelay) {
				return
			}
			continue
		}
		if n, _ := res.(int64); n == 0 {
			s.halt(t.fail("receive", ErrSubscriberGone))
			return
		}
	}
}

// ack acknowledges entry id, which the consumer has received. Until the
// XACK succeeds the entry stays pending, and the next poll would hand it
// over again: so a failed XACK (Redis restarting, a failover, the network)
// is sent again every retryDelay, XACK being idempotent, before anything
// else is read. Only the process' end between the receive and the XACK
// can duplicate an entry. false when the subscription ended meanwhile.
func (s *ReliableSubscription[T]) ack(id string) bool {
	t := s.t
	for {
		err := t.src.rdb.XAck(s.ctx, t.name, s.id, id).Err()
		switch {
		case err == nil:
			return true
		case s.stopped():
			return false
		case strings.HasPrefix(err.Error(), "NOGROUP"):
			s.halt(t.fail("receive", ErrSubscriberGone))
			return false
		}
		if !s.sleep(retryDelay) {
			return false
		}
	}
}

// reconnect replaces the dedicated client after a failed read (on a
// cluster, the slot may have moved); false when the subscription ended.
func (s *ReliableSubscription[T]) reconnect() bool {
	blk, err := s.t.blockingClient(s.ctx)
	if err != nil {
		return !s.stopped()
	}
	s.bmu.Lock()
	old := s.blk
	if old != nil {
		s.blk = blk
	}
	s.bmu.Unlock()
	if old == nil { // halted meanwhile
		_ = blk.Close()
		return false
	}
	_ = old.Close()
	return true
}

// currentBlk returns the dedicated client, or nil once halted.
func (s *ReliableSubscription[T]) currentBlk() *redis.Client {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	return s.blk
}

// poll returns the pending entries, or blocks for new ones.
func (s *ReliableSubscription[T]) poll() ([]redis.XMessage, error) {
	t := s.t
	res, err := reliablePendingScript.Run(s.ctx, t.src.rdb, []string{t.name}, s.id, "-", "+", pendingBatch)
	if err != nil {
		return nil, err
	}
	if pending := parseEntries(res); len(pending) > 0 {
		return pending, nil
	}
	args := []any{"XREADGROUP", "GROUP", s.id, reliableConsumer}
	if s.readCount > 0 {
		args = append(args, "COUNT", s.readCount)
	}
	args = append(args, "BLOCK", "0", "STREAMS", t.name, ">")
	cmd := redis.NewXStreamSliceCmd(s.ctx, args...)
	blk := s.currentBlk()
	if blk == nil {
		return nil, core.ErrClosed
	}
	if err := blk.Process(s.ctx, cmd); err != nil {
		return nil, err
	}
	var out []redis.XMessage
	for _, st := range cmd.Val() {
		out = append(out, st.Messages...)
	}
	return out, nil
}

// parseEntries reads a script's array of [id, [field, value, ...]].
func parseEntries(res any) []redis.XMessage {
	list, _ := res.([]any)
	out := make([]redis.XMessage, 0, len(list))
	for _, e := range list {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			continue
		}
		id, _ := pair[0].(string)
		fields, _ := pair[1].([]any)
		vals := map[string]any{}
		for i := 0; i+1 < len(fields); i += 2 {
			f, _ := fields[i].(string)
			vals[f] = fields[i+1]
		}
		out = append(out, redis.XMessage{ID: id, Values: vals})
	}
	return out
}

func (s *ReliableSubscription[T]) decode(e redis.XMessage) Message[T] {
	m := Message[T]{Channel: s.t.name, ID: e.ID}
	v, ok := e.Values["m"].(string)
	if !ok {
		m.Err = s.t.fail("receive", fmt.Errorf("%w: entry %s has no field m", codec.ErrDecode, e.ID))
		return m
	}
	if err := s.t.codec.Decode([]byte(v), &m.Value); err != nil {
		var zero T
		m.Value = zero
		m.Err = s.t.fail("receive", err)
	}
	return m
}
