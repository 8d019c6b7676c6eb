package rlock_test

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

// replyDropper is a loopback TCP proxy that, when armed, cuts a connection
// right after the server answered on it: the command ran, its reply is lost.
type replyDropper struct {
	ln    net.Listener
	armed atomic.Bool
	// delay, when set with armed, holds the next reply back that long
	// instead of cutting the connection.
	delay atomic.Int64
	wg    sync.WaitGroup
}

func newReplyDropper(t *testing.T, target string) *replyDropper {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &replyDropper{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() {
				buf := make([]byte, 64<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 && p.armed.CompareAndSwap(true, false) {
						if d := time.Duration(p.delay.Load()); d > 0 {
							time.Sleep(d)
						} else {
							c.Close()
							s.Close()
							return
						}
					}
					if n > 0 {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

// TestLostAcquireReplyIsNotRetried: go-redis retries commands whose reply
// was lost; an acquire script run twice would count two holds for one Lock.
// The acquire is sent without client retries. When the connection was cut,
// Redis is asked whether the script ran (then the lock is ours, once); when
// the reply timed out, the outcome is undone and the error reported.
func TestLostAcquireReplyIsNotRetried(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	proxy := newReplyDropper(t, srv.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: proxy.ln.Addr().String(), MaxRetries: 3, ReadTimeout: 300 * time.Millisecond, MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { rdb.Close() })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	lock := c.Lock("fragile")
	h, err := lock.Lock(ctx) // warm-up: script cached, replica count read
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	owner := rlock.WithOwner(77)
	field := c.ID() + ":77"

	// Connection cut after the script ran: the lock is ours, held once.
	proxy.armed.Store(true)
	h, err = lock.Lock(ctx, owner)
	require.NoError(t, err, "the cut connection is resolved from Redis")
	require.False(t, proxy.armed.Load(), "the reply was dropped")
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "fragile").Val(), "held once, not twice")
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, int64(0), raw.Exists(ctx, "fragile").Val())

	// Reply held back past the read timeout: a single try reports it,
	// undone.
	proxy.delay.Store(int64(time.Second))
	proxy.armed.Store(true)
	_, ok, err := lock.TryLock(ctx, owner)
	require.Error(t, err, "the lost reply is reported, not retried")
	require.False(t, ok)
	require.False(t, proxy.armed.Load(), "the reply was held back")
	// The acquire ran once and was undone: no hold, certainly not two.
	require.Equal(t, int64(0), raw.Exists(ctx, "fragile").Val(), "fields: %v", raw.HGetAll(ctx, "fragile").Val())

	// A waiting Lock rides it out (Options.Retry): its next try, after a
	// back-off, reads that the lost one ran; the lock is its, held once.
	proxy.armed.Store(true)
	h, err = lock.Lock(ctx, owner)
	require.NoError(t, err, "the wait retries a try whose reply was lost")
	require.False(t, proxy.armed.Load(), "the reply was held back")
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "fragile").Val(), "held once, not twice")
	require.NoError(t, h.Unlock(ctx))
	proxy.delay.Store(0)

	h, err = lock.Lock(ctx, owner)
	require.NoError(t, err)
	n, err := lock.HoldCount(ctx, 77)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, int64(0), raw.Exists(ctx, "fragile").Val())
}

// lostReplies is a go-redis hook that fails scripts carrying one owner
// field with a read timeout, as a connection going silent around them
// would: the first after it ran (its reply lost), the rest before they were
// sent. The
// server is real; only the client's view of these replies is cut.
type lostReplies struct {
	field string
	total int32
	left  atomic.Int32 // scripts still to fail
	done  chan struct{}
}

func (h *lostReplies) hit(cmd redis.Cmder) bool {
	if h.left.Load() <= 0 {
		return false
	}
	for _, a := range cmd.Args() {
		if s, ok := a.(string); ok && s == h.field {
			return true
		}
	}
	return false
}

func (h *lostReplies) fail(cmd redis.Cmder) (bool, error) {
	if !h.hit(cmd) {
		return false, nil
	}
	n := h.left.Add(-1)
	if n == 0 {
		close(h.done)
	}
	err := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	cmd.SetErr(err)
	return true, err
}

func (h *lostReplies) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *lostReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !h.hit(cmd) {
			return next(ctx, cmd)
		}
		if h.left.Load() == h.total {
			_ = next(ctx, cmd) // it runs; its reply is lost
		}
		_, err := h.fail(cmd)
		return err
	}
}
func (h *lostReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if h.hit(c) {
				if h.left.Load() == h.total {
					_ = next(ctx, cmds)
				}
				_, err := h.fail(c)
				return err
			}
		}
		return next(ctx, cmds)
	}
}

