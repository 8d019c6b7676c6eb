package core

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Lock scripts go down a few dedicated connections per node instead of
// through go-redis' pool. Every command taken from the pool first probes its
// connection with a non-blocking recvfrom (the pool's health check); on the
// lock path, two commands per lock+unlock, that probe and the pool's
// bookkeeping cost about as much CPU as Redis spends running the script.
// A dedicated connection (a go-redis Conn, which keeps one pooled
// connection) skips both.
//
// The probe exists to catch connections the server or a failover closed
// while they sat idle; a dedicated connection idle for longer than
// dedicatedIdle is therefore given back to the pool instead of being used,
// and one whose command failed in transit is dropped. One that answered
// that its node cannot serve writes now (READONLY, LOADING, MASTERDOWN), or
// that go-redis marked bad, is closed for good (see discard). Each goes
// back to the pool after dedicatedAge and is taken again. At most a quarter of
// the pool (and 2 × GOMAXPROCS) is kept per node, so the application keeps
// the rest; when all are busy, calls use the pool as before.
//
// On a single node every script call may take one; on a cluster only calls
// bound by their context do (see evalBound), on the key's master: the
// others go through the cluster client, which follows redirections.

// dedicatedIdle is how long a dedicated connection may sit unused and still
// be trusted without the pool's probe. Redis' own idle timeout ("timeout")
// counts in whole seconds.
const dedicatedIdle = 500 * time.Millisecond

// dedicatedAge is how long a dedicated connection is kept out of the pool.
// go-redis skips its push-notification peek (another recvfrom) on a
// connection put back into the pool less than 5 s ago and peeks twice per
// command after that, so connections go back and are taken again before.
const dedicatedAge = 4 * time.Second

type dedicatedConns struct {
	mu     sync.Mutex
	nodes  map[*redis.Client]*nodeConns
	closed bool
	idle   time.Duration // 0: dedicatedIdle
}

type nodeConns struct {
	free []*dedicatedConn // most recently used last
	// parked: on a cluster, connections that cannot be bound (dialled
	// before the node had the dial hook) and could not be retired, kept
	// out of the pool so that it dials hooked ones instead of handing them
	// out again (see retire).
	parked []*dedicatedConn
	open   int // free, parked and in use
	max    int
	last   time.Time // last get
}

type dedicatedConn struct {
	node  *redis.Client
	conn  *redis.Conn
	taken time.Time // from the pool
	used  time.Time // last command
	// claimed: bc was looked for (see binder.claim); bc is the boundConn
	// the connection runs on, nil when it has none.
	claimed bool
	bc      *boundConn
	// primed: its connection has been in the pool since it was dialled.
	// go-redis peeks for push notifications before and after every command
	// on a connection never put into the pool, so an unprimed one goes
	// back after its first command; the one taken next is primed.
	primed bool
	// slot, on a cluster, is the hash slot of the key a Pin reserved it
	// for (see reserveFor).
	slot int
}

// get returns a dedicated connection to node, or nil when the caller should
// use the pool.
func (d *dedicatedConns) get(node *redis.Client) *dedicatedConn {
	now := time.Now()
	var stale, swept []*dedicatedConn
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	if d.nodes == nil {
		d.nodes = make(map[*redis.Client]*nodeConns)
	}
	nc := d.nodes[node]
	if nc == nil {
		// A node not seen lately: on a cluster, a node client replaced
		// after a failover or a resharding is never asked for again, so
		// those unused for long give their connections back now.
		swept = d.sweepLocked(now)
		nc = &nodeConns{max: min(node.Options().PoolSize/4, 2*runtime.GOMAXPROCS(0))}
		d.nodes[node] = nc
	}
	nc.last = now
	idle := d.idle
	if idle == 0 {
		idle = dedicatedIdle
	}
	// The most recently used connection serves; every stale one, wherever
	// it sits, goes back to the pool.
	keep := nc.free[:0]
	for _, c := range nc.free {
		if c.primed && now.Sub(c.used) <= idle && now.Sub(c.taken) <= dedicatedAge {
			keep = append(keep, c)
			continue
		}
		nc.open--
		stale = append(stale, c)
	}
	clear(nc.free[len(keep):])
	var dc *dedicatedConn
	if n := len(keep); n > 0 {
		dc, keep = keep[n-1], keep[:n-1]
	}
	nc.free = keep
	if dc == nil && nc.open < nc.max {
		nc.open++
		// Closing a stale one puts its connection back into the pool,
		// which hands it out next (LIFO): that one is primed.
		dc = &dedicatedConn{node: node, conn: node.Conn(), taken: now, primed: len(stale) > 0}
	}
	d.mu.Unlock()
	for _, s := range append(stale, swept...) {
		// Back to the pool, which probes it before its next use.
		_ = s.conn.Close()
	}
	return dc
}

