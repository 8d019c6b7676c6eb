// Package hub is the subscription hub every object of a client shares.
//
// Waiters never poll: a goroutine that must wait for a lock, a permit or a
// latch registers with the hub on the object's channel and sleeps until a
// message wakes it (or its own timer, bounded by the lock's TTL, runs out).
// One Redis subscription serves every local waiter of a channel; it is made
// when the first waiter arrives and dropped when the last one leaves. All
// channels share one connection (one per master in sharded mode).
//
// The hub confirms a subscription before Subscribe returns, so a caller can
// subscribe, then try the lock once more, and never miss a release that
// happens between its failed try and the subscription. After a reconnect it
// resubscribes and wakes every waiter, so a message lost in the gap costs one
// retry, never a hang. A subscription Redis refuses (an ACL that does not
// allow the channel) fails its own callers at once; the connection and every
// other subscription stay.
//
// Topic subscriptions (package pubsub's Topic, PatternTopic, ShardedTopic)
// ride the same hub as Listeners: a Listener receives every message of its
// channel or pattern through a Sink that must never block, so a slow topic
// consumer cannot delay the reader goroutine that wakes lock waiters. A
// subscription has a Kind: SUBSCRIBE and PSUBSCRIBE share the plain
// connection, SSUBSCRIBE uses shard connections (one per master on a
// cluster). Lock waiters use the hub's own kind: Shard when Config.Sharded,
// else Channel.
package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/slot"
)

// ErrClosed is returned by Subscribe on a closed hub.
var ErrClosed = errors.New("subscriptions are closed")

// ErrNotConfirmed is wrapped by the error Subscribe returns when Redis did
// not confirm a subscription within Config.ConfirmTimeout.
var ErrNotConfirmed = errors.New("subscription not confirmed in time")

// ErrNoPermission is wrapped by the error of a subscription Redis refused
// with NOPERM: the connection's ACL user may not subscribe to the channel
// (or pattern), or not run the command. Package core re-exports it as
// core.ErrNoPermission, so one sentinel stands for every NOPERM.
var ErrNoPermission = errors.New("no permission")

// DefaultConfirmTimeout bounds the wait for a subscription's confirmation:
// Redisson's subscriptionTimeout default, 7.5 s.
const DefaultConfirmTimeout = 7500 * time.Millisecond

// All, returned by a WakePolicy, wakes every waiter of the channel.
const All = -1

// WakePolicy says how many local waiters one message wakes, given its
// payload: a number, or All.
type WakePolicy func(payload string) int

// LockPolicy is Redisson's LockPubSub: "0" (unlock) wakes one waiter, "1"
// (read-write unlock) wakes all, anything else nobody.
func LockPolicy(payload string) int {
	switch payload {
	case "0":
		return 1
	case "1":
		return All
	}
	return 0
}

// Kind is the flavour of a subscription.
type Kind uint8

const (
	// Channel is SUBSCRIBE, matching PUBLISH.
	Channel Kind = iota
	// Pattern is PSUBSCRIBE: the name is a glob pattern of channels.
	Pattern
	// Shard is SSUBSCRIBE, matching SPUBLISH (Redis 7+).
	Shard
)

// subKey names one Redis subscription: a channel and a pattern of the same
// text, or a channel subscribed both plainly and sharded, are different
// subscriptions.
type subKey struct {
	kind Kind
	name string
}

// Message is one message a Listener receives.
type Message struct {
	Channel string // the channel it was published to
	Pattern string // the pattern that matched (Pattern subscriptions only)
	Payload string
}

// Sink receives what a Listener's subscription brings. Its methods are
// called from the connection's reader goroutine with the hub's lock held:
// they must return at once and must not call the hub.
type Sink interface {
	// Message hands over one message; false means the sink dropped it
	// (its buffer was full), which the hub counts in Stats.Dropped.
	Message(m Message) bool
	// Gap says that messages may have been missed: the subscription was
	// made again after a reconnect, a failover or a slot move, and what
	// was published while it was down did not arrive.
	Gap()
	// End says that the hub ended the subscription for good (the hub was
	// closed, the Redis client was closed under it, or Redis refused the
	// subscription when the hub made it again after a reconnect); nothing
	// follows.
	End(err error)
}

