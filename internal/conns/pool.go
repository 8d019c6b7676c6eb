package conns

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
// bookkeeping cost a CPU share comparable to the script's own run in Redis.
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
// bound by their context do (see TakeBound), on the key's master: the
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

type dedicated struct {
	mu     sync.Mutex
	nodes  map[*redis.Client]*nodeConns
	closed bool
	idle   time.Duration // 0: dedicatedIdle
}

type nodeConns struct {
	free []*Conn // most recently used last
	// parked: on a cluster, connections that cannot be bound (dialled
	// before the node had the dial hook) and could not be retired, kept
	// out of the pool so that it dials hooked ones instead of handing them
	// out again (see retire).
	parked []*Conn
	open   int // free, parked and in use
	max    int
	last   time.Time // last get
}

// Conn is a dedicated connection: one of the go-redis pool's connections to
// a node, kept out of the pool for lock scripts.
type Conn struct {
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
func (d *dedicated) get(node *redis.Client) *Conn {
	now := time.Now()
	var stale, swept []*Conn
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
	var dc *Conn
	if n := len(keep); n > 0 {
		dc, keep = keep[n-1], keep[:n-1]
	}
	nc.free = keep
	if dc == nil && nc.open < nc.max {
		nc.open++
		// Closing a stale one puts its connection back into the pool,
		// which hands it out next (LIFO): that one is primed.
		dc = &Conn{node: node, conn: node.Conn(), taken: now, primed: len(stale) > 0}
	}
	d.mu.Unlock()
	for _, s := range append(stale, swept...) {
		// Back to the pool, which probes it before its next use.
		_ = s.conn.Close()
	}
	return dc
}

// put returns dc after a command that ended with err; reply says err is an
// answer from Redis, not a failure to get one.
func (d *dedicated) put(dc *Conn, err error, reply bool) {
	if err != nil && (BadConn(err) || notServing(err)) {
		d.discard(dc, reply && !readOnly(err))
		return
	}
	if err != nil && !reply {
		// The connection may be broken or hold an unread reply: go-redis
		// removes it from the pool on Close. When the server closed it,
		// the node's other idle dedicated connections were most likely
		// closed with it (a restart, a failover, CLIENT KILL).
		if PeerClosed(err) {
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
func (d *dedicated) park(dc *Conn) { d.keep(dc, true) }

// keep files dc among its node's free (or, parked, its parked)
// connections; when the set closed or forgot the node, dc goes back to the
// pool instead.
func (d *dedicated) keep(dc *Conn, parked bool) {
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

func (d *dedicated) drop(dc *Conn) {
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
func (d *dedicated) discard(dc *Conn, mark bool) {
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

// noRetryCmd is a command go-redis must not send a second time.
type noRetryCmd struct{ *redis.Cmd }

func (noRetryCmd) NoRetry() bool { return true }

var errDiscarded = errors.New("redisson: dedicated connection discarded: its node cannot serve writes now")

// sweepLocked forgets the nodes no call has asked for in dedicatedAge and
// nothing is taken from, and returns their connections, for the caller to
// give back to their pools outside d.mu.
func (d *dedicated) sweepLocked(now time.Time) []*Conn {
	var gone []*Conn
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
func (d *dedicated) dropIdle(node *redis.Client) {
	d.mu.Lock()
	var idle []*Conn
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
func (d *dedicated) close() {
	d.mu.Lock()
	d.closed = true
	var all []*Conn
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

// Open reports how many dedicated connections are open (tests).
func (p *Pool) Open() int {
	p.set.mu.Lock()
	defer p.set.mu.Unlock()
	n := 0
	for _, nc := range p.set.nodes {
		n += nc.open
	}
	return n
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

// BadConn reports whether err is go-redis refusing to send a command down a
// Conn it marked bad after an earlier one (its BadConnError, which wraps
// that command's failure): nothing was sent, and the Conn never sends
// again. The type is internal to go-redis; its text is not.
func BadConn(err error) bool {
	return err != nil && strings.Contains(err.Error(), "redis: Conn is in a bad state")
}

// notServing reports whether err is a reply by which a node said it cannot
// run a write now, without running it: READONLY (a replica), MASTERDOWN (a
// replica cut off from its master), LOADING (a node reading its data set
// after a restart or a full resync). A connection that got one is closed
// (see discard).
func notServing(err error) bool {
	return ReplyHasPrefix(err, "READONLY ", "MASTERDOWN ", "LOADING ")
}

// readOnly reports whether err is a READONLY reply, after which go-redis
// marks the connection bad itself.
func readOnly(err error) bool { return ReplyHasPrefix(err, "READONLY ") }

// ReplyHasPrefix reports whether err is (or wraps) a Redis reply that
// starts with one of prefixes.
func ReplyHasPrefix(err error, prefixes ...string) bool {
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

// PeerClosed reports whether err says the connection was closed under us:
// by the server (EOF, reset, broken pipe) or by go-redis on a failover.
func PeerClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed)
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
