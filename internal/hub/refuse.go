package hub

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// onPong consumes the reply to a health-check ping.
func (h *Hub) onPong(c *conn, gen uint64) {
	h.mu.Lock()
	c.answered(gen, sentPing, subKey{})
	h.mu.Unlock()
}

// onErrorReply handles an error reply read on c's connection of
// generation gen: the answer to the oldest command still waiting for its
// replies. A refused subscribe fails the
// callers of its channels and nobody else; the connection, whose other
// subscriptions are fine, stays (replacing it would drop them all for a
// moment, and subscribe the refused channel again with them).
func (h *Hub) onErrorReply(c *conn, gen uint64, rerr redis.Error) {
	h.mu.Lock()
	if gen != c.gen {
		// A late reply on a connection replaced since: what it answers
		// was sent again on the new one.
		h.mu.Unlock()
		return
	}
	if len(c.pending) == 0 {
		h.mu.Unlock()
		h.cfg.Logger.Warn("redisson pubsub: an error reply to no pending command", "err", rerr)
		return
	}
	cmd := c.pending[0]
	c.pending[0] = sent{}
	c.pending = c.pending[1:]
	msg := rerr.Error()
	switch {
	case cmd.what == sentPing:
		// The connection answered, which is all a ping asks.
		logIt := !c.noPing
		c.noPing = true
		h.mu.Unlock()
		if logIt {
			h.cfg.Logger.Warn("redisson pubsub: Redis refused the health-check PING; its error reply counts as an answer", "err", rerr)
		}
	case cmd.what == sentUnsubscribe:
		for _, name := range cmd.names {
			countDown(c.unsubs, subKey{cmd.kind, name})
		}
		h.wakeUnsubWaiters()
		h.mu.Unlock()
		h.cfg.Logger.Warn("redisson pubsub: Redis refused an unsubscribe; its messages are ignored",
			"channels", cmd.names, "err", rerr)
	case c.shard && strings.HasPrefix(msg, "MOVED "):
		for _, name := range cmd.names {
			countDown(c.inflight, subKey{cmd.kind, name})
		}
		h.mu.Unlock()
		// The slot lives elsewhere now: subscribe its channels there.
		if f := strings.Fields(msg); len(f) >= 2 {
			if s, err := strconv.Atoi(f[1]); err == nil {
				h.cfg.Logger.Warn("redisson pubsub: MOVED; subscribing on the slot's new master", "slot", s)
				h.rerouteSlot(c, s)
			}
		}
	case len(cmd.names) > 1:
		h.split(c, cmd)
		h.mu.Unlock()
	default:
		reroute := h.refuse(c, subKey{cmd.kind, cmd.names[0]}, rerr)
		h.mu.Unlock()
		if reroute {
			go h.reroute(c, subKey{cmd.kind, cmd.names[0]})
		}
	}
}

// countDown decrements m[key], deleting it at zero.
func countDown(m map[subKey]int, key subKey) {
	if m[key] > 0 {
		m[key]--
		if m[key] == 0 {
			delete(m, key)
		}
	}
}

// split sends the channels of a subscribe Redis refused as a whole (it
// checks every channel before it subscribes any) again, one command each:
// the refusals that come back then name their channels, and the others are
// subscribed. Called with h.mu held.
func (h *Hub) split(c *conn, cmd sent) {
	for _, name := range cmd.names {
		key := subKey{cmd.kind, name}
		countDown(c.inflight, key)
		e := h.entries[key]
		if h.closed || e == nil || e.c != c || c.inflight[key] > 0 {
			// Dropped meanwhile, or a later subscribe is under way.
			continue
		}
		c.inflight[key]++
		c.enqueue(op{subscribe: true, alone: true, key: key})
	}
}

// refuse fails the subscription key that Redis refused with rerr. A new
// one fails its callers at once with an error naming the channel; one made
// again after a reconnect ends: its waiters are woken to find Err set, its
// listeners end with the error. A refusal that passes by itself (a cluster
// failing over, a server loading) ends nothing already confirmed: refuse
// then reports true and the caller subscribes it again a moment later.
// Called with h.mu held.
func (h *Hub) refuse(c *conn, key subKey, rerr redis.Error) (reroute bool) {
	countDown(c.inflight, key)
	e := h.entries[key]
	if e == nil || e.c != c || c.inflight[key] > 0 {
		// Dropped meanwhile, or a later subscribe is under way.
		return false
	}
	err := refusal(key, rerr)
	if !e.confirmed {
		// Its callers get err at once; a log line each would flood.
		h.cfg.Logger.Debug("redisson pubsub: Redis refused a subscription", "err", err)
		e.err = err
		close(e.ready)
		delete(h.entries, key)
		return false
	}
	if passing(rerr.Error()) && !h.closed {
		e.wake(All)
		h.wg.Add(1)
		return true
	}
	h.cfg.Logger.Warn("redisson pubsub: Redis refused a resubscription; the subscription ends", "err", err)
	e.ended.Store(&err)
	delete(h.entries, key)
	e.wake(All)
	for _, l := range e.listeners {
		l.gone = true
		l.sink.End(err)
	}
	e.listeners = nil
	return false
}

// passing reports whether an error reply says that Redis turned the
// command away for a state that passes.
func passing(msg string) bool {
	for _, p := range []string{"CLUSTERDOWN ", "TRYAGAIN ", "LOADING ", "MASTERDOWN ", "ASK "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// refusal is the error of the subscription key that Redis refused with
// rerr: it names the channel and, for NOPERM, what the ACL user must be
// allowed.
func refusal(key subKey, rerr redis.Error) error {
	cmd, what := "SUBSCRIBE", "channel"
	switch key.kind {
	case Pattern:
		cmd, what = "PSUBSCRIBE", "pattern"
	case Shard:
		cmd, what = "SSUBSCRIBE", "shard channel"
	}
	msg := rerr.Error()
	if !strings.HasPrefix(msg, "NOPERM") {
		return fmt.Errorf("subscribing to %s %q: Redis refused %s: %w", what, key.name, cmd, rerr)
	}
	need := fmt.Sprintf("the channel (&%s, or a channel pattern matching it)", key.name)
	switch {
	case !strings.Contains(msg, "channel"):
		need = fmt.Sprintf("the command (+%s)", strings.ToLower(cmd))
	case key.kind == Pattern:
		// Redis grants a PSUBSCRIBE only for a pattern the ACL lists
		// as it is, not for one its patterns would match.
		need = fmt.Sprintf("the pattern itself (&%s)", key.name)
	}
	return fmt.Errorf("subscribing to %s %q: %w: the ACL user must be allowed %s: %w", what, key.name, ErrNoPermission, need, rerr)
}