// Config configures a Hub.
type Config struct {
	// Client is the Redis client whose connections carry the subscriptions.
	Client redis.UniversalClient
	// Sharded subscribes with SSUBSCRIBE (matching SPUBLISH), one connection
	// per master, instead of SUBSCRIBE on one connection.
	Sharded bool
	// HealthCheck is how long a silent connection may stay silent before it
	// is pinged; a connection that misses two pings is replaced. Default 5 s.
	HealthCheck time.Duration
	// Logger receives connection problems. Default: discard.
	Logger *slog.Logger
	// ConfirmTimeout bounds how long Subscribe waits for Redis to confirm
	// a new subscription, whatever the caller's context allows. Default
	// DefaultConfirmTimeout.
	ConfirmTimeout time.Duration
	// OnConfirm, when set, is told when Redis confirms a subscription:
	// a new one (d counts from its request) or one made again after a
	// reconnect (resub; d counts from the loss of the connection). It is
	// called without the hub's lock and must not block.
	OnConfirm func(channel string, resub bool, d time.Duration)
}

// Hub multiplexes many waiters onto few Redis subscriptions.
type Hub struct {
	cfg     Config
	done    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	closed  bool
	broken  error // the client was closed under the hub; guarded by mu
	entries map[subKey]*entry
	conns   map[string]*conn
	dropped uint64 // messages Sinks refused; guarded by mu
}

// entry is one subscribed channel and its local waiters, in arrival order,
// and its listeners.
type entry struct {
	key        subKey
	policy     WakePolicy // nil until a waiter comes: listeners only
	c          *conn
	head, tail *Waiter
	n          int
	confirmed  bool
	ready      chan struct{}         // closed when confirmed or failed
	sent       time.Time             // when its subscribe was queued (with OnConfirm)
	err        error                 // why the subscription failed; set before ready closes
	ended      atomic.Pointer[error] // why a confirmed subscription ended
	listeners  []*Listener
}

// unused reports whether nobody needs the entry's subscription any more.
func (e *entry) unused() bool { return e.n == 0 && len(e.listeners) == 0 }

// Waiter is one goroutine's registration on a channel. Its C is signalled
// when a message (or a reconnect) says the waited-for state may have changed.
type Waiter struct {
	h          *Hub
	e          *entry
	prev, next *Waiter
	sig        chan struct{}
	gone       bool
	passOver   func() bool
	passGroup  any
}