// put returns dc after a command that ended with err.
func (d *dedicatedConns) put(dc *dedicatedConn, err error) {
	if err != nil && (badConn(err) || notServing(err)) {
		d.discard(dc, isReply(err) && !readOnly(err))
		return
	}
	if err != nil && !isReply(err) {
		// The connection may be broken or hold an unread reply: go-redis
		// removes it from the pool on Close. When the server closed it,
		// the node's other idle dedicated connections were most likely
		// closed with it (a restart, a failover, CLIENT KILL).
		if isPeerClosed(err) {
			d.dropIdle(dc.node)
		}
		d.drop(dc)
		return
	}
	dc.used = time.Now()
	d.keep(dc, false)
}

// park keeps dc, which cannot be bound, out of both the pool and the free
// list until Close or until its node goes unused (see parked).
func (d *dedicatedConns) park(dc *dedicatedConn) { d.keep(dc, true) }

// keep files dc among its node's free (or, parked, its parked)
// connections; when the set closed or forgot the node, dc goes back to the
// pool instead.
func (d *dedicatedConns) keep(dc *dedicatedConn, parked bool) {
	d.mu.Lock()
	nc := d.nodes[dc.node]
	if d.closed || nc == nil {
		if nc != nil {
			nc.open--
		}
		d.mu.Unlock()
		_ = dc.conn.Close()
		return
	}
	if parked {
		nc.parked = append(nc.parked, dc)
	} else {
		nc.free = append(nc.free, dc)
	}
	d.mu.Unlock()
}

func (d *dedicatedConns) drop(dc *dedicatedConn) {
	d.mu.Lock()
	if nc := d.nodes[dc.node]; nc != nil {
		nc.open--
	}
	d.mu.Unlock()
	_ = dc.conn.Close()
}

// discard closes dc's connection for good, instead of giving it back to
// the pool. go-redis removes a Conn's connection from the pool on Close
// only once it marked it bad: after a failure in transit, or a READONLY
// reply (with a name that resolves anew on a failover, a new connection
// may reach the new master). mark makes it bad first, for a reply go-redis
// keeps the connection after (LOADING, MASTERDOWN): a node in that state
// may be a replica, or a restarted server behind the same name, and a
// Conn that go-redis marked refuses every later command with "Conn is in a
// bad state".
func (d *dedicatedConns) discard(dc *dedicatedConn, mark bool) {
	if mark {
		// Fails while go-redis encodes it, before a byte is written; the
		// application's hooks see it as a failed PING.
		_ = dc.conn.Process(context.Background(), noRetryCmd{redis.NewCmd(context.Background(), "ping", discardArg{})})
	}
	d.drop(dc)
}

// discardArg cannot be encoded (see discard).
type discardArg struct{}

// MarshalBinary fails, so that go-redis marks the connection bad.
func (discardArg) MarshalBinary() ([]byte, error) { return nil, errDiscarded }

var errDiscarded = errors.New("redisson: dedicated connection discarded: its node cannot serve writes now")

// sweepLocked forgets the nodes no call has asked for in dedicatedAge and
// nothing is taken from, and returns their connections, for the caller to
// give back to their pools outside d.mu.
func (d *dedicatedConns) sweepLocked(now time.Time) []*dedicatedConn {
	var gone []*dedicatedConn
	for node, nc := range d.nodes {
		if nc.open == len(nc.free)+len(nc.parked) && now.Sub(nc.last) > dedicatedAge {
			gone = append(gone, nc.free...)
			gone = append(gone, nc.parked...)
			delete(d.nodes, node)
		}
	}
	return gone
}

