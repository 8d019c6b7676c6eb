package localcache

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/observe"
)

// clearReleaseScript answers a Java clearLocalCache: the clearing
// instance waits for one permit per receiver of its clear message.
var clearReleaseScript = core.NewScript("local cache clear release", lua.MustText(luaFiles, "lua/clear_release.lua"))

// logWindow is how long Redisson keeps (and trusts) the updates log:
// cacheUpdateLogTime, 10 minutes.
const logWindow = 10 * time.Minute

// logMargin widens the updates log's window back in time: the log is
// scored by each writer's clock, and a message in flight when the
// connection broke was written before its arrival. Dropping a few keys
// more costs a read each; missing one would leave it stale.
const logMargin = time.Minute

// listener is the map's subscription to {NAME}:topic: the hub's Sink, the
// state Redisson's LocalCacheListener keeps (keys and the whole cache
// disabled by transactions), and a worker for what a message asks of
// Redis (acks, semaphore releases, the reload after a gap, the log's
// trimming): the hub's reader must never wait on Redis.
type listener[K comparable, V any] struct {
	m        *LocalCachedMap[K, V]
	hl, hx   *hub.Listener // the topic's, the expired keys' pattern's
	messages atomic.Uint64
	lastSeen atomic.Int64 // unix ms of the last message or (re)subscription
	losses   atomic.Uint64
	ended    atomic.Bool
	tasks    chan func(context.Context)
	stop     chan struct{}
	done     chan struct{}

	dmu     sync.Mutex
	nOff    atomic.Int32               // len(keysOff) + len(allOff), read without dmu
	keysOff map[hash]map[string]uint64 // key hash -> request id -> its generation
	allOff  map[string]uint64          // request ids disabling the whole cache
	offGen  uint64
}

func newListener[K comparable, V any](m *LocalCachedMap[K, V]) *listener[K, V] {
	l := &listener[K, V]{
		m: m, tasks: make(chan func(context.Context), 64),
		stop: make(chan struct{}), done: make(chan struct{}),
		keysOff: map[hash]map[string]uint64{}, allOff: map[string]uint64{},
	}
	l.lastSeen.Store(time.Now().UnixMilli())
	return l
}

// ensure subscribes on the first call, and again after the hub ended the
// subscription (Redis refused it when it was made again).
func (m *LocalCachedMap[K, V]) ensure(ctx context.Context, op string) error {
	if l := m.lis.Load(); l != nil && !l.ended.Load() {
		return nil
	}
	m.life.Lock()
	defer m.life.Unlock()
	if m.closed.Load() {
		return m.named(op, fmt.Errorf("%w: the local cached map was closed", core.ErrClosed))
	}
	if l := m.lis.Load(); l != nil && !l.ended.Load() {
		return nil
	}
	l := newListener(m)
	if err := l.listen(ctx); err != nil {
		return m.named(op, err)
	}
	go l.work()
	// Whatever was cached before (an earlier subscription that ended)
	// may have missed messages.
	m.clearLocal()
	m.down.Store(false)
	m.lis.Store(l)
	if m.opts.Sync != SyncNone {
		if err := l.readDisabled(ctx); err != nil {
			m.lis.Store(nil)
			l.close()
			return m.named(op, err)
		}
	}
	return nil
}

// Close stops listening to the topic and empties the near cache; later
// calls fail with ErrClosed. Idempotent.
func (m *LocalCachedMap[K, V]) Close() error {
	if m == nil || m.err != nil {
		return nil
	}
	m.life.Lock()
	defer m.life.Unlock()
	m.closed.Store(true)
	m.down.Store(true)
	if l := m.lis.Swap(nil); l != nil {
		l.close()
	}
	m.clearLocal()
	return nil
}

// Destroy is Close, Redisson's name for it.
func (m *LocalCachedMap[K, V]) Destroy() error { return m.Close() }

