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

// LossSink is a Sink that also wants to know at once when the connection
// carrying its subscription broke, before the hub has made it again (Gap
// follows then): a near cache stops serving what it may have missed. Lost
// is called like Sink's methods, with the hub's lock held.
type LossSink interface {
	Sink
	Lost()
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
	// unsubWait: the channels UnsubscribeDone handed out, by subscription,
	// closed when no unsubscribe of it awaits an answer (wakeUnsubWaiters).
	unsubWait map[subKey][]chan struct{}
	dropped   uint64 // messages Sinks refused; guarded by mu
	// waitersChanged gets a token when a waiter comes or goes (see
	// WaitersChanged).
	waitersChanged chan struct{}
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

		waitersChanged: make(chan struct{}, 1),
	}
}

// WaitersChanged gets a token after a waiter comes or goes, so that what
// publishes WaitersByChannel (the client's registration record) can do so
// when waiters pile up behind a holder that does not change. Tokens
// coalesce: one pending stands for any number of changes.
func (h *Hub) WaitersChanged() <-chan struct{} { return h.waitersChanged }

// noteWaiters drops a token into waitersChanged unless one is pending.
func (h *Hub) noteWaiters() {
	select {
	case h.waitersChanged <- struct{}{}:
	default:
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
		h.noteWaiters()
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

// UnsubscribeDone returns a channel closed once no unsubscribe of kind's
// channel name awaits Redis' answer on any connection (at once when none
// does). Until then PUBLISH still counts this client among the channel's
// receivers: a caller whose peers wait for one answer per receiver (the
// adders' sum) must not let go before.
func (h *Hub) UnsubscribeDone(kind Kind, name string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan struct{})
	key := subKey{kind, name}
	if !h.unsubPending(key) {
		close(ch)
		return ch
	}
	if h.unsubWait == nil {
		h.unsubWait = make(map[subKey][]chan struct{})
	}
	h.unsubWait[key] = append(h.unsubWait[key], ch)
	return ch
}

// unsubPending reports whether an unsubscribe of key awaits its answer on
// some connection; h.mu held.
func (h *Hub) unsubPending(key subKey) bool {
	for _, c := range h.conns {
		if c.unsubs[key] > 0 {
			return true
		}
	}
	return false
}

// wakeUnsubWaiters closes the UnsubscribeDone channels of subscriptions
// with no unsubscribe pending any more; h.mu held. Called wherever a
// connection's unsubs shrink.
func (h *Hub) wakeUnsubWaiters() {
	for key, chs := range h.unsubWait {
		if h.unsubPending(key) {
			continue
		}
		for _, ch := range chs {
			close(ch)
		}
		delete(h.unsubWait, key)
	}
}

// WaitersByChannel counts the registered waiters of each channel that has
// some (the client's registration record lists them, so that tools count
// waiting goroutines rather than subscribed connections).
func (h *Hub) WaitersByChannel() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out map[string]int
	for k, e := range h.entries {
		if e.n > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[k.name] += e.n
		}
	}
	return out
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