// dropIdle gives the node's idle dedicated connections back to the pool,
// which probes them before their next use.
func (d *dedicatedConns) dropIdle(node *redis.Client) {
	d.mu.Lock()
	var idle []*dedicatedConn
	if nc := d.nodes[node]; nc != nil {
		idle = append(nc.free, nc.parked...)
		nc.free, nc.parked = nil, nil
		nc.open -= len(idle)
	}
	d.mu.Unlock()
	for _, dc := range idle {
		_ = dc.conn.Close()
	}
}

// close gives every idle dedicated connection back to its pool; busy ones
// follow when their command ends.
func (d *dedicatedConns) close() {
	d.mu.Lock()
	d.closed = true
	var all []*dedicatedConn
	for _, nc := range d.nodes {
		all = append(all, nc.free...)
		all = append(all, nc.parked...)
		nc.open -= len(nc.free) + len(nc.parked)
		nc.free, nc.parked = nil, nil
	}
	d.mu.Unlock()
	for _, dc := range all {
		_ = dc.conn.Close()
	}
}

// Dedicated reports how many dedicated connections are open (tests).
func (rt *Runtime) Dedicated() int {
	rt.conns.mu.Lock()
	defer rt.conns.mu.Unlock()
	n := 0
	for _, nc := range rt.conns.nodes {
		n += nc.open
	}
	return n
}

// runOnNode runs s on node through a dedicated connection when one is free,
// else through the node's pool.
func (rt *Runtime) runOnNode(ctx context.Context, node *redis.Client, s *Script, retry bool, keys []string, args []any) (any, error) {
	dc := rt.conns.get(node)
	if dc == nil {
		return s.run(ctx, node, &rt.evalMode, retry, keys, args)
	}
	// Never with go-redis' retries: on a one-connection Conn they only
	// meet the broken connection again, after a backoff each.
	v, err := s.run(ctx, dc.conn, &rt.evalMode, false, keys, args)
	rt.conns.put(dc, err)
	if err == nil || ctx.Err() != nil {
		return v, err
	}
	switch {
	case Rejected(err) && isReply(err):
		// It did not run; put closed the connection.
		return rt.resend(ctx, node, s, retry, keys, args)
	case isReply(err):
		return v, err
	case NotSent(err):
		// The command never left: the pool sends it, as if it had been
		// asked first.
		return s.run(ctx, node, &rt.evalMode, retry, keys, args)
	case isPeerClosed(err) && retry:
		// The server had closed the connection, most likely before the
		// command reached it (the pool would have noticed with its probe),
		// and the script is idempotent: send it again through the pool.
		return s.run(ctx, node, &rt.evalMode, retry, keys, args)
	case isPeerClosed(err):
		return v, &StaleConnError{Err: err}
	}
	return v, err
}

// resend sends s through node's pool after the node turned it away on a
// dedicated connection without running it (READONLY, LOADING, MASTERDOWN):
// the script then goes where the application's own commands go, and what
// go-redis does for those on a failover applies to it too: the pool removes
// a connection that answered READONLY, a failover client dials the master
// Sentinel names, and with retry go-redis tries again after a refusal (its
// MaxRetries, with its back-off). On a node still refusing, it costs a
// round trip; the caller's own retries then take a fresh connection.
func (rt *Runtime) resend(ctx context.Context, node *redis.Client, s *Script, retry bool, keys []string, args []any) (any, error) {
	return s.run(ctx, node, &rt.evalMode, retry, keys, args)
}

// StaleConnError reports that a script that must not run twice failed
// because the server had closed its dedicated connection. The script most
// likely did not run, but it may have: the caller resolves that from Redis
// before it tries again.
type StaleConnError struct{ Err error }

func (e *StaleConnError) Error() string {
	return "connection closed by the server: " + e.Err.Error()
}

func (e *StaleConnError) Unwrap() error { return e.Err }

// isReply reports whether err is an answer from Redis to this command,
// not a failure to get one. go-redis' refusal of a Conn it marked bad is
// not, though it wraps the reply that made it so (READONLY).
func isReply(err error) bool {
	if badConn(err) {
		return false
	}
	var re redis.Error
	return errors.As(err, &re) || errors.Is(err, ErrWrongType)
}

// badConn reports whether err is go-redis refusing to send a command down a
// Conn it marked bad after an earlier one (its BadConnError, which wraps
// that command's failure): nothing was sent, and the Conn never sends
// again. The type is internal to go-redis; its text is not.
func badConn(err error) bool {
	return err != nil && strings.Contains(err.Error(), "redis: Conn is in a bad state")
}

