package hub_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/slot"
)

func newHub(t *testing.T, rdb redis.UniversalClient, sharded bool) *hub.Hub {
	t.Helper()
	h := hub.New(hub.Config{Client: rdb, Sharded: sharded})
	t.Cleanup(h.Close)
	return h
}

func numSub(t *testing.T, raw *redis.Client, ch string) int64 {
	t.Helper()
	m, err := raw.PubSubNumSub(context.Background(), ch).Result()
	require.NoError(t, err)
	return m[ch]
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func signalled(w *hub.Waiter) bool {
	select {
	case <-w.C():
		return true
	default:
		return false
	}
}

// waitSignal waits for a wake-up with a deadline.
func waitSignal(t *testing.T, w *hub.Waiter) {
	t.Helper()
	select {
	case <-w.C():
	case <-time.After(5 * time.Second):
		t.Fatal("no wake-up")
	}
}

func TestOneSubscriptionPerChannel(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()

	w1, err := h.Subscribe(ctx, "ch", hub.LockPolicy)
	require.NoError(t, err)
	// Subscribe returned, so Redis has the subscription already.
	require.Equal(t, int64(1), numSub(t, raw, "ch"))
	w2, err := h.Subscribe(ctx, "ch", hub.LockPolicy)
	require.NoError(t, err)
	require.Equal(t, int64(1), numSub(t, raw, "ch"))
	require.Equal(t, hub.Stats{Connections: 1, Channels: 1, Waiters: 2}, h.Stats())

	w1.Close(false)
	require.Equal(t, int64(1), numSub(t, raw, "ch"))
	w2.Close(false)
	w2.Close(false) // idempotent
	eventually(t, "unsubscribed", func() bool { return numSub(t, raw, "ch") == 0 })
	require.Equal(t, hub.Stats{Connections: 1}, h.Stats())
}

func TestWakePolicies(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()

	ws := make([]*hub.Waiter, 3)
	for i := range ws {
		w, err := h.Subscribe(ctx, "ch", hub.LockPolicy)
		require.NoError(t, err)
		defer w.Close(false)
		ws[i] = w
	}
	// "0" wakes one waiter: the oldest.
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	waitSignal(t, ws[0])
	require.False(t, signalled(ws[1]))
	require.False(t, signalled(ws[2]))
	// A waiter that already has a wake-up pending is skipped.
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	eventually(t, "two waiters woken", func() bool { return len(ws[0].C()) == 1 && len(ws[1].C()) == 1 })
	require.False(t, signalled(ws[2]))
	waitSignal(t, ws[0])
	waitSignal(t, ws[1])

	// "1" wakes everybody; other payloads nobody.
	require.NoError(t, raw.Publish(ctx, "ch", "7").Err())
	require.NoError(t, raw.Publish(ctx, "ch", "1").Err())
	for _, w := range ws {
		waitSignal(t, w)
	}
	require.NoError(t, raw.Publish(ctx, "ch", "x").Err())
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	waitSignal(t, ws[0])
	require.False(t, signalled(ws[1]))
}

func TestPassOver(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()

	ws := make([]*hub.Waiter, 3)
	for i := range ws {
		w, err := h.Subscribe(ctx, "ch", hub.LockPolicy)
		require.NoError(t, err)
		defer w.Close(false)
		ws[i] = w
	}
	var busy atomic.Bool
	busy.Store(true)
	var asked atomic.Int32
	for _, w := range ws[:2] {
		w.PassOverWhen("group", func() bool { asked.Add(1); return busy.Load() })
	}
	// "0" passes over the two busy waiters and wakes the third.
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	waitSignal(t, ws[2])
	require.False(t, signalled(ws[0]))
	require.False(t, signalled(ws[1]))
	require.Equal(t, int32(1), asked.Load(), "one question per message for the group")
	// The first "0" wakes the third again; with its wake-up pending, the
	// second wakes nobody. A message on another channel of the same
	// connection marks when both were handled.
	marker, err := h.Subscribe(ctx, "marker", hub.LockPolicy)
	require.NoError(t, err)
	defer marker.Close(false)
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	require.NoError(t, raw.Publish(ctx, "marker", "0").Err())
	waitSignal(t, marker)
	require.False(t, signalled(ws[0]), "a busy waiter was woken")
	require.False(t, signalled(ws[1]), "a busy waiter was woken")
	waitSignal(t, ws[2])
	// "1" wakes all, busy or not.
	require.NoError(t, raw.Publish(ctx, "ch", "1").Err())
	for _, w := range ws {
		waitSignal(t, w)
	}
	// No longer busy: the oldest is woken again.
	busy.Store(false)
	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	waitSignal(t, ws[0])
	require.False(t, signalled(ws[1]))
}

func TestUnconsumedWakeUpPassesOn(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()
	first, err := h.Subscribe(ctx, "ch", hub.LockPolicy)
	require.NoError(t, err)
	second, err := h.Subscribe(ctx, "ch", hub.LockPolicy)
	require.NoError(t, err)
	defer second.Close(false)

	require.NoError(t, raw.Publish(ctx, "ch", "0").Err())
	eventually(t, "first woken", func() bool { return len(first.C()) == 1 })
	first.Close(false) // leaves without the lock: its wake-up goes on
	waitSignal(t, second)
}

func TestResubscribeWakesAll(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()
	var ws []*hub.Waiter
	for _, ch := range []string{"a", "b"} {
		w, err := h.Subscribe(ctx, ch, hub.LockPolicy)
		require.NoError(t, err)
		defer w.Close(false)
		ws = append(ws, w)
	}
	require.NoError(t, raw.ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
	for _, w := range ws {
		waitSignal(t, w)
	}
	eventually(t, "resubscribed", func() bool { return numSub(t, raw, "a") == 1 && numSub(t, raw, "b") == 1 })
	// Messages flow on the new connection.
	require.NoError(t, raw.Publish(ctx, "b", "0").Err())
	waitSignal(t, ws[1])
}

func TestSubscribeDuringOutage(t *testing.T) {
	srv := redistest.StartServer(t)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()
	w, err := h.Subscribe(ctx, "warmup", hub.LockPolicy)
	require.NoError(t, err)
	w.Close(false)

	require.NoError(t, srv.Kill())
	sctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = h.Subscribe(sctx, "down", hub.LockPolicy)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	require.NoError(t, srv.Restart(ctx))
	raw := redistest.Client(t, srv)
	published := make(chan struct{})
	got := make(chan error, 1)
	go func() {
		w, err := h.Subscribe(ctx, "up", hub.LockPolicy)
		if err != nil {
			got <- err
			return
		}
		defer w.Close(false)
		// Wake-ups before the publish are allowed (a reconnect wakes every
		// waiter so it re-checks); the one that counts comes after.
		timeout := time.After(10 * time.Second)
		for {
			select {
			case <-w.C():
				select {
				case <-published:
					got <- nil
					return
				default:
				}
			case <-timeout:
				got <- context.DeadlineExceeded
				return
			}
		}
	}()
	eventually(t, "subscribed after restart", func() bool { return numSub(t, raw, "up") == 1 })
	close(published)
	require.NoError(t, raw.Publish(ctx, "up", "0").Err())
	require.NoError(t, <-got)
}

func TestManyChannelsOneConnection(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()
	const channels, per = 500, 4
	var mu sync.Mutex
	var all []*hub.Waiter
	var wg sync.WaitGroup
	for i := 0; i < channels*per; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := h.Subscribe(ctx, "c"+strconv.Itoa(i%channels), hub.LockPolicy)
			if err != nil {
				panic(err)
			}
			mu.Lock()
			all = append(all, w)
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.Equal(t, hub.Stats{Connections: 1, Channels: channels, Waiters: channels * per}, h.Stats())
	clients, err := raw.ClientList(ctx).Result()
	require.NoError(t, err)
	require.Contains(t, clients, "sub="+strconv.Itoa(channels))
	for _, w := range all {
		w.Close(false)
	}
	eventually(t, "all unsubscribed", func() bool {
		chs, err := raw.PubSubChannels(ctx, "c*").Result()
		return err == nil && len(chs) == 0
	})
}

// TestChurn subscribes and drops one channel from many goroutines; the hub
// must end with the channel unsubscribed and must never confirm a waiter
// before Redis has its subscription.
func TestChurn(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				w, err := h.Subscribe(ctx, "churn", hub.LockPolicy)
				if err != nil {
					errs <- err
					return
				}
				w.Close(false)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	eventually(t, "unsubscribed", func() bool { return numSub(t, raw, "churn") == 0 })

	// After the churn a new waiter is subscribed for real when confirmed.
	w, err := h.Subscribe(ctx, "churn", hub.LockPolicy)
	require.NoError(t, err)
	defer w.Close(false)
	require.Equal(t, int64(1), numSub(t, raw, "churn"))
}

func TestShardedOnSingleNode(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), true)
	ctx := context.Background()
	w, err := h.Subscribe(ctx, "s", hub.LockPolicy)
	require.NoError(t, err)
	defer w.Close(false)
	require.NoError(t, raw.Publish(ctx, "s", "0").Err())
	require.NoError(t, raw.SPublish(ctx, "s", "0").Err())
	waitSignal(t, w)
	n, err := raw.Do(ctx, "PUBSUB", "SHARDNUMSUB", "s").Slice()
	require.NoError(t, err)
	require.Equal(t, []any{"s", int64(1)}, n)
}