// listen subscribes, as Redisson's instance does: the pattern of expired
// keys (the map's key expiring clears the near cache) and, unless SyncNone
// without a reconnection strategy, the map's topic.
func (l *listener[K, V]) listen(ctx context.Context) error {
	m := l.m
	fail := func(what string, err error) error {
		if errors.Is(err, hub.ErrClosed) || m.rt.Lifetime().Err() != nil {
			err = core.ErrClosed
		}
		return fmt.Errorf("subscribing to %s: %w", what, err)
	}
	hx, err := m.rt.Hub().Listen(ctx, hub.Pattern, expiredPattern, expirySink[K, V]{l})
	if err != nil {
		return fail(expiredPattern, err)
	}
	l.hx = hx
	if m.opts.Sync == SyncNone && m.opts.Reconnection == ReconnectNone {
		return nil // the topic would tell it nothing it uses
	}
	kind := hub.Channel
	if m.rt.PublishCommand() == "SPUBLISH" {
		kind = hub.Shard
	}
	hl, err := m.rt.Hub().Listen(ctx, kind, m.topic(), l)
	if err != nil {
		hx.Close()
		return fail(m.topic(), err)
	}
	l.hl = hl
	return nil
}

// expiredPattern is the keyspace event channel of expired keys, every
// database (Redisson's default ExpirationEventPolicy,
// SUBSCRIBE_WITH_KEYEVENT_PATTERN). Redis sends on it only when
// notify-keyspace-events enables expired events.
const expiredPattern = "__keyevent@*:expired"

// expirySink clears the near cache when the map's key expired.
type expirySink[K comparable, V any] struct{ l *listener[K, V] }

func (s expirySink[K, V]) Message(hm hub.Message) bool {
	if hm.Payload == s.l.m.name {
		s.l.m.dropped(observe.LocalCacheClear, s.l.m.clearLocal())
	}
	return true
}

func (expirySink[K, V]) Gap()      {}
func (expirySink[K, V]) End(error) {}

func (l *listener[K, V]) close() {
	l.hx.Close()
	if l.hl != nil {
		l.hl.Close()
	}
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
}

// Message is the hub's: one message of the topic. It runs on the hub's
// reader with the hub's lock held: it changes the near cache and queues
// whatever needs Redis.
func (l *listener[K, V]) Message(hm hub.Message) bool {
	l.messages.Add(1)
	l.lastSeen.Store(time.Now().UnixMilli())
	if l.m.opts.Sync == SyncNone {
		return true
	}
	l.handle([]byte(hm.Payload))
	return true
}

func (l *listener[K, V]) handle(payload []byte) {
	m := l.m
	msg, err := decode(payload)
	if err != nil {
		// Not understood: it may have said anything about any key.
		m.dropped(observe.LocalCacheGarbled, m.clearLocal())
		m.rt.Logger().Warn("redisson local cached map: a message it does not understand; near cache cleared",
			"name", m.name, "bytes", len(payload))
		return
	}
	own := msg.sender == m.id
	switch msg.kind {
	case msgClear:
		if !own {
			m.dropped(observe.LocalCacheClear, m.clearLocal())
			if msg.release {
				l.queue(func(ctx context.Context) { l.releaseClear(ctx, msg.request) })
			}
		}
	case msgInvalidate:
		if !own {
			for _, h := range msg.hashes {
				m.changed(h)
			}
			m.dropped(observe.LocalCacheInvalidate, m.store.drop(msg.hashes))
		}
	case msgUpdate:
		if !own {
			l.update(msg.entries)
		}
	case msgDisable:
		l.disable(msg)
		l.queue(func(ctx context.Context) { l.ack(ctx, msg.reqID) })
	case msgEnable:
		l.enable(msg.reqID, msg.hashes, msg.all)
	}
}

