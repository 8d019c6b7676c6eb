package queue_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestTakeWokenByPush: a waiting Take returns the element another client
// (here a raw RPUSH, what Java's put sends) pushes; TakeLast takes the tail.
func TestTakeWokenByPush(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	q := redisson.NewBlockingDeque[string](c, "bq", codec.String())

	got := make(chan string, 1)
	go func() {
		v, err := q.Take(ctx)
		if err != nil {
			v = err.Error()
		}
		got <- v
	}()
	waitBlocked(t, raw, 1)
	require.NoError(t, raw.RPush(ctx, "bq", "job1").Err())
	require.Equal(t, "job1", recv(t, got))

	go func() {
		v, err := q.TakeLast(ctx)
		if err != nil {
			v = err.Error()
		}
		got <- v
	}()
	waitBlocked(t, raw, 1)
	require.NoError(t, raw.RPush(ctx, "bq", "x", "y").Err())
	require.Equal(t, "y", recv(t, got))
	require.Equal(t, []string{"x"}, list(t, raw, "bq"))

	// Poll with a timeout returns at once when there is one, false after
	// the timeout when there is none.
	v, ok, err := q.PollFirst(ctx, time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "x", v)
	_, ok, err = q.PollLast(ctx, 50*time.Millisecond)
	require.NoError(t, err)
	require.False(t, ok)
	require.Zero(t, blockedClients(t, raw))
}

func recv[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(within):
		t.Fatalf("nothing within %v", within)
	}
	var zero T
	return zero
}

func blockedClients(t testing.TB, raw *redis.Client) int {
	t.Helper()
	info, err := raw.Info(context.Background(), "clients").Result()
	require.NoError(t, err)
	n, _ := strconv.Atoi(redistest.ParseInfo(info)["blocked_clients"])
	return n
}

func connectedClients(t testing.TB, raw *redis.Client) int {
	t.Helper()
	info, err := raw.Info(context.Background(), "clients").Result()
	require.NoError(t, err)
	n, _ := strconv.Atoi(redistest.ParseInfo(info)["connected_clients"])
	return n
}

// waitBlocked waits until n clients are blocked in Redis.
func waitBlocked(t testing.TB, raw *redis.Client, n int) {
	t.Helper()
	redistest.Eventually(t, within, fmt.Sprintf("%d blocked clients", n), func() bool {
		return blockedClients(t, raw) == n
	})
}

// TestTakeUsesNoPooledConnection: a waiting Take holds no connection of
// the application's go-redis pool: with a pool of one, other commands go on
// while it waits.
func TestTakeUsesNoPooledConnection(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.PoolSize = 1; o.PoolTimeout = time.Second })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	defer c.Close()
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	q := redisson.NewBlockingQueue[string](c, "bq", codec.String())
	done := make(chan error, 2)
	for range 2 {
		go func() { _, err := q.Take(ctx); done <- err }()
	}
	waitBlocked(t, raw, 2)
	for i := range 5 {
		require.NoError(t, q.Offer(ctx, strconv.Itoa(i)))
	}
	require.NoError(t, recv(t, done))
	require.NoError(t, recv(t, done))
	n, err := q.Size(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
}

// TestTakeEndsOnClose: Close ends waiting calls with ErrClosed and leaves
// no blocked client in Redis when it returns.
func TestTakeEndsOnClose(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	defer c.Close()
	raw := redistest.Client(t, srv)
	// Connections other than the application's pool (whose size varies
	// with what the client does in the background).
	others := func() int { return connectedClients(t, raw) - int(rdb.PoolStats().TotalConns) }
	q := redisson.NewBlockingDeque[string](c, "bq", codec.String())
	require.NoError(t, q.Offer(t.Context(), "warm-up")) // the application's own connection
	_, _, err = q.PollFirst(t.Context(), 0)
	require.NoError(t, err)
	baseline := others()
	done := make(chan error, 3)
	go func() { _, err := q.Take(context.Background()); done <- err }()
	go func() { _, err := q.TakeLast(context.Background()); done <- err }()
	go func() { _, _, err := q.PollFirst(context.Background(), time.Hour); done <- err }()
	waitBlocked(t, raw, 3)
	require.NoError(t, c.Close())
	for range 3 {
		require.ErrorIs(t, recv(t, done), redisson.ErrClosed)
	}
	require.Zero(t, blockedClients(t, raw), "Close returned with a blocked client left in Redis")
	// The waiting calls' own connections are closed with the client.
	redistest.Eventually(t, within, "blocking connections closed", func() bool {
		return others() <= baseline
	})
	require.NoError(t, raw.RPush(context.Background(), "bq", "after").Err())
	require.Equal(t, []string{"after"}, list(t, raw, "bq"))
}