func TestClose(t *testing.T) {
	srv := redistest.StartServer(t)
	h := hub.New(hub.Config{Client: redistest.Client(t, srv)})
	ctx := context.Background()
	w, err := h.Subscribe(ctx, "x", hub.LockPolicy)
	require.NoError(t, err)
	h.Close()
	h.Close()
	<-h.Done()
	w.Close(false)
	_, err = h.Subscribe(ctx, "x", hub.LockPolicy)
	require.ErrorIs(t, err, hub.ErrClosed)
}

// TestShardedManySlots: sharded waiters on channels of many slots, first
// subscribed concurrently (one SSUBSCRIBE per slot: Redis refuses one that
// spans slots), then after the connection is killed.
func TestShardedManySlots(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	cc := cl.Client(t)
	h := newHub(t, cc, true)
	var nodes []*redis.Client
	for _, m := range cl.Masters {
		nodes = append(nodes, redistest.Client(t, m))
	}
	ctx := context.Background()
	const n = 200
	ws := make([]*hub.Waiter, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := h.Subscribe(ctx, "sh"+strconv.Itoa(i), hub.LockPolicy)
			ws[i] = w
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	defer func() {
		for _, w := range ws {
			w.Close(false)
		}
	}()
	shardSubs := func() int {
		args := []any{"PUBSUB", "SHARDNUMSUB"}
		for i := 0; i < n; i++ {
			args = append(args, "sh"+strconv.Itoa(i))
		}
		subscribed := 0
		for _, node := range nodes {
			res, err := node.Do(ctx, args...).Slice()
			require.NoError(t, err)
			for i := 1; i < len(res); i += 2 {
				if res[i] == int64(1) {
					subscribed++
				}
			}
		}
		return subscribed
	}
	require.Equal(t, n, shardSubs())
	require.Equal(t, 3, h.Stats().Connections, "one connection per master")

	for _, node := range nodes {
		require.NoError(t, node.ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
	}
	eventually(t, "every channel resubscribed", func() bool { return shardSubs() == n })
	for _, w := range ws {
		for signalled(w) {
		}
	}
	require.NoError(t, cc.SPublish(ctx, "sh7", "0").Err())
	waitSignal(t, ws[7])
}

// TestClientClosedDuringConfirmation: the go-redis client is closed while a
// subscription waits for its confirmation. Subscribe must fail at once with
// an error saying why, not wait for the caller's context.
func TestClientClosedDuringConfirmation(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := srv.NewClient()
	h := newHub(t, rdb, false)
	ctx := context.Background()
	require.NoError(t, rdb.Close())
	start := time.Now()
	_, err := h.Subscribe(ctx, "x", hub.LockPolicy)
	require.ErrorIs(t, err, redis.ErrClosed)
	require.Less(t, time.Since(start), 5*time.Second)
}

// TestClientClosedWhileConfirming: the client closes while a subscribe is on
// the wire (the connection is stalled, so no confirmation can come). The
// waiting Subscribe fails soon with an error naming the cause; a confirmed
// waiter of another channel is woken to find out on its next command.
func TestClientClosedWhileConfirming(t *testing.T) {
	srv := redistest.StartServer(t)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr()})
	h := hub.New(hub.Config{Client: rdb, ConfirmTimeout: time.Minute})
	t.Cleanup(h.Close)
	ctx := context.Background()
	confirmedW, err := h.Subscribe(ctx, "confirmed", hub.LockPolicy)
	require.NoError(t, err)
	defer confirmedW.Close(false)

	p.Stall()
	errc := make(chan error, 1)
	go func() {
		_, err := h.Subscribe(ctx, "pending", hub.LockPolicy)
		errc <- err
	}()
	eventually(t, "subscribe pending", func() bool { return h.Stats().Waiters == 2 })
	start := time.Now()
	require.NoError(t, rdb.Close())
	select {
	case err := <-errc:
		require.ErrorIs(t, err, redis.ErrClosed)
		require.ErrorContains(t, err, `"pending"`)
	case <-time.After(20 * time.Second):
		t.Fatal("Subscribe still waits 20 s after the client closed")
	}
	t.Logf("Subscribe failed %v after the client closed", time.Since(start))
	waitSignal(t, confirmedW)
	_, err = h.Subscribe(ctx, "later", hub.LockPolicy)
	require.ErrorIs(t, err, redis.ErrClosed)
	p.Resume()
}