// New returns a hub; it opens connections only when the first waiter comes.
func New(cfg Config) *Hub {
	if cfg.HealthCheck <= 0 {
		cfg.HealthCheck = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ConfirmTimeout <= 0 {
		cfg.ConfirmTimeout = DefaultConfirmTimeout
	}
	return &Hub{
		cfg:     cfg,
		done:    make(chan struct{}),
		entries: make(map[subKey]*entry),
		conns:   make(map[string]*conn),
	}
}

// Done is closed when the hub is closed.
func (h *Hub) Done() <-chan struct{} { return h.done }

// Subscribe registers a waiter on channel and returns once Redis has
// confirmed the subscription (at once when another waiter already holds it).
// policy decides how many waiters a message wakes; the first waiter of a
// channel sets it. The caller must Close the waiter. The channel is
// subscribed with the hub's kind: Shard when Config.Sharded, else Channel.
//
// The wait for the confirmation ends with the caller's context, with
// Config.ConfirmTimeout (an error wrapping ErrNotConfirmed; the connection
// is then replaced, since a confirmation that does not come means it is
// stuck), at once with an error wrapping redis.ErrClosed when the Redis
// client was closed under the hub, or at once with the error Redis
// answered: a refusal (NOPERM wraps ErrNoPermission) names the channel
// and fails the callers of that channel only.
func (h *Hub) Subscribe(ctx context.Context, channel string, policy WakePolicy) (*Waiter, error) {
	kind := Channel
	if h.cfg.Sharded {
		kind = Shard
	}
	var w *Waiter
	err := h.register(ctx, subKey{kind, channel}, func(e *entry) func() {
		if e.policy == nil {
			e.policy = policy
		}
		w = &Waiter{h: h, e: e, sig: make(chan struct{}, 1)}
		e.push(w)
		return func() { w.Close(false) }
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Listen registers sink for every message of the subscription kind/name and
// returns once Redis has confirmed it, with the same bounds as Subscribe.
// The caller must Close the listener.
func (h *Hub) Listen(ctx context.Context, kind Kind, name string, sink Sink) (*Listener, error) {
	var l *Listener
	err := h.register(ctx, subKey{kind, name}, func(e *entry) func() {
		l = &Listener{h: h, e: e, sink: sink}
		e.listeners = append(e.listeners, l)
		return l.Close
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// register adds a registrant (made by add, under the hub's lock, which
// returns how to take it out again) to the entry of key, subscribing key
// when it is new, and waits for the confirmation.
func (h *Hub) register(ctx context.Context, key subKey, add func(*entry) (undo func())) error {
	channel := key.name
	connKey, node, err := h.route(ctx, key)
	if err != nil {
		return err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	if h.broken != nil {
		err := h.broken
		h.mu.Unlock()
		return fmt.Errorf("subscribing to %q: %w", channel, err)
	}
	e := h.entries[key]
	if e == nil {
		c := h.conns[connKey]
		if c == nil {
			c = h.newConn(connKey, node, key.kind == Shard)
			h.conns[connKey] = c
		}
		e = &entry{key: key, c: c, ready: make(chan struct{})}
		if h.cfg.OnConfirm != nil {
			e.sent = time.Now()
		}
		h.entries[key] = e
		c.inflight[key]++
		c.enqueue(op{subscribe: true, key: key})
	}
	undo := add(e)
	confirmed, ready := e.confirmed, e.ready
	h.mu.Unlock()
	if confirmed {
		return nil
	}
	timer := time.NewTimer(h.cfg.ConfirmTimeout)
	defer timer.Stop()
	select {
	case <-ready:
		if e.err != nil {
			undo()
			return e.err
		}
		return nil
	case <-ctx.Done():
		undo()
		return context.Cause(ctx)
	case <-h.done:
		undo()
		return ErrClosed
	case <-timer.C:
		undo()
		h.mu.Lock()
		stuck := !e.confirmed && e.err == nil
		h.mu.Unlock()
		if stuck {
			h.cfg.Logger.Warn("redisson pubsub: subscription not confirmed in time; replacing the connection",
				"channel", channel, "timeout", h.cfg.ConfirmTimeout)
			e.c.requestReplace()
		}
		return fmt.Errorf("%w: no reply to the subscribe of %q within %v", ErrNotConfirmed, channel, h.cfg.ConfirmTimeout)
	}
}

// route tells which connection carries key: the plain one for Channel and
// Pattern, else the shard connection, on a cluster the one to the channel's
// master.
func (h *Hub) route(ctx context.Context, key subKey) (string, *redis.Client, error) {
	if key.kind != Shard {
		return "plain", nil, nil
	}
	cc, ok := h.cfg.Client.(*redis.ClusterClient)
	if !ok {
		return "shard", nil, nil
	}
	node, err := cc.MasterForKey(ctx, key.name)
	if err != nil {
		return "", nil, err
	}
	return "shard:" + node.Options().Addr, node, nil
}

// C is signalled when the waiter should re-check what it waits for.
func (w *Waiter) C() <-chan struct{} { return w.sig }

// Err returns why the waiter's subscription ended while it waited, nil
// while it stands: Redis refused the channel when the hub subscribed it
// again after a reconnect (an ACL changed meanwhile). The waiter is woken
// then; no message will reach it any more.
func (w *Waiter) Err() error {
	// Lock-free: a waiter asks after every failed try.
	if p := w.e.ended.Load(); p != nil {
		return *p
	}
	return nil
}

// PassOverWhen makes messages that wake a limited number of waiters skip
// this one while skip reports true: its owner knows the message cannot
// concern it and that something local will wake it instead (a lock held by
// another goroutine of the same client). Waking it would cost a goroutine
// switch for nothing. Waiters that pass the same group (a comparable value,
// e.g. a pointer) share the answer: skip is asked once per message for the
// group, however many of them wait.
// Messages that wake every waiter, and the wake-ups after a reconnect, still
// reach it. skip runs with the hub's lock held and must not call the hub.
func (w *Waiter) PassOverWhen(group any, skip func() bool) {
	w.h.mu.Lock()
	w.passOver, w.passGroup = skip, group
	w.h.mu.Unlock()
}

// Close unregisters the waiter. acquired tells whether the waiter got what it
// waited for; if it did not, a wake-up it had not consumed passes to the next
// waiter, so a cancelled waiter never swallows a release.
func (w *Waiter) Close(acquired bool) {
	h := w.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if w.gone {
		return
	}
	w.gone = true
	e := w.e
	e.remove(w)
	pending := len(w.sig) > 0
	if pending && !acquired && e.n > 0 {
		e.wake(1)
	}
	h.dropIfUnused(e)
}

// dropIfUnused unsubscribes e's subscription when nobody needs it any more;
// called with h.mu held.
func (h *Hub) dropIfUnused(e *entry) {
	if e.unused() && h.entries[e.key] == e {
		delete(h.entries, e.key)
		if !h.closed {
			e.c.unsubs[e.key]++
			e.c.enqueue(op{subscribe: false, key: e.key})
		}
	}
}

// Listener is one topic subscription's registration (Listen).
type Listener struct {
	h    *Hub
	e    *entry
	sink Sink
	gone bool // guarded by h.mu
}

// Close unregisters the listener; the Redis subscription goes when nobody
// else needs it. The sink gets nothing after Close returns.
func (l *Listener) Close() {
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.gone {
		return
	}
	l.gone = true
	e := l.e
	for i, x := range e.listeners {
		if x == l {
			e.listeners = append(e.listeners[:i:i], e.listeners[i+1:]...)
			break
		}
	}
	h.dropIfUnused(e)
}

// Listeners returns how many listeners the subscription kind/name has.
func (h *Hub) Listeners(kind Kind, name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.entries[subKey{kind, name}]; e != nil {
		return len(e.listeners)
	}
	return 0
}

// Close drops every subscription and connection; waiting Subscribe calls
// return ErrClosed.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	close(h.done)
	conns := h.conns
	var ended []*Listener
	for _, e := range h.entries {
		for _, l := range e.listeners {
			l.gone = true
			ended = append(ended, l)
		}
		e.listeners = nil
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	h.wg.Wait()
	for _, l := range ended {
		l.sink.End(ErrClosed)
	}
}

// Stats describes the hub's current load.
type Stats struct {
	Connections int // Redis connections carrying subscriptions
	Channels    int // subscribed channels
	Waiters     int // registered waiters
	Listeners   int // registered listeners (topic subscriptions)
	// Dropped counts messages the listeners' sinks dropped since New.
	Dropped uint64
}

// Stats returns the hub's current load.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Stats{Connections: len(h.conns), Channels: len(h.entries), Dropped: h.dropped}
	for _, e := range h.entries {
		s.Waiters += e.n
		s.Listeners += len(e.listeners)
	}
	return s
}

func (e *entry) push(w *Waiter) {
	w.prev = e.tail
	if e.tail != nil {
		e.tail.next = w
	} else {
		e.head = w
	}
	e.tail = w
	e.n++
}

func (e *entry) remove(w *Waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		e.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		e.tail = w.prev
	}
	w.prev, w.next = nil, nil
	e.n--
}

// wake signals up to n waiters that have no wake-up pending, oldest first;
// n == All signals every waiter.
func (e *entry) wake(n int) {
	e.wakeSome(n, false)
}

// wakeSome is wake that, for a limited n and with passOver set, skips the
// waiters that ask to be passed over.
func (e *entry) wakeSome(n int, passOver bool) {
	// Answers of the groups asked during this message; a channel's
	// waiters usually all belong to one.
	var asked [4]struct {
		group any
		skip  bool
	}
	nAsked := 0
	skip := func(w *Waiter) bool {
		for i := range nAsked {
			if asked[i].group == w.passGroup {
				return asked[i].skip
			}
		}
		v := w.passOver()
		if nAsked < len(asked) {
			asked[nAsked].group, asked[nAsked].skip = w.passGroup, v
			nAsked++
		}
		return v
	}
	for w := e.head; w != nil && (n == All || n > 0); w = w.next {
		if passOver && n != All && w.passOver != nil && skip(w) {
			continue
		}
		select {
		case w.sig <- struct{}{}:
			if n != All {
				n--
			}
		default:
		}
	}
}

// onSubscribed handles a subscribe confirmation: the first confirms a new
// subscription, later ones come from a resubscribe after a reconnect and wake
// every waiter so each re-checks its state, and tell every listener that
// messages may have been missed meanwhile.
func (h *Hub) onSubscribed(c *conn, gen uint64, key subKey) {
	h.mu.Lock()
	c.answered(gen, sentSubscribe, key)
	resub, since := h.subscribed(c, key)
	h.mu.Unlock()
	if h.cfg.OnConfirm != nil && !since.IsZero() {
		h.cfg.OnConfirm(key.name, resub, time.Since(since))
	}
}

// subscribed is onSubscribed with h.mu held; it returns, for OnConfirm,
// whether the confirmation was of a resubscription and since when it was
// awaited (zero: nothing to report).
func (h *Hub) subscribed(c *conn, key subKey) (bool, time.Time) {
	if c.inflight[key] > 0 {
		c.inflight[key]--
		if c.inflight[key] == 0 {
			delete(c.inflight, key)
		}
	}
	e := h.entries[key]
	if e == nil || e.c != c || c.inflight[key] > 0 {
		return false, time.Time{}
	}
	if !e.confirmed {
		e.confirmed = true
		close(e.ready)
		return false, e.sent
	}
	e.wake(All)
	for _, l := range e.listeners {
		l.sink.Gap()
	}
	return true, c.lostAt
}

// onMessage wakes waiters of the message's subscription as its policy says
// and hands the message to its listeners.
func (h *Hub) onMessage(key subKey, m Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.entries[key]
	if e == nil {
		return
	}
	if e.policy != nil && e.n > 0 {
		if n := e.policy(m.Payload); n != 0 {
			e.wakeSome(n, true)
		}
	}
	for _, l := range e.listeners {
		if !l.sink.Message(m) {
			h.dropped++
		}
	}
}

// onClientClosed fails every subscription waiting for its confirmation and
// every later Subscribe with err, and wakes every confirmed waiter so that
// each finds out on its next command: the Redis client was closed, nothing
// will come on its connections any more.
func (h *Hub) onClientClosed(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.broken != nil || h.closed {
		return
	}
	h.cfg.Logger.Warn("redisson pubsub: the Redis client was closed", "err", err)
	h.broken = err
	for key, e := range h.entries {
		if e.confirmed {
			e.wake(All)
			// Nothing will come for the listeners any more.
			for _, l := range e.listeners {
				l.gone = true
				l.sink.End(fmt.Errorf("subscription to %q: %w", key.name, err))
			}
			e.listeners = nil
			if e.n == 0 {
				delete(h.entries, key)
			}
			continue
		}
		e.err = fmt.Errorf("subscribing to %q: %w", key.name, err)
		close(e.ready)
		delete(h.entries, key)
	}
}

// onConnLost forgets what was in flight on c: the replacement connection
// subscribes every channel again, and each channel gets one fresh reply.
func (h *Hub) onConnLost(c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(c.inflight)
	clear(c.unsubs)
	c.pending = nil
	if h.cfg.OnConfirm != nil {
		c.lostAt = time.Now()
	}
}

// onUnsubscribed handles an (s)unsubscribe reply: the answer to one of ours,
// or, when none of ours is pending, the server dropping the subscription.
// Redis does that to the shard channels of a slot that moved to another
// master; the channel's waiters would then sleep until their timers, so it
// is subscribed again where the slot lives now.
func (h *Hub) onUnsubscribed(c *conn, gen uint64, key subKey) {
	h.mu.Lock()
	c.answered(gen, sentUnsubscribe, key)
	if c.unsubs[key] > 0 {
		c.unsubs[key]--
		if c.unsubs[key] == 0 {
			delete(c.unsubs, key)
		}
		h.mu.Unlock()
		return
	}
	e := h.entries[key]
	moved := !h.closed && e != nil && e.c == c
	h.mu.Unlock()
	if moved {
		h.cfg.Logger.Warn("redisson pubsub: the server dropped a subscription; subscribing again", "channel", key.name)
		h.wg.Add(1)
		go h.reroute(c, key)
	}
}

// rerouteSlot moves the channels of slot that c carries to the slot's
// current master (after a MOVED reply to an SSUBSCRIBE).
func (h *Hub) rerouteSlot(c *conn, s int) {
	h.mu.Lock()
	var chans []subKey
	for key, e := range h.entries {
		if e.c == c && slot.Of(key.name) == s {
			chans = append(chans, key)
		}
	}
	if !h.closed {
		h.wg.Add(len(chans))
	}
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return
	}
	for _, ch := range chans {
		go h.reroute(c, ch)
	}
}

// onNodeGone drops c, whose node client the cluster client closed or whose
// connection broke, and moves its channels to the masters that serve them
// now.
func (h *Hub) onNodeGone(c *conn) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	if h.conns[c.key] == c {
		delete(h.conns, c.key)
	}
	var chans []subKey
	for key, e := range h.entries {
		if e.c == c {
			chans = append(chans, key)
		}
	}
	h.wg.Add(len(chans))
	h.mu.Unlock()
	h.cfg.Logger.Warn("redisson pubsub: a node's client was closed; moving its subscriptions", "channels", len(chans))
	c.close()
	for _, ch := range chans {
		go h.reroute(c, ch)
	}
}

// reroute subscribes channel, now carried by old, on the connection to the
// master that serves it now, and moves its entry there; the confirmation
// wakes every waiter of the channel to re-check. The cluster client's slot
// map may lag the move for a moment: it is reloaded and asked again for up
// to rerouteAttempts tries before the channel is subscribed wherever the map
// says (a refusal then comes back as MOVED and starts over). While no
// master can be found it keeps asking, once a second after the first tries
// (when it wakes the waiters to re-check on their own), until the channel
// has no waiter left or the hub closes.
func (h *Hub) reroute(old *conn, key subKey) {
	defer h.wg.Done()
	for attempt := 1; ; attempt++ {
		if cc, ok := h.cfg.Client.(*redis.ClusterClient); ok {
			cc.ReloadState(context.Background())
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.cfg.ConfirmTimeout)
		connKey, node, err := h.route(ctx, key)
		cancel()
		h.mu.Lock()
		e := h.entries[key]
		if h.closed || e == nil || e.c != old {
			h.mu.Unlock()
			return
		}
		c := h.conns[connKey]
		switch {
		case err == nil && (c != old || attempt >= rerouteAttempts):
			if c == nil {
				c = h.newConn(connKey, node, key.kind == Shard)
				h.conns[connKey] = c
			}
			delete(old.inflight, key)
			e.c = c
			c.inflight[key]++
			c.enqueue(op{subscribe: true, key: key})
			h.mu.Unlock()
			return
		case err != nil && attempt == rerouteAttempts:
			// Let the waiters re-check on their own meanwhile; keep
			// looking, slower.
			e.wake(All)
			h.cfg.Logger.Warn("redisson pubsub: cannot find the channel's master yet", "channel", key.name, "err", err)
		}
		h.mu.Unlock()
		pause := rerouteRetry
		if attempt >= rerouteAttempts {
			pause = time.Second
		}
		select {
		case <-h.done:
			return
		case <-time.After(pause):
		}
	}
}

// rerouteAttempts and rerouteRetry bound how long reroute waits for the
// cluster client's slot map to show a moved slot: about 2 s.
const (
	rerouteAttempts = 20
	rerouteRetry    = 100 * time.Millisecond
)
