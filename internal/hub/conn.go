package hub

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/slot"
)

// op is one queued SUBSCRIBE or UNSUBSCRIBE. Ops are sent in the order they
// were queued (under the hub's lock), so a channel dropped and taken again is
// unsubscribed before it is subscribed anew. Runs of ops of the same kind go
// out as one command, except an op marked alone: a channel of a batch Redis
// refused, sent again by itself so that the refusal finds its channel.
type op struct {
	subscribe bool
	alone     bool
	key       subKey
}

// sentKind is what a command written on a subscription connection was.
type sentKind uint8

const (
	sentSubscribe sentKind = iota
	sentUnsubscribe
	sentPing
)

// sent is a command written on a connection whose replies have not all
// come. Redis answers a connection's commands in order, one reply per
// channel named (one for a ping), or a single error reply for the whole
// command: an error reply answers the oldest command still pending, and so
// tells which channels it refused, although its text names none.
type sent struct {
	what  sentKind
	kind  Kind
	names []string
	got   int // replies received so far
}

// conn is one subscription connection: a control goroutine sends queued
// (un)subscribes and health-checks it, a reader goroutine dispatches what
// arrives. Neither holds the hub's lock during network I/O.
type conn struct {
	h        *Hub
	key      string         // its key in h.conns
	node     *redis.Client  // sharded cluster: the master this conn is on
	shard    bool           // carries SSUBSCRIBE (Shard); else SUBSCRIBE and PSUBSCRIBE
	unsubs   map[subKey]int // unsubscribes sent, replies not seen; guarded by h.mu
	inflight map[subKey]int // subscribes sent but not confirmed; guarded by h.mu
	pending  []sent         // commands on ps awaiting replies, oldest first; guarded by h.mu
	gen      uint64         // which ps pending is about, counted by replace; guarded by h.mu
	down     bool           // ps could not connect: send nothing until replaced; guarded by sendMu
	lostAt   time.Time      // when the connection was last lost; guarded by h.mu
	noPing   bool           // Redis refused a ping (logged once); guarded by h.mu
	lastSeen atomic.Int64   // unix nanos of the last reply of any kind
	kick     chan struct{}  // queue is not empty
	renew    chan struct{}  // the connection must be replaced
	stop     chan struct{}  // conn is closing
	queueMu  sync.Mutex     // guards queue
	queue    []op           // ops not yet sent
	sendMu   sync.Mutex     // guards ps: sends and replacement
	ps       *redis.PubSub  // current connection
	closing  sync.Once
}

// newConn starts a connection's goroutines; called with h.mu held.
func (h *Hub) newConn(key string, node *redis.Client, shard bool) *conn {
	c := &conn{
		h:        h,
		key:      key,
		node:     node,
		shard:    shard,
		unsubs:   make(map[subKey]int),
		inflight: make(map[subKey]int),
		kick:     make(chan struct{}, 1),
		renew:    make(chan struct{}, 1),
		stop:     make(chan struct{}),
	}
	c.lastSeen.Store(time.Now().UnixNano())
	c.ps = c.open()
	h.wg.Add(2)
	go c.control()
	go c.read(c.ps, 0)
	return c
}

func (c *conn) open() *redis.PubSub {
	ctx := context.Background()
	switch {
	case c.node != nil:
		return c.node.SSubscribe(ctx)
	case c.shard:
		return c.h.cfg.Client.SSubscribe(ctx)
	default:
		return c.h.cfg.Client.Subscribe(ctx)
	}
}

// enqueue queues an op; called with h.mu held so ops keep the hub's order.
func (c *conn) enqueue(o op) {
	c.queueMu.Lock()
	c.queue = append(c.queue, o)
	c.queueMu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *conn) close() {
	c.closing.Do(func() {
		close(c.stop)
		c.sendMu.Lock()
		_ = c.ps.Close()
		c.sendMu.Unlock()
	})
}