// TestConfirmTimeout: a stalled connection never confirms; Subscribe fails
// after ConfirmTimeout with ErrNotConfirmed, however long the caller's
// context, leaves nothing registered, and once the network is back the hub
// (on a replaced connection) subscribes again.
func TestConfirmTimeout(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	const timeout = 300 * time.Millisecond
	h := hub.New(hub.Config{Client: rdb, ConfirmTimeout: timeout})
	t.Cleanup(h.Close)
	ctx := context.Background()
	w, err := h.Subscribe(ctx, "warmup", hub.LockPolicy)
	require.NoError(t, err)
	w.Close(false)

	p.Stall()
	start := time.Now()
	_, err = h.Subscribe(ctx, "stalled", hub.LockPolicy)
	took := time.Since(start)
	require.ErrorIs(t, err, hub.ErrNotConfirmed)
	require.ErrorContains(t, err, `"stalled"`)
	require.GreaterOrEqual(t, took, timeout)
	require.Less(t, took, timeout+5*time.Second)
	require.Equal(t, 0, h.Stats().Waiters)
	require.Equal(t, 0, h.Stats().Channels)
	p.Resume()

	var w2 *hub.Waiter
	redistest.Eventually(t, 30*time.Second, "subscribed after the stall", func() bool {
		var err error
		w2, err = h.Subscribe(ctx, "after", hub.LockPolicy)
		return err == nil
	})
	defer w2.Close(false)
	// The replacement the timeout asked for may come after "after" was
	// confirmed on the old connection (the control loop picks among ready
	// requests at random); it then subscribes "after" again on the new one,
	// so the count can be 0 for a moment. A publish lost in that gap is
	// covered: the resubscription wakes the waiter.
	redistest.Eventually(t, 10*time.Second, `"after" subscribed on the server`, func() bool {
		return numSub(t, raw, "after") == 1
	})
	require.NoError(t, raw.Publish(ctx, "after", "0").Err())
	waitSignal(t, w2)
}