// update stores the entries of an UPDATE message; one whose key or value
// does not decode is dropped instead.
func (l *listener[K, V]) update(entries []update) {
	m := l.m
	stored := 0
	defer func() { m.observe(observe.LocalCacheUpdate, stored) }()
	for _, e := range entries {
		h := keyHash(e.key)
		m.changed(h)
		var key K
		var v V
		if m.keys.Decode(e.key, &key) != nil || m.values.Decode(e.value, &v) != nil || m.ifaceKey && !hashable(key) {
			m.invalidations.Add(uint64(m.store.drop([]hash{h})))
			continue
		}
		s := m.store
		s.mu.Lock()
		if !l.disabled(h) {
			s.putLocked(key, h, v)
			stored++
		}
		s.mu.Unlock()
	}
}

// Gap is the hub's: the subscription was made again, and what was
// published meanwhile is lost. ReconnectLoad reloads what the updates log
// says changed; every other strategy clears (Redisson's NONE keeps the
// near cache, which may then be stale).
func (l *listener[K, V]) Gap() {
	m := l.m
	if m.opts.Reconnection == ReconnectLoad {
		m.down.Store(true)
		m.gen.Add(1)
		losses := l.losses.Load()
		since := time.UnixMilli(l.lastSeen.Load())
		if l.queue(func(ctx context.Context) { l.reload(ctx, since, losses) }) {
			return
		}
		// No room for the reload: clear instead.
	}
	m.dropped(observe.LocalCacheGap, m.clearLocal())
	l.lastSeen.Store(time.Now().UnixMilli())
	m.down.Store(false)
}

// Lost is the hub's: the subscription's connection broke. Until the
// subscription is back the near cache is neither read nor filled.
func (l *listener[K, V]) Lost() {
	l.losses.Add(1)
	l.m.down.Store(true)
	l.m.gen.Add(1)
}

// End is the hub's: the subscription ended for good. The near cache is
// cleared and not trusted; the next call subscribes again (or fails, the
// client being closed).
func (l *listener[K, V]) End(error) {
	l.ended.Store(true)
	l.m.down.Store(true)
	l.m.clearLocal()
}

// queue hands a task to the worker and reports whether it took it; when
// it is that far behind, the task is dropped (an ack or a release a Java
// peer then waits out; a reload Gap replaces by a clear).
func (l *listener[K, V]) queue(task func(context.Context)) bool {
	select {
	case l.tasks <- task:
		return true
	default:
		l.m.rt.Logger().Warn("redisson local cached map: too much to do for its messages; one dropped", "name", l.m.name)
		return false
	}
}

// work runs the queued tasks, and with ReconnectLoad trims the updates
// log as Redisson's eviction task does.
func (l *listener[K, V]) work() {
	defer close(l.done)
	life := l.m.rt.Lifetime()
	trim := newTrimmer(l.m.opts.Reconnection == ReconnectLoad)
	for {
		select {
		case <-l.stop:
			return
		case <-life.Done():
			return
		case task := <-l.tasks:
			ctx, cancel := context.WithTimeout(life, l.m.rt.Timeout())
			task(ctx)
			cancel()
		case <-trim.C():
			ctx, cancel := context.WithTimeout(life, l.m.rt.Timeout())
			trim.next(l.m.trimLog(ctx))
			cancel()
		}
	}
}

