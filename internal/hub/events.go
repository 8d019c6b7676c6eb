package hub

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/slot"
)

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
	h.wakeUnsubWaiters()
	c.pending = nil
	if h.cfg.OnConfirm != nil {
		c.lostAt = time.Now()
	}
	h.tellLost(c)
}

// tellLost tells the LossSinks among the listeners carried by c that it
// broke; h.mu held.
func (h *Hub) tellLost(c *conn) {
	for _, e := range h.entries {
		if e.c != c {
			continue
		}
		for _, l := range e.listeners {
			if ls, ok := l.sink.(LossSink); ok {
				ls.Lost()
			}
		}
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
			h.wakeUnsubWaiters()
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
		h.wakeUnsubWaiters() // its node is gone, and its subscriptions with it
	}
	h.tellLost(c)
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