// TestShardedSlotMoved: a slot moves to another master behind the cluster
// client's back. A channel of that slot, routed by the stale slot map to
// the old owner, gets MOVED: the hub subscribes it on the new owner in time
// for Subscribe to return. Then the slot moves back: Redis drops the
// subscription (a server-sent sunsubscribe) and the hub subscribes again on
// the owner of the moment. SPUBLISH there wakes the waiter each time.
func TestShardedSlotMoved(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	cc := cl.Client(t)
	h := newHub(t, cc, true)
	ctx := context.Background()
	const ch = "{moved}a"
	s := slot.Of(ch)
	from, err := cl.MasterOf(ctx, s)
	require.NoError(t, err)
	to := cl.Masters[0]
	if to == from {
		to = cl.Masters[1]
	}
	// The client learns the slot map and opens a connection to from, on
	// a channel of another slot (whose drop would refresh the map).
	warmCh := ""
	for i := 0; warmCh == ""; i++ {
		c := "warm" + strconv.Itoa(i)
		if m, err := cl.MasterOf(ctx, slot.Of(c)); err == nil && m == from && slot.Of(c) != s {
			warmCh = c
		}
	}
	warm, err := h.Subscribe(ctx, warmCh, hub.LockPolicy)
	require.NoError(t, err)
	defer warm.Close(false)
	require.NoError(t, cl.MoveSlot(ctx, s, from, to))
	shardNumSub := func(srv *redistest.Server) int64 {
		n, err := redistest.Client(t, srv).Do(ctx, "PUBSUB", "SHARDNUMSUB", ch).Slice()
		require.NoError(t, err)
		return n[1].(int64)
	}
	start := time.Now()
	w, err := h.Subscribe(ctx, ch, hub.LockPolicy)
	require.NoError(t, err)
	defer w.Close(false)
	require.Less(t, time.Since(start), hub.DefaultConfirmTimeout)
	require.Equal(t, int64(1), shardNumSub(to))
	drain := func() {
		for len(w.C()) > 0 {
			<-w.C()
		}
	}
	drain()
	require.NoError(t, redistest.Client(t, to).SPublish(ctx, ch, "0").Err())
	waitSignal(t, w)

	require.NoError(t, cl.MoveSlot(ctx, s, to, from))
	eventually(t, "subscribed on the old owner again", func() bool { return shardNumSub(from) == 1 })
	drain()
	require.NoError(t, redistest.Client(t, from).SPublish(ctx, ch, "0").Err())
	waitSignal(t, w)
}

