package conns

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// On a cluster the application's client is a *redis.ClusterClient, whose
// hooks never reach the connections: each node has a *redis.Client of its
// own, made by the cluster client when it first meets the node. The binder
// is added to every node client: through OnNewNode to those made from New
// on (before they dial), and to those made earlier when a bound call first
// asks for their node (in the go-redis this module requires, v9.23, AddHook
// builds a new hook chain under a mutex and publishes it with an atomic
// store that dials and commands load, so it is safe on a client in use; a
// connection the node dialled before has no boundConn and is retired, see
// retire).
//
// A call bound by its context then goes straight to the key's master, as on
// a single node (see TakeBound). Its node comes from the cluster client's
// slot map (MasterForKey), which may be out of date after a resharding or a
// failover: the master then refuses the script (MOVED, ASK, READONLY, ...)
// before running it, and the call is sent again through the cluster client,
// which follows the redirection and reloads its map. A script that may have
// run is never sent again: a transport failure is handled as on a single
// node.

// bindCluster adds the binder to cc's node clients (see above).
func (p *Pool) bindCluster(cc *redis.ClusterClient) {
	b := &binder{cc: cc}
	p.binder = b
	cc.OnNewNode(b.hook)
}

// hook adds the binder's dial hook to node once.
func (b *binder) hook(node *redis.Client) {
	if _, done := b.hooked.Load(node); done {
		return
	}
	if _, done := b.hooked.LoadOrStore(node, struct{}{}); !done {
		node.AddHook(b)
	}
}

// readSlots has the cluster client read its slot map once, off the
// caller's goroutine; bound calls wait for it (see boundNode).
func (p *Pool) readSlots(key string) {
	b := p.binder
	if !b.reading.CompareAndSwap(false, true) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(p.life, p.timeout)
		defer cancel()
		if _, err := b.cc.MasterForKey(ctx, key); err == nil {
			b.ready.Store(true)
		}
		b.reading.Store(false)
	}()
}

// retire takes dc, a connection to a cluster node dialled before the node
// had the dial hook, out of its pool for good, off the caller's goroutine:
// back in the pool it would be handed out again and again (LIFO), and the
// node's calls would never be bound. QUIT has the server close it after the
// reply; the PING after that fails, so that go-redis discards the
// connection on Close instead of pooling it, and the pool dials a hooked
// one when it next needs one. A server that refuses QUIT has it parked
// instead (see dedicated.park).
func (p *Pool) retire(dc *Conn) {
	go func() {
		if p.life.Err() != nil {
			p.set.drop(dc)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		err := dc.conn.Do(ctx, "QUIT").Err()
		switch {
		case err == nil:
			_ = dc.conn.Ping(ctx).Err()
		case isReply(err):
			p.set.park(dc)
			return
		}
		// Failed in transit or after QUIT: go-redis discards it on Close.
		p.set.drop(dc)
	}()
}

// ReloadSlots has the cluster client read its slot map again soon (in the
// background), after a node refused a call for a slot it no longer serves.
func (p *Pool) ReloadSlots() {
	if b := p.binder; b != nil && b.cc != nil {
		b.cc.ReloadState(context.Background())
	}
}