// reload is ReconnectLoad after a gap: drop the keys the updates log
// names since the last message seen (widened by logMargin), or everything
// when that is past the log's window, the map is gone or the log cannot
// be read. The near cache is trusted again only if the connection did not
// break once more meanwhile (a new gap reloads again).
func (l *listener[K, V]) reload(ctx context.Context, since time.Time, losses uint64) {
	m := l.m
	defer func() {
		if l.losses.Load() == losses {
			l.lastSeen.Store(time.Now().UnixMilli())
			m.down.Store(false)
		}
	}()
	if time.Since(since) > logWindow {
		m.dropped(observe.LocalCacheGap, m.clearLocal())
		return
	}
	rdb := m.rt.Redis()
	n, err := rdb.Exists(ctx, m.name).Result()
	if err != nil || n == 0 {
		m.dropped(observe.LocalCacheGap, m.clearLocal())
		return
	}
	from := since.Add(-logMargin).UnixMilli()
	entries, err := rdb.ZRangeByScore(ctx, m.updatesLog(), &redis.ZRangeBy{Min: strconv.FormatInt(from, 10), Max: "+inf"}).Result()
	if err != nil {
		m.dropped(observe.LocalCacheGap, m.clearLocal())
		return
	}
	hashes := make([]hash, 0, len(entries))
	for _, e := range entries {
		if len(e) < idLen {
			continue
		}
		var h hash
		copy(h[:], e)
		m.changed(h)
		hashes = append(hashes, h)
	}
	m.dropped(observe.LocalCacheGap, m.store.drop(hashes))
}

// releaseClear answers a clear that asks for it: one permit of the
// clearing instance's semaphore {NAME}:clear:<hex id>, if it still exists
// (Redisson 4.x's releaseIfExists; 3.52's release creates it when it is
// gone, which this does not).
func (l *listener[K, V]) releaseClear(ctx context.Context, request []byte) {
	m := l.m
	sem := m.name + ":clear:" + hex.EncodeToString(request)
	channel := core.PrefixName("redisson_sc", sem)
	if _, err := clearReleaseScript.RunNoRetry(ctx, m.rt.Redis(), []string{sem, channel}, 1, m.rt.PublishCommand()); err != nil {
		m.rt.Logger().Warn("redisson local cached map: releasing a clear's semaphore failed", "name", m.name, "err", err)
	}
}

// ack answers a transaction's disable message on {NAME}:<request id>:topic
// (plain PUBLISH, as Redisson's RTopic there).
func (l *listener[K, V]) ack(ctx context.Context, reqID string) {
	m := l.m
	channel := core.SuffixName(m.name, reqID+":topic")
	if err := m.rt.Redis().Publish(ctx, channel, []byte{msgDisableAck}).Err(); err != nil {
		m.rt.Logger().Warn("redisson local cached map: acknowledging a transaction failed", "name", m.name, "err", err)
	}
}

// disable is a transaction's LocalCachedMapDisable: the keys (or the
// whole cache) are dropped and not cached until the matching enable or
// the timeout.
func (l *listener[K, V]) disable(msg message) {
	l.dmu.Lock()
	l.offGen++
	gen := l.offGen
	for _, h := range msg.hashes {
		if l.keysOff[h] == nil {
			l.keysOff[h] = map[string]uint64{}
		}
		l.keysOff[h][msg.reqID] = gen
	}
	if msg.all {
		l.allOff[msg.reqID] = gen
	}
	l.nOff.Store(int32(len(l.keysOff) + len(l.allOff)))
	l.dmu.Unlock()
	m := l.m
	for _, h := range msg.hashes {
		m.changed(h)
	}
	n := m.store.drop(msg.hashes)
	if msg.all {
		n += m.clearLocal()
	}
	m.dropped(observe.LocalCacheDisable, n)
	hashes := msg.hashes
	time.AfterFunc(time.Duration(msg.timeout)*time.Millisecond, func() { l.expire(msg.reqID, hashes, msg.all, gen) })
}

// enable lifts what request reqID disabled.
func (l *listener[K, V]) enable(reqID string, hashes []hash, all bool) {
	l.dmu.Lock()
	defer l.dmu.Unlock()
	for _, h := range hashes {
		if ids := l.keysOff[h]; ids != nil {
			delete(ids, reqID)
			if len(ids) == 0 {
				delete(l.keysOff, h)
			}
		}
	}
	if all {
		delete(l.allOff, reqID)
	}
	l.nOff.Store(int32(len(l.keysOff) + len(l.allOff)))
}