// TestOnConfirm: a new subscription's confirmation is reported once (a
// second waiter joins it without one), and after a reconnect each channel's
// resubscription is reported as such.
func TestOnConfirm(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	type confirm struct {
		channel string
		resub   bool
	}
	var mu sync.Mutex
	var got []confirm
	h := hub.New(hub.Config{Client: redistest.Client(t, srv), OnConfirm: func(channel string, resub bool, d time.Duration) {
		if d <= 0 {
			panic("a confirmation takes time")
		}
		mu.Lock()
		got = append(got, confirm{channel, resub})
		mu.Unlock()
	}})
	t.Cleanup(h.Close)
	seen := func() []confirm {
		mu.Lock()
		defer mu.Unlock()
		return append([]confirm(nil), got...)
	}
	ctx := context.Background()
	w1, err := h.Subscribe(ctx, "a", hub.LockPolicy)
	require.NoError(t, err)
	defer w1.Close(false)
	w2, err := h.Subscribe(ctx, "a", hub.LockPolicy)
	require.NoError(t, err)
	defer w2.Close(false)
	// The report comes from the reader after the confirmation has released
	// Subscribe, so it may land just after Subscribe returns.
	eventually(t, "the confirmation reported", func() bool { return len(seen()) >= 1 })
	require.Equal(t, []confirm{{"a", false}}, seen())

	require.NoError(t, raw.ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
	eventually(t, "the resubscription reported", func() bool { return len(seen()) == 2 })
	require.Equal(t, []confirm{{"a", false}, {"a", true}}, seen())
}

// TestUnsubscribeDone: the channel UnsubscribeDone gives is closed only
// once Redis answered the unsubscribe, so from then on PUBLISH no longer
// counts this client (the adders' sum waits for one answer per receiver).
func TestUnsubscribeDone(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	h := newHub(t, redistest.Client(t, srv), false)
	ctx := context.Background()

	select {
	case <-h.UnsubscribeDone(hub.Channel, "ch"):
	default:
		t.Fatal("nothing was unsubscribed: the channel must be closed at once")
	}
	for round := range 20 {
		w, err := h.Subscribe(ctx, "ch", hub.LockPolicy)
		require.NoError(t, err)
		require.Equal(t, int64(1), numSub(t, raw, "ch"))
		w.Close(false)
		select {
		case <-h.UnsubscribeDone(hub.Channel, "ch"):
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the unsubscribe was never answered", round)
		}
		require.Equal(t, int64(0), numSub(t, raw, "ch"), "round %d: answered, so Redis no longer counts us", round)
	}
}
