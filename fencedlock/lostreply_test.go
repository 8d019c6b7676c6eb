package fencedlock_test

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
)

// dropper is a loopback TCP proxy that, when armed, loses the next reply the
// server sends on any connection: it cuts that connection (the command ran,
// the client sees EOF), or with hold set, delays the reply that long.
type dropper struct {
	ln    net.Listener
	armed atomic.Bool
	hold  atomic.Int64
	wg    sync.WaitGroup
}

func newDropper(t *testing.T, target string) *dropper {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	d := &dropper{ln: ln}
	d.wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			go func() { _, _ = io.Copy(server, client); server.Close() }()
			go d.replies(client, server)
		}
	})
	t.Cleanup(func() { ln.Close(); d.wg.Wait() })
	return d
}

// replies copies server → client, losing one reply when armed.
func (d *dropper) replies(client, server net.Conn) {
	defer client.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 && d.armed.CompareAndSwap(true, false) {
			if hold := time.Duration(d.hold.Load()); hold > 0 {
				time.Sleep(hold)
			} else {
				server.Close()
				return
			}
		}
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestLostAcquireReplyGetsItsToken: an acquire whose reply is lost either
// still gets its own token or is undone, never a wrong one and never a
// hold counted twice. A cut connection is resolved from Redis (the hold
// count and the token, read in one step); a reply delayed past the read
// timeout is reported and the acquisition undone (its token is burnt:
// nobody ever gets it).
func TestLostAcquireReplyGetsItsToken(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	proxy := newDropper(t, srv.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: proxy.ln.Addr().String(), MaxRetries: 3, ReadTimeout: 300 * time.Millisecond, MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { rdb.Close() })
	// The proxy loses the next reply on any connection: the registration
	// record's background writes must not be the one it picks.
	c, err := redisson.New(rdb, redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	lock := c.FencedLock("fragile")
	tokenKey := keys.FencedLockToken("fragile")
	h, err := lock.Lock(ctx) // warm-up: scripts cached, replica count read
	require.NoError(t, err)
	require.Equal(t, int64(1), h.Token())
	require.NoError(t, h.Unlock(ctx))
	field := c.ID() + ":77"

	for round := range 3 {
		// Connection cut after the script ran: the lock is ours, held
		// once, with the token the lost reply carried.
		before, err := raw.Get(ctx, tokenKey).Int64()
		require.NoError(t, err)
		proxy.armed.Store(true)
		h, err = lock.Lock(ctx, fencedlock.WithOwner(77))
		require.NoError(t, err, "round %d: the cut connection is resolved from Redis", round)
		require.False(t, proxy.armed.Load(), "the reply was dropped")
		require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "fragile").Val(), "held once, not twice")
		require.Equal(t, strconv.FormatInt(before+1, 10), raw.Get(ctx, tokenKey).Val(), "one acquisition, one token")
		require.Equal(t, before+1, h.Token(), "the hold has the token its acquisition issued")
		require.NoError(t, h.Unlock(ctx))

		// A re-entry whose reply is cut: its own token, count 2.
		outer, err := lock.Lock(ctx, fencedlock.WithOwner(77))
		require.NoError(t, err)
		proxy.armed.Store(true)
		inner, err := lock.Lock(ctx, fencedlock.WithOwner(77))
		require.NoError(t, err)
		require.False(t, proxy.armed.Load())
		require.Equal(t, outer.Token()+1, inner.Token())
		require.Equal(t, map[string]string{field: "2"}, raw.HGetAll(ctx, "fragile").Val())
		require.NoError(t, inner.Unlock(ctx))
		require.NoError(t, outer.Unlock(ctx))

		// Reply held back past the read timeout: a single try reports
		// it, undone.
		before, err = raw.Get(ctx, tokenKey).Int64()
		require.NoError(t, err)
		proxy.hold.Store(int64(time.Second))
		proxy.armed.Store(true)
		_, ok, err := lock.TryLock(ctx, fencedlock.WithOwner(77))
		require.Error(t, err, "the lost reply is reported, not retried")
		require.False(t, ok)
		require.False(t, proxy.armed.Load(), "the reply was held back")
		proxy.hold.Store(0)
		require.Zero(t, raw.Exists(ctx, "fragile").Val(), "undone: fields %v", raw.HGetAll(ctx, "fragile").Val())
		require.Equal(t, strconv.FormatInt(before+1, 10), raw.Get(ctx, tokenKey).Val(), "the script ran once")

		h, err = lock.Lock(ctx, fencedlock.WithOwner(77))
		require.NoError(t, err)
		require.Equal(t, before+2, h.Token(), "the next acquisition is past the burnt token")
		require.NoError(t, h.Unlock(ctx))

		// A waiting Lock rides a held-back reply out (Options.Retry): its
		// next try, after a back-off, reads that the lost one ran, and the
		// lock is its, held once, with the token that try issued.
		proxy.hold.Store(int64(time.Second))
		proxy.armed.Store(true)
		h, err = lock.Lock(ctx, fencedlock.WithOwner(77))
		require.NoError(t, err, "round %d: the wait resolves a try whose reply was lost", round)
		require.False(t, proxy.armed.Load(), "the reply was held back")
		proxy.hold.Store(0)
		require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "fragile").Val(), "held once, not twice")
		require.Equal(t, before+3, h.Token(), "the hold has the token the lost try issued")
		require.Equal(t, strconv.FormatInt(before+3, 10), raw.Get(ctx, tokenKey).Val(), "no other acquisition")
		require.NoError(t, h.Unlock(ctx))
	}
}