// control sends queued ops, batching runs of the same kind into one command,
// and pings a silent connection; one that stays silent through two pings is
// replaced, because a half-open TCP connection would otherwise hide lost
// wake-ups forever.
func (c *conn) control() {
	defer c.h.wg.Done()
	every := c.h.cfg.HealthCheck
	tick := time.NewTicker(every)
	defer tick.Stop()
	var lastReplace time.Time
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
			// select picks at random among ready cases: with stop closed
			// too, the ops are void (the connection is going away).
			if c.stopping() {
				return
			}
			if !c.flush() {
				c.requestReplace()
			}
		case <-c.renew:
			// Replacing a connection that keeps failing must not spin.
			if wait := time.Second - time.Since(lastReplace); wait > 0 {
				select {
				case <-c.stop:
					return
				case <-time.After(wait):
				}
			}
			lastReplace = time.Now()
			c.replace()
		case <-tick.C:
			silent := time.Since(time.Unix(0, c.lastSeen.Load()))
			switch {
			case silent > 3*every:
				c.replace()
			case silent > every:
				c.sendMu.Lock()
				if c.stopping() {
					c.sendMu.Unlock()
					return
				}
				if c.down {
					c.sendMu.Unlock()
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), every)
				c.expect(sent{what: sentPing})
				if err := c.ps.Ping(ctx); err != nil && !c.stopping() {
					c.h.cfg.Logger.Warn("redisson pubsub: ping failed", "err", err)
				}
				cancel()
				c.sendMu.Unlock()
			}
		}
	}
}

// flush sends the queued ops and reports whether every write succeeded.
func (c *conn) flush() bool {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if c.stopping() || c.down {
		// close closes stop before it takes sendMu to close ps: a flush
		// that got sendMu after it would write on a closed PubSub. A ps
		// that could not connect waits for its replacement, which
		// subscribes what the queue holds.
		return true
	}
	c.queueMu.Lock()
	ops := c.queue
	c.queue = nil
	c.queueMu.Unlock()
	ok := true
	for i := 0; i < len(ops); {
		j := i
		chans := make([]string, 0, 8)
		for j < len(ops) && ops[j].subscribe == ops[i].subscribe && ops[j].key.kind == ops[i].key.kind &&
			(j == i || !ops[i].alone && !ops[j].alone) {
			chans = append(chans, ops[j].key.name)
			j++
		}
		ok = c.send(ops[i].subscribe, ops[i].key.kind, chans) && ok
		i = j
	}
	return ok
}

// stopping reports whether the conn is closing: nothing needs sending on it
// any more, and a command that fails now failed because of the close.
func (c *conn) stopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// requestReplace asks the control goroutine for a fresh connection.
func (c *conn) requestReplace() {
	select {
	case c.renew <- struct{}{}:
	default:
	}
}

// send writes (S|P)SUBSCRIBE or (S|P)UNSUBSCRIBE commands of kind for
// chans, one per slot in sharded mode (Redis refuses a sharded command
// spanning slots); called with sendMu held. It reports whether every write
// succeeded: after a failed one the connection is replaced, because go-redis
// records a channel only after its write and would not resend it.
func (c *conn) send(subscribe bool, kind Kind, chans []string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ok := true
	what := sentUnsubscribe
	if subscribe {
		what = sentSubscribe
	}
	for _, group := range c.groups(kind, chans) {
		c.expect(sent{what: what, kind: kind, names: group})
		var err error
		switch {
		case subscribe && kind == Shard:
			err = c.ps.SSubscribe(ctx, group...)
		case subscribe && kind == Pattern:
			err = c.ps.PSubscribe(ctx, group...)
		case subscribe:
			err = c.ps.Subscribe(ctx, group...)
		case kind == Shard:
			err = c.ps.SUnsubscribe(ctx, group...)
		case kind == Pattern:
			err = c.ps.PUnsubscribe(ctx, group...)
		default:
			err = c.ps.Unsubscribe(ctx, group...)
		}
		if err != nil {
			if c.stopping() {
				return true // the conn is closing: nothing to replace
			}
			ok = false
			c.h.cfg.Logger.Warn("redisson pubsub: subscription command failed; replacing the connection",
				"subscribe", subscribe, "channels", len(group), "err", err)
		}
	}
	return ok
}

