package core

import (
	"context"
	"time"

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
// a single node (see evalBound). Its node comes from the cluster client's
// slot map (MasterForKey), which may be out of date after a resharding or a
// failover: the master then refuses the script (MOVED, ASK, READONLY, ...)
// before running it, and the call is sent again through the cluster client,
// which follows the redirection and reloads its map. A script that may have
// run is never sent again: a transport failure is handled as on a single
// node.

// bindCluster adds the binder to cc's node clients (see above).
func (rt *Runtime) bindCluster(cc *redis.ClusterClient) {
	b := &binder{cc: cc}
	rt.binder = b
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

// boundNode returns the node a call on key can be bound on: the client on a
// single node, the key's master on a cluster; nil when there is none (no
// binder, a cluster whose slot map was never read).
func (rt *Runtime) boundNode(ctx context.Context, key string) *redis.Client {
	b := rt.binder
	if b == nil {
		return nil
	}
	if b.cc == nil {
		node, _ := rt.redis.(*redis.Client)
		return node
	}
	if !b.ready.Load() {
		// MasterForKey would read the slot map on this call, bounded by
		// go-redis' timeouts rather than ctx.
		rt.readSlots(key)
		return nil
	}
	node, err := b.cc.MasterForKey(ctx, key)
	if err != nil {
		return nil
	}
	b.hook(node)
	return node
}

// readSlots has the cluster client read its slot map once, off the
// caller's goroutine; bound calls wait for it (see boundNode).
func (rt *Runtime) readSlots(key string) {
	b := rt.binder
	if !b.reading.CompareAndSwap(false, true) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(rt.done, rt.timeout)
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
// instead (see dedicatedConns.park).
func (rt *Runtime) retire(dc *dedicatedConn) {
	go func() {
		if rt.done.Err() != nil {
			rt.conns.drop(dc)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), rt.timeout)
		defer cancel()
		err := dc.conn.Do(ctx, "QUIT").Err()
		switch {
		case err == nil:
			_ = dc.conn.Ping(ctx).Err()
		case isReply(err):
			rt.conns.park(dc)
			return
		}
		// Failed in transit or after QUIT: go-redis discards it on Close.
		rt.conns.drop(dc)
	}()
}

// reloadSlots has the cluster client read its slot map again soon (in the
// background), after a node refused a call for a slot it no longer serves.
func (rt *Runtime) reloadSlots() {
	if b := rt.binder; b != nil && b.cc != nil {
		b.cc.ReloadState(context.Background())
	}
}

// refused reports whether err is a cluster node's refusal to run a command
// at all: a redirection, or a slot or node not ready for it.
func refused(err error) bool {
	return IsRedirect(err) || Rejected(err)
}

// InlineFor is Inline for a call whose first script's first key is key: on
// a cluster, the connection it pins is one to key's master (Inline, which
// knows no key, pins none there). On a single node key is not used.
func (rt *Runtime) InlineFor(ctx context.Context, key string) (context.Context, *Pin, bool) {
	if !rt.cluster {
		return rt.Inline(ctx)
	}
	if ctx.Done() == nil {
		return ctx, nil, true
	}
	if !rt.needsBound(ctx) {
		return context.WithoutCancel(ctx), nil, true
	}
	deadline, ok := limitOf(ctx)
	if !ok || time.Until(deadline) < minPinned {
		return nil, nil, false
	}
	dc := rt.reserveFor(ctx, key)
	if dc == nil {
		return nil, nil, false
	}
	pin := &Pin{rt: rt, ctx: ctx}
	pin.dc.Store(dc)
	return context.WithValue(context.WithoutCancel(ctx), pinKey{}, pin), pin, true
}