// notServing reports whether err is a reply by which a node said it cannot
// run a write now, without running it: READONLY (a replica), MASTERDOWN (a
// replica cut off from its master), LOADING (a node reading its data set
// after a restart or a full resync). A connection that got one is closed
// (see discard).
func notServing(err error) bool {
	return replyHasPrefix(err, "READONLY ", "MASTERDOWN ", "LOADING ")
}

// readOnly reports whether err is a READONLY reply, after which go-redis
// marks the connection bad itself.
func readOnly(err error) bool { return replyHasPrefix(err, "READONLY ") }

// replyHasPrefix reports whether err is (or wraps) a Redis reply that
// starts with one of prefixes.
func replyHasPrefix(err error, prefixes ...string) bool {
	var re redis.Error
	if err == nil || !errors.As(err, &re) {
		return false
	}
	msg := re.Error()
	for _, p := range prefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// isPeerClosed reports whether err says the connection was closed under us:
// by the server (EOF, reset, broken pipe) or by go-redis on a failover.
func isPeerClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed)
}

// claim finds the boundConn dc runs on, bounded by ctx: the ECHO it sends
// runs before dc's calls can be bound, so it runs on a goroutine of its own
// (once per dedicated connection, not per call). It reports false, having
// given dc up, when the ECHO failed (dc is dropped) or ctx ended first (dc
// then belongs to that goroutine, which gives it back).
func (rt *Runtime) claim(ctx context.Context, dc *dedicatedConn) bool {
	type claimed struct {
		bc  *boundConn
		err error
	}
	ch := make(chan claimed, 1)
	go func() {
		bc, err := rt.binder.claim(dc.conn, rt.timeout)
		ch <- claimed{bc, err}
	}()
	select {
	case c := <-ch:
		dc.claimed, dc.bc = true, c.bc
		if c.err != nil {
			rt.conns.put(dc, c.err)
			return false
		}
		return true
	case <-ctx.Done():
		go func() {
			c := <-ch
			dc.claimed, dc.bc = true, c.bc
			rt.conns.put(dc, c.err)
		}()
		return false
	}
}

// reserve returns a free dedicated connection that calls under ctx can be
// bound on (see Inline), or nil; on a cluster, where it depends on the key,
// always nil (see reserveFor).
func (rt *Runtime) reserve(ctx context.Context) *dedicatedConn {
	return rt.reserveFor(ctx, "")
}

// reserveFor returns a free dedicated connection to the master of key (on
// a single node, the node) that calls under ctx can be bound on, or nil.
func (rt *Runtime) reserveFor(ctx context.Context, key string) *dedicatedConn {
	if rt.cluster && key == "" {
		return nil
	}
	dc, _ := rt.takeBound(ctx, key)
	if dc != nil && rt.cluster {
		dc.slot = Slot(key)
	}
	return dc
}

// takeBound returns a free, claimed dedicated connection with a boundConn
// to the master of key (on a single node, the node), or nil when there is
// none: a cluster whose slot map was never read, WAIT due or not known to
// be, none free, none claimable. lost is true when a claim could not be
// made before ctx ended (nothing was sent).
func (rt *Runtime) takeBound(ctx context.Context, key string) (dc *dedicatedConn, lost bool) {
	node := rt.boundNode(ctx, key)
	if node == nil {
		return nil, false
	}
	if rt.sync.Enabled {
		n, known := rt.sync.cached(ctx, node, rt.logger)
		if !known || n > 0 {
			return nil, false
		}
	}
	dc = rt.conns.get(node)
	if dc == nil {
		return nil, false
	}
	if !dc.claimed && !rt.claim(ctx, dc) {
		return nil, ctx.Err() != nil
	}
	if dc.bc == nil {
		if rt.cluster && !rt.binder.opaque.Load() {
			// Dialled before its node had the hook: the pool would hand
			// it out again and again.
			rt.retire(dc)
		} else {
			rt.conns.put(dc, nil)
		}
		return nil, false
	}
	return dc, false
}