// expect records a command about to be written on ps, so that its replies,
// an error reply above all, can be matched to it; called with sendMu held,
// which keeps the records in the order of the writes.
func (c *conn) expect(s sent) {
	c.h.mu.Lock()
	c.pending = append(c.pending, s)
	c.h.mu.Unlock()
}

// answered consumes a reply for key (of kind what), read on the
// connection of generation gen, from the oldest pending command when that
// command is the one it answers; a reply Redis sends on its own (a
// sunsubscribe after a slot moved) matches nothing, nor does one read on a
// connection replaced since. Called with h.mu held.
func (c *conn) answered(gen uint64, what sentKind, key subKey) {
	if gen != c.gen || len(c.pending) == 0 {
		return
	}
	p := &c.pending[0]
	if p.what != what || what != sentPing && (p.kind != key.kind || p.got >= len(p.names) || p.names[p.got] != key.name) {
		return
	}
	p.got++
	if what == sentPing || p.got == len(p.names) {
		c.pending[0] = sent{}
		c.pending = c.pending[1:]
	}
}

// groups splits shard channels into one group per slot.
func (c *conn) groups(kind Kind, chans []string) [][]string {
	if kind != Shard || len(chans) < 2 {
		return [][]string{chans}
	}
	bySlot := make(map[int][]string)
	var order []int
	for _, ch := range chans {
		s := slot.Of(ch)
		if _, seen := bySlot[s]; !seen {
			order = append(order, s)
		}
		bySlot[s] = append(bySlot[s], ch)
	}
	out := make([][]string, 0, len(order))
	for _, s := range order {
		out = append(out, bySlot[s])
	}
	return out
}

// replace swaps in a fresh connection and subscribes every channel of this
// conn on it; the replies confirm new channels and wake every waiter. The
// connection is made (with a PING) before anything is subscribed on it:
// one that cannot be made (a dead node still in the cluster client's map)
// is tried again a second later, and no subscribe meets a dial of go-redis
// that would subscribe again, unannounced, whatever it had recorded.
func (c *conn) replace() {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	select {
	case <-c.stop:
		return
	default:
	}
	c.h.cfg.Logger.Warn("redisson pubsub: replacing the subscription connection")
	old := c.ps
	c.ps = c.open()
	c.lastSeen.Store(time.Now().UnixNano())
	c.h.mu.Lock()
	c.gen++
	gen := c.gen
	c.pending = nil
	// Whatever replaces it (a health check's verdict included), the old
	// connection's messages from now on are lost.
	c.h.tellLost(c)
	c.h.mu.Unlock()
	_ = old.Close()
	if err := c.connect(); err != nil {
		c.down = true
		switch {
		case c.stopping():
		case errors.Is(err, redis.ErrClosed) && c.node == nil:
			// No connection will ever come: the Redis client was closed.
			c.h.onClientClosed(err)
		case c.node != nil:
			// The node is gone or its client closed: move every channel
			// to the master that serves it now, as the reader does when
			// a node's connection breaks (onNodeGone closes c, which
			// needs sendMu).
			c.h.wg.Add(1)
			go func() {
				defer c.h.wg.Done()
				c.h.onNodeGone(c)
			}()
		default:
			c.h.cfg.Logger.Warn("redisson pubsub: cannot connect; trying again", "err", err)
			c.requestReplace()
		}
		return
	}
	c.down = false
	c.h.mu.Lock()
	clear(c.inflight)
	clear(c.unsubs)
	c.h.wakeUnsubWaiters()
	chans := map[Kind][]string{}
	for key, e := range c.h.entries {
		if e.c == c {
			chans[key.kind] = append(chans[key.kind], key.name)
		}
	}
	// The new connection gets exactly the channels of the entries now;
	// queued ops (taken under the same lock) are already reflected there.
	c.queueMu.Lock()
	c.queue = nil
	c.queueMu.Unlock()
	c.h.mu.Unlock()
	c.h.wg.Add(1)
	go c.read(c.ps, gen)
	ok := true
	for _, kind := range []Kind{Channel, Pattern, Shard} {
		if len(chans[kind]) > 0 {
			ok = c.send(true, kind, chans[kind]) && ok
		}
	}
	if !ok {
		c.requestReplace()
	}
}