// TestCancelledTakeLosesNothing races Takes whose callers leave at random
// moments against a producer, many times: every element produced is either
// returned by a Take that returned it (once) or still in the queue; none is
// lost, none is delivered twice.
func TestCancelledTakeLosesNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	q := redisson.NewBlockingDeque[string](c, "race", codec.String())
	const rounds, perRound, consumers = 40, 25, 4
	got := map[string]int{}
	var mu sync.Mutex
	cancelled := 0
	for round := range rounds {
		var wg sync.WaitGroup
		for k := range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perRound {
					cctx, cancel := context.WithCancel(ctx)
					// Leave after a random moment: before, during or after
					// the element arrives.
					timer := time.AfterFunc(time.Duration(rand.IntN(3000))*time.Microsecond, cancel)
					var v string
					var err error
					if k%2 == 0 {
						v, err = q.Take(cctx)
					} else {
						v, err = q.TakeLast(cctx)
					}
					timer.Stop()
					cancel()
					mu.Lock()
					if err == nil {
						got[v]++
					} else {
						cancelled++
					}
					mu.Unlock()
				}
			}()
		}
		for i := range consumers * perRound / 2 {
			require.NoError(t, q.Put(ctx, fmt.Sprintf("r%d-%d", round, i)))
			if i%7 == 0 {
				time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond)
			}
		}
		wg.Wait()
	}
	// Every abandoned slice has been ended and its element put back once
	// the client says nothing is in flight.
	redistest.Eventually(t, within, "abandoned takes settled", func() bool { return blockedClients(t, raw) == 0 })
	require.NoError(t, c.Close())
	left := list(t, raw, "race")
	for _, v := range left {
		got[v]++
	}
	total := rounds * consumers * perRound / 2
	require.Len(t, got, total, "an element was lost (received or left %d distinct of %d)", len(got), total)
	for v, n := range got {
		require.Equal(t, 1, n, "element %s delivered %d times", v, n)
	}
	stats, err := raw.Info(ctx, "commandstats").Result()
	require.NoError(t, err)
	t.Logf("%d elements: %d taken, %d left in the queue; %d takes cancelled; put back to the head: %s; unblocks: %s",
		total, total-len(left), len(left), cancelled,
		redistest.ParseInfo(stats)["cmdstat_lpush"], redistest.ParseInfo(stats)["cmdstat_client|unblock"])
	require.NotZero(t, cancelled, "no take was cancelled: the test proves nothing")
	// Only put-backs send LPUSH here (the producer RPUSHes): the way back
	// was taken, not only the unblocking.
	require.Contains(t, stats, "cmdstat_lpush:", "no element was put back: the race was never met")
}

// TestTakeRidesOutRestart: a Take waiting while Redis restarts goes on
// waiting on the restarted server and gets the next element.
func TestTakeRidesOutRestart(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithRetry(redisson.RetryOptions{Attempts: 20, Delay: 100 * time.Millisecond}))
	raw := redistest.Client(t, srv)
	q := redisson.NewBlockingQueue[string](c, "bq", codec.String())
	done := make(chan string, 1)
	go func() {
		v, err := q.Take(context.Background())
		if err != nil {
			v = "error: " + err.Error()
		}
		done <- v
	}()
	waitBlocked(t, raw, 1)
	require.NoError(t, srv.Restart(t.Context()))
	waitBlocked(t, raw, 1)
	require.NoError(t, raw.RPush(t.Context(), "bq", "after-restart").Err())
	require.Equal(t, "after-restart", recv(t, done))
}

// TestTakeRidesOutDemotion: a master that becomes a replica unblocks its
// waiting clients (UNBLOCKED) and refuses writes (READONLY); a Take waits
// on through both and gets the element pushed once it is a master again.
func TestTakeRidesOutDemotion(t *testing.T) {
	srv := redistest.StartServer(t)
	other := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithRetry(redisson.RetryOptions{Attempts: 100, Delay: 50 * time.Millisecond}))
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	q := redisson.NewBlockingQueue[string](c, "bq", codec.String())
	done := make(chan string, 1)
	go func() {
		v, err := q.Take(ctx)
		if err != nil {
			v = "error: " + err.Error()
		}
		done <- v
	}()
	waitBlocked(t, raw, 1)
	host, port, _ := strings.Cut(other.Addr(), ":")
	require.NoError(t, raw.Do(ctx, "replicaof", host, port).Err())
	waitBlocked(t, raw, 0)
	redistest.Eventually(t, within, "a try refused with READONLY", func() bool {
		stats, err := raw.Info(ctx, "commandstats").Result()
		require.NoError(t, err)
		b := redistest.ParseInfo(stats)["cmdstat_blpop"]
		return strings.Contains(b, "rejected_calls=") && !strings.Contains(b, "rejected_calls=0,")
	})
	require.NoError(t, raw.Do(ctx, "replicaof", "no", "one").Err())
	waitBlocked(t, raw, 1)
	require.NoError(t, raw.RPush(ctx, "bq", "back").Err())
	require.Equal(t, "back", recv(t, done))
}