// evalBound runs s under ctx on a dedicated connection bound by ctx (see
// boundConn), without a goroutine. ok is false, with nothing run, when
// that cannot be done (see takeBound; also a command that never left, and
// on a cluster a refusal: MOVED, ASK, TRYAGAIN, CLUSTERDOWN, READONLY,
// LOADING, MASTERDOWN): the caller bounds the call with Bounded instead,
// and on a cluster sends it through the cluster client, which follows the
// redirection. On a single node a refusal is sent again through the pool
// (see resend), bounded.
func (rt *Runtime) evalBound(ctx context.Context, s *Script, retry bool, keys []string, args []any) (v any, err error, ok bool) {
	if rt.binder == nil || len(keys) == 0 {
		return nil, nil, false
	}
	dc, lost := rt.takeBound(ctx, keys[0])
	if dc == nil {
		if lost {
			// Nothing was sent, but the caller's time is up.
			return nil, &AbandonedError{Cause: context.Cause(ctx)}, true
		}
		return nil, nil, false
	}
	stop := dc.bc.bind(ctx, rt.readTimeout <= 0)
	v, err = s.run(ctx, dc.conn, &rt.evalMode, false, keys, args)
	dc.bc.unbind(stop)
	rt.conns.put(dc, err)
	switch {
	case err == nil:
		return v, nil, true
	case isReply(err):
		if rt.cluster && refused(err) {
			// It did not run: the cluster client sends it where the
			// slot is now.
			rt.reloadSlots()
			if ctx.Err() != nil {
				return nil, &AbandonedError{Cause: context.Cause(ctx)}, true
			}
			return nil, nil, false
		}
		if Rejected(err) && ctx.Err() == nil {
			v, err = Bounded(ctx, func(ctx context.Context) (any, error) {
				return rt.resend(ctx, dc.node, s, retry, keys, args)
			})
		}
		return v, err, true
	case ctx.Err() == nil && (NotSent(err) || isPeerClosed(err) && retry):
		// As runOnNode: never sent, or sent to a connection the server had
		// closed and safe to send again; through the pool, bounded.
		return nil, nil, false
	case ctx.Err() == nil && isPeerClosed(err):
		return nil, &StaleConnError{Err: err}, true
	}
	return v, Abandoned(ctx, err), true
}

// evalPinned runs s on the connection pin holds, bound by the deadline of
// the context pin was made for (see Inline); ok is false when pin holds
// none (its first script took it). On a cluster, ok is also false, with
// nothing run, for a script whose key lies in another slot than the one
// pin was made for, and for a refusal (see evalBound): the script then
// goes through the cluster client, bounded by go-redis' ReadTimeout as the
// inline call's later scripts are. On a single node a refusal is returned,
// not sent again (see resend): through the pool it would not end by the
// deadline, which the caller is owed; put closed the connection, so the
// caller's next try takes another.
func (rt *Runtime) evalPinned(ctx context.Context, pin *Pin, s *Script, keys []string, args []any) (v any, err error, ok bool) {
	dc := pin.dc.Swap(nil)
	if dc == nil {
		return nil, nil, false
	}
	if rt.cluster && (len(keys) == 0 || Slot(keys[0]) != dc.slot) {
		rt.conns.put(dc, nil)
		return nil, nil, false
	}
	if d, has := pin.ctx.Deadline(); has {
		dc.bc.limit.Store(d.UnixNano())
	}
	dc.bc.gen.Add(1)
	v, err = s.run(ctx, dc.conn, &rt.evalMode, false, keys, args)
	dc.bc.unbind(nil)
	rt.conns.put(dc, err)
	if err != nil && isReply(err) && rt.cluster && refused(err) {
		rt.reloadSlots()
		return nil, nil, false
	}
	if err != nil && !isReply(err) && isPeerClosed(err) && pin.ctx.Err() == nil {
		return v, &StaleConnError{Err: err}, true
	}
	return v, Abandoned(pin.ctx, err), true
}

// SideOptions returns a copy of o for a go-redis client of our own beside
// the application's (a blocking call's connection). Its maintenance
// notifications are off: the copy would otherwise share o's
// MaintNotificationsConfig, which go-redis writes while the application's
// client dials its first connection, and NewClient reads it (a data race
// under -race). A blocking call reconnects on its own after a failover.
func SideOptions(o *redis.Options) redis.Options {
	cp := *o
	cp.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return cp
}