// connect makes ps's connection with a PING, whose reply the reader takes;
// called with sendMu held.
func (c *conn) connect() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.expect(sent{what: sentPing})
	return c.ps.Ping(ctx)
}

// read dispatches replies of one PubSub until it is closed.
func (c *conn) read(ps *redis.PubSub, gen uint64) {
	defer c.h.wg.Done()
	ctx := context.Background()
	for {
		msg, err := ps.Receive(ctx)
		if err != nil {
			if c.failed(ps, gen, err) {
				return
			}
			continue
		}
		c.lastSeen.Store(time.Now().UnixNano())
		switch m := msg.(type) {
		case *redis.Pong:
			c.h.onPong(c, gen)
		case *redis.Subscription:
			switch m.Kind {
			case "subscribe":
				c.h.onSubscribed(c, gen, subKey{Channel, m.Channel})
			case "ssubscribe":
				c.h.onSubscribed(c, gen, subKey{Shard, m.Channel})
			case "psubscribe":
				c.h.onSubscribed(c, gen, subKey{Pattern, m.Channel})
			case "unsubscribe":
				c.h.onUnsubscribed(c, gen, subKey{Channel, m.Channel})
			case "sunsubscribe":
				c.h.onUnsubscribed(c, gen, subKey{Shard, m.Channel})
			case "punsubscribe":
				c.h.onUnsubscribed(c, gen, subKey{Pattern, m.Channel})
			}
		case *redis.Message:
			key := subKey{Channel, m.Channel}
			switch {
			case c.shard:
				// A shard connection carries SSUBSCRIBE only.
				key.kind = Shard
			case m.Pattern != "":
				key = subKey{Pattern, m.Pattern}
			}
			c.h.onMessage(key, Message{Channel: m.Channel, Pattern: m.Pattern, Payload: m.Payload})
		}
	}
}

// failed handles a failed Receive on ps and reports whether the reader
// must end: an error reply is an answer and reading goes on; a closed or
// broken connection ends this reader.
func (c *conn) failed(ps *redis.PubSub, gen uint64, err error) bool {
	if errors.Is(err, redis.ErrClosed) {
		// Either this PubSub was closed (the conn is closing
		// or replaced it), or the Redis client it came from
		// was: then no reply will ever come on it.
		select {
		case <-c.stop:
			return true
		default:
		}
		c.sendMu.Lock()
		current := c.ps == ps
		c.sendMu.Unlock()
		switch {
		case current && c.node == nil:
			c.h.onClientClosed(err)
		case current:
			// The cluster client closed this node's client
			// (the node left its view): move every channel
			// to the master that serves it now.
			c.h.onNodeGone(c)
		}
		return true
	}
	// A PubSub replaced meanwhile (replace closes it) reports
	// its closed socket: nothing to do, its successor reads.
	c.sendMu.Lock()
	current := c.ps == ps
	c.sendMu.Unlock()
	if !current {
		return true
	}
	select {
	case <-c.stop:
		return true
	default:
	}
	var re redis.Error
	if errors.As(err, &re) {
		// An answer, not a fault: the connection works. It
		// concerns the command it answers and nothing else.
		c.lastSeen.Store(time.Now().UnixNano())
		c.h.onErrorReply(c, gen, re)
		return false
	}
	if c.node != nil {
		// A cluster node's connection broke: the node may be
		// gone for good (its replica takes over) or its slots
		// may have moved. Drop this connection and subscribe
		// every channel on the master that serves it now, per
		// the cluster client's refreshed slot map (the same
		// node again when it is back).
		c.h.cfg.Logger.Warn("redisson pubsub: a node's connection broke; subscribing its channels where their slots are", "err", err)
		c.h.onNodeGone(c)
		return true
	}
	// The connection broke. go-redis would reconnect and
	// resubscribe every channel in one command per kind: one
	// channel refused then (an ACL changed meanwhile) would take
	// every other down with it, and on a sharded connection
	// Redis refuses a command spanning slots. The hub makes the
	// new connection itself, and this reader ends with the old.
	c.h.onConnLost(c)
	c.requestReplace()
	return true
}