// TestLostHandOffReplyGetsItsToken: the reply of an unlock that handed the
// lock to a waiter of the same client is lost. The unlock is sent again;
// its latch replays "released" without the token, and the waiter reads its
// token and hold from Redis in one step. It gets the token the hand-off
// issued.
func TestLostHandOffReplyGetsItsToken(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	proxy := newDropper(t, srv.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: proxy.ln.Addr().String(), MaxRetries: 3, ReadTimeout: 2 * time.Second, MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { rdb.Close() })
	// The proxy loses the next reply on any connection: the registration
	// record's background writes must not be the one it picks.
	c, err := redisson.New(rdb, redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	const name = "handoff-lost"
	lock := c.FencedLock(name)
	channel := keys.LockChannel(name)

	// Round 0 loads the hand-off script (a NOSCRIPT reply lost would prove
	// nothing); the later rounds lose the hand-off's reply.
	for round := range 4 {
		h1, err := lock.Lock(ctx)
		require.NoError(t, err)
		got := make(chan *fencedlock.Hold, 1)
		go func() {
			h, err := lock.Lock(ctx)
			if err != nil {
				t.Error(err)
			}
			got <- h
		}()
		// A waiter parks in the client's queue before it subscribes, and
		// sends no try while the lock is held through its own client: once
		// subscribed, it is one the unlock hands the lock to.
		redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool {
			return redistest.NumSub(t, raw, channel) >= 1
		})
		var h2 *fencedlock.Hold
		sent := redistest.Sent(t, srv, raw, func() {
			proxy.armed.Store(round > 0)
			require.NoError(t, h1.Unlock(ctx))
			select {
			case h2 = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("the waiter did not get the lock")
			}
		})
		require.False(t, proxy.armed.Load(), "round %d: a reply was dropped", round)
		require.NotNil(t, h2)
		latches := map[string]int{}
		for _, cmd := range redistest.Mentioning(sent, keys.UnlockLatchPrefix(name)) {
			for _, a := range cmd.Args {
				if strings.HasPrefix(a, keys.UnlockLatchPrefix(name)) {
					latches[a]++
				}
			}
		}
		require.Len(t, latches, 1, "round %d: one unlock request: %v", round, latches)
		for _, n := range latches {
			if round > 0 {
				require.Equal(t, 2, n, "round %d: the first send and the one its lost reply called for", round)
			}
		}
		require.Equal(t, h1.Token()+1, h2.Token(), "round %d", round)
		tok, err := lock.Token(ctx)
		require.NoError(t, err)
		require.Equal(t, h2.Token(), tok)
		n, err := lock.HoldCount(ctx, h2.Owner())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.NoError(t, h2.Err())
		require.NoError(t, h2.Unlock(ctx))
	}
}