// expire is a disable's timeout: it lifts that disable (gen), not a later
// one of the same request.
func (l *listener[K, V]) expire(reqID string, hashes []hash, all bool, gen uint64) {
	l.dmu.Lock()
	defer l.dmu.Unlock()
	for _, h := range hashes {
		if ids := l.keysOff[h]; ids != nil && ids[reqID] == gen {
			delete(ids, reqID)
			if len(ids) == 0 {
				delete(l.keysOff, h)
			}
		}
	}
	if all && l.allOff[reqID] == gen {
		delete(l.allOff, reqID)
	}
	l.nOff.Store(int32(len(l.keysOff) + len(l.allOff)))
}

// disabled reports whether caching h is disabled now.
func (l *listener[K, V]) disabled(h hash) bool {
	if l.nOff.Load() == 0 {
		return false
	}
	l.dmu.Lock()
	defer l.dmu.Unlock()
	return len(l.allOff) > 0 || l.keysOff[h] != nil
}

// readDisabled honours, at start, the transactions in progress that
// Redisson's instances read then: {NAME}:disabled-keys (a multimap cache
// whose keys are LocalCachedMapDisabledKey records) and, from Redisson
// 4.x, the set cache {NAME}:disabled-caches. Each record found disables
// the whole near cache for its timeout (Redisson disables only the keys
// the multimap lists: stricter, never staler).
func (l *listener[K, V]) readDisabled(ctx context.Context) error {
	m := l.m
	rdb := m.rt.Redis()
	now := time.Now().UnixMilli()
	caches, err := rdb.ZRangeByScore(ctx, core.SuffixName(m.name, "disabled-caches"),
		&redis.ZRangeBy{Min: strconv.FormatInt(now, 10), Max: "92233720368547758"}).Result()
	if err != nil {
		return fmt.Errorf("reading %s: %w", core.SuffixName(m.name, "disabled-caches"), err)
	}
	fields, err := rdb.HKeys(ctx, core.SuffixName(m.name, "disabled-keys")).Result()
	if err != nil {
		return fmt.Errorf("reading %s: %w", core.SuffixName(m.name, "disabled-keys"), err)
	}
	for _, f := range append(fields, caches...) {
		reqID, timeout, ok := parseDisabledKey([]byte(f))
		if !ok {
			continue
		}
		l.disable(message{kind: msgDisable, reqID: reqID, timeout: timeout, all: true})
	}
	return nil
}

// parseDisabledKey reads a LocalCachedMapDisabledKey: 0x06, the request
// id's length and bytes, the timeout in ms (int64).
func parseDisabledKey(b []byte) (string, int64, bool) {
	if len(b) < 2 || b[0] != 0x06 || len(b) != 2+int(b[1])+8 {
		return "", 0, false
	}
	n := int(b[1])
	return string(b[2 : 2+n]), int64(binary.BigEndian.Uint64(b[2+n:])), true
}

// Start subscribes to the map's topic now and reads what Redisson's
// instances read at start (the transactions in progress); otherwise the
// first call does. In StoreLocalCache mode, where the data lives only in
// the instances' near caches, start an instance before others write what
// it must see. Start after Start does nothing.
func (m *LocalCachedMap[K, V]) Start(ctx context.Context) error {
	if m == nil {
		return core.NilHandle(kind, "start")
	}
	return m.begin(ctx, "start")
}

// dropped counts n entries another instance's message (or a gap) dropped
// and tells the observer.
func (m *LocalCachedMap[K, V]) dropped(cause observe.LocalCacheCause, n int) {
	m.invalidations.Add(uint64(n))
	m.observe(cause, n)
}

// observe tells the client's observer, if it wants LocalCache events.
func (m *LocalCachedMap[K, V]) observe(cause observe.LocalCacheCause, n int) {
	if o := m.rt.Events().Observer(); o != nil && o.LocalCache != nil {
		o.LocalCache(observe.LocalCache{Name: m.name, Cause: cause, Entries: n})
	}
}
