// Package pubsub is the subscription hub every object of a client shares.
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
// retry, never a hang.
package pubsub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/slot"
)

// ErrClosed is returned by Subscribe on a closed hub.
var ErrClosed = errors.New("subscriptions are closed")

// ErrNotConfirmed is wrapped by the error Subscribe returns when Redis did
// not confirm a subscription within Config.ConfirmTimeout.
var ErrNotConfirmed = errors.New("subscription not confirmed in time")

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
}

// Hub multiplexes many waiters onto few Redis subscriptions.
type Hub struct {
	cfg     Config
	done    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	closed  bool
	broken  error // the client was closed under the hub; guarded by mu
	entries map[string]*entry
	conns   map[string]*conn
}

// entry is one subscribed channel and its local waiters, in arrival order.
type entry struct {
	channel    string
	policy     WakePolicy
	c          *conn
	head, tail *Waiter
	n          int
	confirmed  bool
	ready      chan struct{} // closed when confirmed or failed
	err        error         // why the subscription failed; set before ready closes
}

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
		entries: make(map[string]*entry),
		conns:   make(map[string]*conn),
	}
}

// Done is closed when the hub is closed.
func (h *Hub) Done() <-chan struct{} { return h.done }

// Subscribe registers a waiter on channel and returns once Redis has
// confirmed the subscription (at once when another waiter already holds it).
// policy decides how many waiters a message wakes; the first waiter of a
// channel sets it. The caller must Close the waiter.
//
// The wait for the confirmation ends with the caller's context, with
// Config.ConfirmTimeout (an error wrapping ErrNotConfirmed; the connection
// is then replaced, since a confirmation that does not come means it is
// stuck), or at once with an error wrapping redis.ErrClosed when the Redis
// client was closed under the hub.
func (h *Hub) Subscribe(ctx context.Context, channel string, policy WakePolicy) (*Waiter, error) {
	connKey, node, err := h.route(ctx, channel)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	if h.broken != nil {
		err := h.broken
		h.mu.Unlock()
		return nil, fmt.Errorf("subscribing to %q: %w", channel, err)
	}
	e := h.entries[channel]
	if e == nil {
		c := h.conns[connKey]
		if c == nil {
			c = h.newConn(connKey, node)
			h.conns[connKey] = c
		}
		e = &entry{channel: channel, policy: policy, c: c, ready: make(chan struct{})}
		h.entries[channel] = e
		c.inflight[channel]++
		c.enqueue(op{subscribe: true, channel: channel})
	}
	w := &Waiter{h: h, e: e, sig: make(chan struct{}, 1)}
	e.push(w)
	confirmed, ready := e.confirmed, e.ready
	h.mu.Unlock()
	if confirmed {
		return w, nil
	}
	timer := time.NewTimer(h.cfg.ConfirmTimeout)
	defer timer.Stop()
	select {
	case <-ready:
		if e.err != nil {
			w.Close(false)
			return nil, e.err
		}
		return w, nil
	case <-ctx.Done():
		w.Close(false)
		return nil, context.Cause(ctx)
	case <-h.done:
		w.Close(false)
		return nil, ErrClosed
	case <-timer.C:
		w.Close(false)
		h.mu.Lock()
		stuck := !e.confirmed && e.err == nil
		h.mu.Unlock()
		if stuck {
			h.cfg.Logger.Warn("redisson pubsub: subscription not confirmed in time; replacing the connection",
				"channel", channel, "timeout", h.cfg.ConfirmTimeout)
			e.c.requestReplace()
		}
		return nil, fmt.Errorf("%w: no reply to the subscribe of %q within %v", ErrNotConfirmed, channel, h.cfg.ConfirmTimeout)
	}
}

// route tells which connection carries channel: the only one, or in sharded
// cluster mode the one to the channel's master.
func (h *Hub) route(ctx context.Context, channel string) (string, *redis.Client, error) {
	if !h.cfg.Sharded {
		return "", nil, nil
	}
	cc, ok := h.cfg.Client.(*redis.ClusterClient)
	if !ok {
		return "", nil, nil
	}
	node, err := cc.MasterForKey(ctx, channel)
	if err != nil {
		return "", nil, err
	}
	return node.Options().Addr, node, nil
}