// TestOwedUndoBlocksHandOff: a waiter's try loses its reply, and so does
// the read, after a back-off, of whether that try ran: the waiter owes that
// answer and backs off again (Options.Retry). Meanwhile another goroutine
// of the same client takes the lock and unlocks: it must not hand the lock
// to the waiter, whose wait, should it end owing the answer, undoes the
// lost try (two owners if that undo met the handed lock). The unlock
// releases the lock for real instead, and the waiter gets it after its
// back-off, held once.
func TestOwedUndoBlocksHandOff(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	remote, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { remote.Close() })
	rdb := redistest.Client(t, srv)
	// A back-off of at least 2 s: far longer than the steps below take.
	c, err := redisson.New(rdb, redisson.WithRetry(redisson.RetryOptions{Attempts: 4, Delay: 4 * time.Second}))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	const waiterOwner = 2
	field := c.ID() + ":2"
	// The waiter's acquire (it runs; its reply times out) and the read of
	// whether it ran (not sent).
	hook := &lostReplies{field: field, total: 2, done: make(chan struct{})}
	hook.left.Store(hook.total)
	rdb.AddHook(hook)

	r, err := remote.Lock("owed").Lock(ctx)
	require.NoError(t, err)
	got := make(chan error, 1)
	var w *rlock.Hold
	go func() {
		var err error
		w, err = c.Lock("owed").Lock(ctx, rlock.WithOwner(waiterOwner))
		got <- err
	}()
	select {
	case <-hook.done:
	case err := <-got:
		t.Fatalf("the wait ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter's try and undo were not sent within 10 s")
	}
	owed := time.Now()
	// The remote holder's lock goes without a message (a message would
	// end the waiter's back-off): nothing wakes the waiter.
	require.NoError(t, raw.Del(ctx, "owed").Err())
	h, err := c.Lock("owed").Lock(ctx, rlock.WithOwner(1))
	require.NoError(t, err)
	// Handed over, the lock would reach the waiter without a message
	// and be released by the undo its wait ends with; released for real,
	// its message wakes the waiter, which reads that its lost try did
	// not run and takes the lock.
	require.NoError(t, h.Unlock(ctx))
	require.Less(t, time.Since(owed), 2*time.Second, "the steps ran within the waiter's back-off")
	_ = r // its hold is lost with the key; its client notices at renewal

	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter did not acquire within 30 s")
	}
	// The waiter's wait ended owing nothing: no undo runs behind it.
	require.Eventually(t, func() bool { return c.Stats().PubSub.Waiters == 0 }, 5*time.Second, 10*time.Millisecond)
	// A lock handed to the waiter and then released by its owed undo would
	// leave it holding nothing in Redis: two owners.
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "owed").Val(), "the waiter holds the lock in Redis, once")
	require.NoError(t, w.Unlock(ctx))
	require.Zero(t, raw.Exists(ctx, "owed").Val())
}

// TestPendingUndoBoundedByWait: a wait ends while it owes the answer to a
// lost try that did take the lock, so its undo runs in the background, and
// that undo fails and backs off (at least 2 s here). A TryLock of the same
// owner must not try before that undo ran (the undo would release what it
// takes), and its wait bounds how long it stands back: it reports the lock
// not acquired after its 300 ms, while the lost try's hold is still in
// Redis, and the undo removes that hold afterwards.
func TestPendingUndoBoundedByWait(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb, redisson.WithRetry(redisson.RetryOptions{Attempts: 4, Delay: 4 * time.Second}))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	const owner = 2
	field := c.ID() + ":2"
	// The acquire (it runs and takes the lock; its reply times out) and
	// the first send of the undo (not sent). Added before the client's
	// first command: connections the client sets aside keep the hooks of
	// their birth.
	hook := &lostReplies{field: field, total: 2, done: make(chan struct{})}
	rdb.AddHook(hook)
	// Scripts loaded, so the acquire the hook lets through runs rather
	// than getting NOSCRIPT.
	h, err := c.Lock("pending").Lock(ctx, rlock.WithOwner(1))
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	hook.left.Store(hook.total)

	wctx, cancel := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() {
		_, err := c.Lock("pending").Lock(wctx, rlock.WithOwner(owner))
		got <- err
	}()
	redistest.Eventually(t, 10*time.Second, "the lost try ran", func() bool { return hook.left.Load() == 1 })
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "pending").Val())
	cancel()
	require.ErrorIs(t, <-got, context.Canceled)
	select {
	case <-hook.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait ended owing its answer but sent no undo within 10 s")
	}

	_, ok, err := c.Lock("pending").TryLock(ctx, rlock.WithOwner(owner), rlock.WithWait(300*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "pending").Val(),
		"TryLock returned before the undo ran (it backs off at least 2 s)")
	redistest.Eventually(t, 10*time.Second, "the undo ran", func() bool { return raw.Exists(ctx, "pending").Val() == 0 })

	h, ok, err = c.Lock("pending").TryLock(ctx, rlock.WithOwner(owner))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, map[string]string{field: "1"}, raw.HGetAll(ctx, "pending").Val())
	require.NoError(t, h.Unlock(ctx))
}