// C is signalled when the waiter should re-check what it waits for.
func (w *Waiter) C() <-chan struct{} { return w.sig }

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
	if e.n == 0 && h.entries[e.channel] == e {
		delete(h.entries, e.channel)
		if !h.closed {
			e.c.unsubs[e.channel]++
			e.c.enqueue(op{subscribe: false, channel: e.channel})
		}
	}
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
	h.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	h.wg.Wait()
}

// Stats describes the hub's current load.
type Stats struct {
	Connections int // Redis connections carrying subscriptions
	Channels    int // subscribed channels
	Waiters     int // registered waiters
}

// Stats returns the hub's current load.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Stats{Connections: len(h.conns), Channels: len(h.entries)}
	for _, e := range h.entries {
		s.Waiters += e.n
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
// every waiter so each re-checks its state.
func (h *Hub) onSubscribed(c *conn, channel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.inflight[channel] > 0 {
		c.inflight[channel]--
		if c.inflight[channel] == 0 {
			delete(c.inflight, channel)
		}
	}
	e := h.entries[channel]
	if e == nil || e.c != c || c.inflight[channel] > 0 {
		return
	}
	if !e.confirmed {
		e.confirmed = true
		close(e.ready)
		return
	}
	e.wake(All)
}

// onMessage wakes waiters of the message's channel as its policy says.
func (h *Hub) onMessage(channel, payload string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.entries[channel]
	if e == nil {
		return
	}
	if n := e.policy(payload); n != 0 {
		e.wakeSome(n, true)
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
	for ch, e := range h.entries {
		if e.confirmed {
			e.wake(All)
			continue
		}
		e.err = fmt.Errorf("subscribing to %q: %w", ch, err)
		close(e.ready)
		delete(h.entries, ch)
	}
}

// onConnLost forgets what was in flight on c: go-redis resubscribes every
// channel on the new connection, and each channel gets one fresh reply.
func (h *Hub) onConnLost(c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(c.inflight)
	clear(c.unsubs)
}

// onUnsubscribed handles an (s)unsubscribe reply: the answer to one of ours,
// or, when none of ours is pending, the server dropping the subscription.
// Redis does that to the shard channels of a slot that moved to another
// master; the channel's waiters would then sleep until their timers, so it
// is subscribed again where the slot lives now.
func (h *Hub) onUnsubscribed(c *conn, channel string) {
	h.mu.Lock()
	if c.unsubs[channel] > 0 {
		c.unsubs[channel]--
		if c.unsubs[channel] == 0 {
			delete(c.unsubs, channel)
		}
		h.mu.Unlock()
		return
	}
	e := h.entries[channel]
	moved := !h.closed && e != nil && e.c == c
	h.mu.Unlock()
	if moved {
		h.cfg.Logger.Warn("redisson pubsub: the server dropped a subscription; subscribing again", "channel", channel)
		h.wg.Add(1)
		go h.reroute(c, channel)
	}
}

// rerouteSlot moves the channels of slot that c carries to the slot's
// current master (after a MOVED reply to an SSUBSCRIBE).
func (h *Hub) rerouteSlot(c *conn, s int) {
	h.mu.Lock()
	var chans []string
	for ch, e := range h.entries {
		if e.c == c && slot.Of(ch) == s {
			chans = append(chans, ch)
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
	var chans []string
	for ch, e := range h.entries {
		if e.c == c {
			chans = append(chans, ch)
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
func (h *Hub) reroute(old *conn, channel string) {
	defer h.wg.Done()
	for attempt := 1; ; attempt++ {
		if cc, ok := h.cfg.Client.(*redis.ClusterClient); ok {
			cc.ReloadState(context.Background())
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.cfg.ConfirmTimeout)
		connKey, node, err := h.route(ctx, channel)
		cancel()
		h.mu.Lock()
		e := h.entries[channel]
		if h.closed || e == nil || e.c != old {
			h.mu.Unlock()
			return
		}
		c := h.conns[connKey]
		switch {
		case err == nil && (c != old || attempt >= rerouteAttempts):
			if c == nil {
				c = h.newConn(connKey, node)
				h.conns[connKey] = c
			}
			delete(old.inflight, channel)
			e.c = c
			c.inflight[channel]++
			c.enqueue(op{subscribe: true, channel: channel})
			h.mu.Unlock()
			return
		case err != nil && attempt == rerouteAttempts:
			// Let the waiters re-check on their own meanwhile; keep
			// looking, slower.
			e.wake(All)
			h.cfg.Logger.Warn("redisson pubsub: cannot find the channel's master yet", "channel", channel, "err", err)
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
