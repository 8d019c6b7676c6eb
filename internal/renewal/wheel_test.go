package renewal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/leakcheck"
)

// call is one Kind.Queue call as the fake saw it.
type call struct {
	ctx      context.Context
	pipe     redis.Pipeliner
	ttl      time.Duration
	keys     []string
	data     []any
	at       time.Time
	deadline time.Time
	n        int // 1-based index among the fake's calls
}

// fakeKind renews in memory: it queues nothing on the pipeline (an empty
// go-redis pipeline executes without any I/O, see
// TestEmptyPipelineExecDoesNoIO) and answers with answer, or renews all.
type fakeKind struct {
	mu     sync.Mutex
	calls  []call
	answer func(c call) ([]bool, error)
}

func (k *fakeKind) Queue(ctx context.Context, pipe redis.Pipeliner, ttl time.Duration, leases []*Lease) func() ([]bool, error) {
	c := call{ctx: ctx, pipe: pipe, ttl: ttl, at: time.Now()}
	c.deadline, _ = ctx.Deadline()
	for _, l := range leases {
		c.keys = append(c.keys, l.Key())
		c.data = append(c.data, l.Data())
	}
	k.mu.Lock()
	c.n = len(k.calls) + 1
	k.calls = append(k.calls, c)
	answer := k.answer
	k.mu.Unlock()
	return func() ([]bool, error) {
		if answer != nil {
			return answer(c)
		}
		return all(len(c.keys), true), nil
	}
}

func (k *fakeKind) snapshot() []call {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.calls)
}

// callsFor returns the calls that carried key.
func (k *fakeKind) callsFor(key string) []call {
	var out []call
	for _, c := range k.snapshot() {
		if slices.Contains(c.keys, key) {
			out = append(out, c)
		}
	}
	return out
}

func all(n int, v bool) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// lostLog records OnLost calls per key.
type lostLog struct {
	mu sync.Mutex
	m  map[string][]error
	at map[string]time.Time
}

func newLostLog() *lostLog {
	return &lostLog{m: map[string][]error{}, at: map[string]time.Time{}}
}

func (r *lostLog) fn(key string) func(error) {
	return func(err error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.m[key] = append(r.m[key], err)
		r.at[key] = time.Now()
	}
}

func (r *lostLog) get(key string) ([]error, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.m[key]), r.at[key]
}

func (r *lostLog) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, errs := range r.m {
		n += len(errs)
	}
	return n
}

// deadAddr is a local address nobody listens on: a command sent there fails
// at once with "connection refused".
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func newClient(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: deadAddr(t), MaxRetries: -1, DialTimeout: 200 * time.Millisecond, DialerRetries: 1})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func start(t *testing.T, cfg Config) *Wheel {
	t.Helper()
	if cfg.Client == nil {
		cfg.Client = newClient(t)
	}
	w := New(cfg)
	t.Cleanup(w.Close)
	return w
}

// soon is a Start that makes a 30s watchdog lease due for renewal in d, with
// 20s of validity left: rounds come quickly and nothing runs out in a test.
func soon(d time.Duration) time.Time { return time.Now().Add(-10*time.Second + d) }

// wait bounds the waits of a test, in the fake time of its bubble
// (testing/synctest): the wheel's clock, ticks and timers are fake there,
// and time moves only while every goroutine of the bubble waits, so what a
// test asserts of times is exact, whatever the load of the machine.
const wait = 5 * time.Second

// await lets the bubble's fake clock run until cond holds, and fails the
// test when wait passes first.
func await(t *testing.T, cond func() bool, msgAndArgs ...any) {
	t.Helper()
	end := time.Now().Add(wait)
	for {
		synctest.Wait()
		if cond() {
			return
		}
		if !time.Now().Before(end) {
			require.FailNow(t, "the condition did not hold in time", msgAndArgs...)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestEmptyPipelineExecDoesNoIO(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	cmds, err := c.Pipeline().Exec(context.Background())
	require.NoError(t, err)
	assert.Empty(t, cmds)
	st := c.PoolStats()
	assert.Zero(t, st.TotalConns)
	assert.Zero(t, st.Misses, "no connection was asked for")
}

func TestRenewalCadence(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{})
		ttl := 900 * time.Millisecond
		begin := time.Now()
		w.Add(Spec{Key: "a", Owner: "o", Kind: k, TTL: ttl, Start: begin, OnLost: lost.fn("a")})

		// Renewals are due at 300, 600 and 900 ms: count those of the first second.
		time.Sleep(time.Until(begin.Add(time.Second)))
		calls := k.callsFor("a")
		var in []call
		for _, c := range calls {
			if c.at.Before(begin.Add(time.Second)) {
				in = append(in, c)
			}
		}
		assert.Len(t, in, 3)
		require.NotEmpty(t, calls)
		assert.False(t, calls[0].at.Before(begin.Add(ttl/3)), "never renewed before it is due")
		for _, c := range calls {
			assert.Equal(t, ttl, c.ttl)
		}
		assert.Zero(t, lost.total())
		assert.Equal(t, 1, w.Len())
		assert.GreaterOrEqual(t, w.Stats().Renewed, uint64(2))
	})
}

func TestRoundDeadline(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{Timeout: time.Second})

		// Short lease: the deadline is its validity, not now+Timeout.
		begin := time.Now()
		w.Add(Spec{Key: "short", Kind: k, TTL: 600 * time.Millisecond, Start: begin, OnLost: lost.fn("short")})
		// Long lease: the deadline is now+Timeout.
		w.Add(Spec{Key: "long", Kind: k, TTL: 30 * time.Second, Start: soon(50 * time.Millisecond), OnLost: lost.fn("long")})

		await(t, func() bool {
			return len(k.callsFor("short")) > 0 && len(k.callsFor("long")) > 0
		})
		short := k.callsFor("short")[0]
		require.False(t, short.deadline.IsZero())
		assert.False(t, short.deadline.After(begin.Add(600*time.Millisecond)), "deadline %v after validUntil", short.deadline.Sub(begin))
		long := k.callsFor("long")[0]
		assert.False(t, long.deadline.After(long.at.Add(time.Second)))
		assert.True(t, long.deadline.After(long.at.Add(900*time.Millisecond)), "deadline only %v after the call", long.deadline.Sub(long.at))
	})
}

func TestBatching(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{BatchSize: 100})
		s := soon(200 * time.Millisecond)
		for i := range 250 {
			key := fmt.Sprintf("k%d", i)
			w.Add(Spec{Key: key, Owner: "o", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn(key)})
		}
		await(t, func() bool { return len(k.snapshot()) >= 3 })
		calls := k.snapshot()
		require.Len(t, calls, 3)
		var sizes []int
		seen := map[string]bool{}
		for _, c := range calls {
			assert.Same(t, calls[0].pipe, c.pipe, "one pipeline for the round")
			sizes = append(sizes, len(c.keys))
			for _, key := range c.keys {
				assert.False(t, seen[key], "key %s twice", key)
				seen[key] = true
			}
		}
		slices.Sort(sizes)
		assert.Equal(t, []int{50, 100, 100}, sizes)
		assert.Len(t, seen, 250)
		await(t, func() bool { return w.Stats().Renewed == 250 })
		st := w.Stats()
		assert.Equal(t, uint64(1), st.Rounds)
		assert.Equal(t, uint64(3), st.Scripts)
		assert.Zero(t, lost.total())
		assert.Equal(t, 250, w.Len())
	})
}

// slotOf reads the slot from keys "s<slot>:...".
func slotOf(key string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(key[:strings.IndexByte(key, ':')], "s"))
	if err != nil {
		panic(err)
	}
	return n
}

func TestGroupingBySlotKindAndTTL(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k1, k2 := &fakeKind{}, &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{BatchSize: 100, Slot: slotOf})
		due := time.Now().Add(200 * time.Millisecond)
		add := func(k *fakeKind, slot, n int, ttl time.Duration) {
			for i := range n {
				key := fmt.Sprintf("s%d:%v:%p:%d", slot, ttl, k, i)
				// Same due time whatever the TTL: Start + TTL/3 = due.
				w.Add(Spec{Key: key, Kind: k, TTL: ttl, Start: due.Add(-ttl / 3), Data: slot, OnLost: lost.fn(key)})
			}
		}
		add(k1, 0, 150, 30*time.Second) // 2 calls
		add(k1, 1, 30, 30*time.Second)  // 1
		add(k1, 2, 5, 30*time.Second)   // 1
		add(k1, 1, 7, 60*time.Second)   // 1: other TTL
		add(k2, 0, 10, 30*time.Second)  // 1: other Kind
		const total = 150 + 30 + 5 + 7 + 10

		await(t, func() bool { return w.Stats().Renewed == total })
		c1, c2 := k1.snapshot(), k2.snapshot()
		require.Len(t, c1, 5)
		require.Len(t, c2, 1)
		pipe := c1[0].pipe
		for _, c := range append(c1, c2...) {
			assert.Same(t, pipe, c.pipe, "one pipeline for the round")
			assert.LessOrEqual(t, len(c.keys), 100)
			for i, key := range c.keys {
				assert.Equal(t, slotOf(c.keys[0]), slotOf(key), "one slot per call")
				assert.Equal(t, slotOf(key), c.data[i], "Data reaches the Kind")
				assert.Contains(t, key, ":"+c.ttl.String()+":", "TTL of the call is the lease's")
			}
		}
		st := w.Stats()
		assert.Equal(t, uint64(1), st.Rounds)
		assert.Equal(t, uint64(6), st.Scripts)
		assert.Zero(t, lost.total())
	})
}

func TestKeyGone(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{answer: func(c call) ([]bool, error) {
			out := make([]bool, len(c.keys))
			for i, key := range c.keys {
				out[i] = key != "gone"
			}
			return out, nil
		}}
		lost := newLostLog()
		w := start(t, Config{})
		s := soon(50 * time.Millisecond)
		w.Add(Spec{Key: "gone", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("gone")})
		w.Add(Spec{Key: "kept", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("kept")})

		await(t, func() bool { errs, _ := lost.get("gone"); return len(errs) > 0 })
		await(t, func() bool { return w.Stats().Renewed == 1 })
		errs, _ := lost.get("gone")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrKeyGone)
		assert.Contains(t, errs[0].Error(), "gone")
		kept, _ := lost.get("kept")
		assert.Empty(t, kept)
		assert.Equal(t, 1, w.Len())
		assert.Equal(t, uint64(1), w.Stats().Lost)
	})
}

// syncBuffer is a bytes.Buffer safe for the wheel's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestPersistentErrorExpires(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		errBoom := errors.New("boom")
		k := &fakeKind{answer: func(call) ([]bool, error) { return nil, errBoom }}
		lost := newLostLog()
		var logs syncBuffer
		w := start(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		ttl := 900 * time.Millisecond
		begin := time.Now()
		w.Add(Spec{Key: "a", Kind: k, TTL: ttl, Start: begin, OnLost: lost.fn("a")})

		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		errs, at := lost.get("a")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrLeaseExpired)
		assert.ErrorIs(t, errs[0], errBoom, "the last renewal error is kept")
		// Reported before the lease ends, by at most the margin and a tick.
		end := begin.Add(ttl)
		margin := Margin(ttl, 2*time.Millisecond, 10*time.Millisecond)
		assert.True(t, at.Before(end), "lost %v after its expiry", at.Sub(end))
		assert.False(t, at.Before(end.Add(-margin-10*time.Millisecond)), "lost %v before its expiry", end.Sub(at))

		// Tries at 300 ms, then retries every TTL/30 = 30 ms until 900 ms: at
		// most 21, far fewer than one per 10 ms tick.
		n := len(k.snapshot())
		assert.GreaterOrEqual(t, n, 3)
		assert.LessOrEqual(t, n, 22)
		st := w.Stats()
		assert.Equal(t, uint64(n), st.Errors)
		assert.Equal(t, uint64(1), st.Lost)
		assert.Zero(t, st.Renewed)
		assert.Zero(t, w.Len())
		assert.Contains(t, logs.String(), "level=WARN")
		assert.Contains(t, logs.String(), "boom")
	})
}

// pingKind renews nothing but sends a real PING, so that a dead Redis fails
// the whole pipeline inside go-redis.
type pingKind struct{}

func (pingKind) Queue(ctx context.Context, pipe redis.Pipeliner, _ time.Duration, leases []*Lease) func() ([]bool, error) {
	cmd := pipe.Ping(ctx)
	return func() ([]bool, error) {
		if err := cmd.Err(); err != nil {
			return nil, err
		}
		return all(len(leases), true), nil
	}
}

func TestDeadRedisExpires(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// go-redis redials a dead Redis from a goroutine that sleeps a
		// second between dials: once the client is closed, let it see so
		// before the bubble ends (cleanups run last to first).
		t.Cleanup(func() { time.Sleep(2 * time.Second) })
		lost := newLostLog()
		w := start(t, Config{})
		ttl := 600 * time.Millisecond
		begin := time.Now()
		w.Add(Spec{Key: "a", Kind: pingKind{}, TTL: ttl, Start: begin, OnLost: lost.fn("a")})
		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		errs, at := lost.get("a")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrLeaseExpired)
		// The last attempt fails with the dial error, or with the deadline when
		// it started too close to the expiry.
		var opErr *net.OpError
		assert.True(t, errors.As(errs[0], &opErr) || errors.Is(errs[0], context.DeadlineExceeded), "cause: %v", errs[0])
		end := begin.Add(ttl)
		margin := Margin(ttl, 2*time.Millisecond, 10*time.Millisecond)
		assert.True(t, at.Before(end), "lost %v after its expiry", at.Sub(end))
		assert.False(t, at.Before(end.Add(-margin-10*time.Millisecond)), "lost %v before its expiry", end.Sub(at))
		assert.GreaterOrEqual(t, w.Stats().Errors, uint64(2))
	})
}

func TestBadResultLengthIsAnError(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{answer: func(call) ([]bool, error) { return nil, nil }}
		lost := newLostLog()
		w := start(t, Config{})
		w.Add(Spec{Key: "a", Kind: k, TTL: 300 * time.Millisecond, Start: time.Now(), OnLost: lost.fn("a")})
		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		errs, _ := lost.get("a")
		assert.ErrorIs(t, errs[0], ErrLeaseExpired)
		assert.Contains(t, errs[0].Error(), "0 results for 1 leases")
		assert.NotZero(t, w.Stats().Errors)
	})
}

func TestCancelBeforeDue(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{})
		s := soon(100 * time.Millisecond)
		victim := w.Add(Spec{Key: "victim", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("victim")})
		w.Add(Spec{Key: "witness", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("witness")})
		fixed := w.Add(Spec{Key: "fixed", TTL: 100 * time.Millisecond, Start: time.Now(), OnLost: lost.fn("fixed")})
		assert.Equal(t, 3, w.Len())
		assert.True(t, w.Cancel(victim))
		assert.False(t, w.Cancel(victim), "idempotent")
		assert.True(t, w.Cancel(fixed))
		assert.Equal(t, 1, w.Len())

		// Both were due in the same tick as the witness.
		await(t, func() bool { return w.Stats().Renewed == 1 })
		assert.Empty(t, k.callsFor("victim"))
		assert.Len(t, k.callsFor("witness"), 1)
		assert.Zero(t, lost.total())
		w.Reset(victim, time.Now(), time.Second) // no-op on a cancelled lease
		assert.Equal(t, 1, w.Len())
	})
}

// blockingKind holds its first round in the result function until released,
// answering with answer afterwards.
func blockingKind(answer func(c call) ([]bool, error)) (k *fakeKind, entered <-chan struct{}, release func()) {
	in := make(chan struct{})
	gate := make(chan struct{})
	k = &fakeKind{answer: func(c call) ([]bool, error) {
		if c.n == 1 {
			close(in)
			<-gate
		}
		return answer(c)
	}}
	return k, in, func() { close(gate) }
}

func TestCancelInFlight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The round would say the victim is gone; Cancel must win.
		k, entered, release := blockingKind(func(c call) ([]bool, error) {
			out := make([]bool, len(c.keys))
			for i, key := range c.keys {
				out[i] = key != "victim"
			}
			return out, nil
		})
		lost := newLostLog()
		w := start(t, Config{})
		s := soon(50 * time.Millisecond)
		victim := w.Add(Spec{Key: "victim", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("victim")})
		w.Add(Spec{Key: "witness", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("witness")})
		select {
		case <-entered:
		case <-time.After(wait):
			t.Fatal("no round")
		}
		require.Len(t, k.snapshot(), 1)
		require.ElementsMatch(t, []string{"victim", "witness"}, k.snapshot()[0].keys)
		assert.True(t, w.Cancel(victim))
		release()
		await(t, func() bool { return w.Stats().Renewed == 1 })
		assert.Zero(t, lost.total())
		assert.Zero(t, w.Stats().Lost)
		assert.Equal(t, 1, w.Len())
		assert.False(t, w.Cancel(victim))
	})
}

func TestResetInFlight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The blocked round fails; the Reset done meanwhile must stand.
		k, entered, release := blockingKind(func(c call) ([]bool, error) {
			if c.n == 1 {
				return all(len(c.keys), false), nil
			}
			return all(len(c.keys), true), nil
		})
		lost := newLostLog()
		w := start(t, Config{})
		l := w.Add(Spec{Key: "a", Kind: k, TTL: 30 * time.Second, Start: soon(50 * time.Millisecond), OnLost: lost.fn("a")})
		select {
		case <-entered:
		case <-time.After(wait):
			t.Fatal("no round")
		}
		resetAt := time.Now()
		ttl := 900 * time.Millisecond
		w.Reset(l, resetAt, ttl)
		release()
		await(t, func() bool { return len(k.callsFor("a")) >= 2 })
		second := k.callsFor("a")[1]
		assert.Equal(t, ttl, second.ttl)
		assert.False(t, second.at.Before(resetAt.Add(ttl/3)), "renewed %v after Reset", second.at.Sub(resetAt))
		assert.False(t, second.deadline.After(resetAt.Add(ttl)), "validity comes from the Reset")
		assert.Zero(t, lost.total())
		assert.Equal(t, 1, w.Len())
	})
}

func TestResetPushesRenewalLater(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{})
		begin := time.Now()
		ttl := 600 * time.Millisecond
		victim := w.Add(Spec{Key: "victim", Kind: k, TTL: ttl, Start: begin, OnLost: lost.fn("victim")})
		w.Add(Spec{Key: "witness", Kind: k, TTL: ttl, Start: begin, OnLost: lost.fn("witness")})
		resetAt := time.Now()
		w.Reset(victim, resetAt, 3*time.Second) // next renewal at resetAt+1s

		await(t, func() bool { return len(k.callsFor("witness")) >= 2 })
		assert.Empty(t, k.callsFor("victim"), "not renewed at its old due time")
		await(t, func() bool { return len(k.callsFor("victim")) >= 1 })
		first := k.callsFor("victim")[0]
		assert.False(t, first.at.Before(resetAt.Add(time.Second)), "renewed %v after Reset", first.at.Sub(resetAt))
		assert.Equal(t, 3*time.Second, first.ttl)
		assert.Zero(t, lost.total())
	})
}

func TestFixedLease(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		lost := newLostLog()
		w := New(Config{}) // no Client needed without watchdog leases
		t.Cleanup(w.Close)
		begin := time.Now()
		w.Add(Spec{Key: "a", TTL: 200 * time.Millisecond, Start: begin, OnLost: lost.fn("a")})
		b := w.Add(Spec{Key: "b", TTL: 200 * time.Millisecond, Start: begin, OnLost: lost.fn("b")})
		resetAt := time.Now()
		w.Reset(b, resetAt, 600*time.Millisecond)

		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		errs, at := lost.get("a")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrLeaseExpired)
		assertLostJustBefore(t, at, begin.Add(200*time.Millisecond), 200*time.Millisecond)
		assert.Equal(t, 1, w.Len())

		await(t, func() bool { errs, _ := lost.get("b"); return len(errs) > 0 })
		errs, at = lost.get("b")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrLeaseExpired)
		assertLostJustBefore(t, at, resetAt.Add(600*time.Millisecond), 600*time.Millisecond) // Reset extended it
		st := w.Stats()
		assert.Zero(t, st.Rounds)
		assert.Zero(t, st.Scripts)
		assert.Zero(t, st.Lost, "a fixed lease's end is no loss")
		assert.Equal(t, uint64(2), st.Expired)
		assert.Zero(t, w.Len())
	})
}

func TestAddAlreadyExpired(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{})
		w.Add(Spec{Key: "a", Kind: k, TTL: 100 * time.Millisecond, Start: time.Now().Add(-time.Second), OnLost: lost.fn("a")})
		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		errs, _ := lost.get("a")
		assert.ErrorIs(t, errs[0], ErrLeaseExpired)
		assert.Empty(t, k.snapshot())
	})
}

type sliceKind []int

func (sliceKind) Queue(context.Context, redis.Pipeliner, time.Duration, []*Lease) func() ([]bool, error) {
	return nil
}

func TestAddPanics(t *testing.T) {
	t.Parallel()
	w := start(t, Config{})
	onLost := func(error) {}
	assert.Panics(t, func() { w.Add(Spec{Key: "a", TTL: 0, OnLost: onLost}) })
	assert.Panics(t, func() { w.Add(Spec{Key: "a", TTL: time.Second}) })
	assert.Panics(t, func() { w.Add(Spec{Key: "a", Kind: sliceKind{1}, TTL: time.Second, OnLost: onLost}) })
	noClient := New(Config{})
	defer noClient.Close()
	assert.Panics(t, func() { noClient.Add(Spec{Key: "a", Kind: &fakeKind{}, TTL: time.Second, OnLost: onLost}) })
	l := w.Add(Spec{Key: "a", TTL: time.Second, OnLost: onLost})
	assert.Panics(t, func() { w.Reset(l, time.Now(), 0) })
	assert.Panics(t, func() { noClient.Cancel(l) }, "lease of another wheel")
	assert.Zero(t, noClient.Len())
	assert.Equal(t, 1, w.Len())
}

func TestLeaseAccessors(t *testing.T) {
	t.Parallel()
	w := start(t, Config{})
	l := w.Add(Spec{Key: "k", Owner: "o", Data: 42, TTL: time.Minute, OnLost: func(error) {}})
	assert.Equal(t, "k", l.Key())
	assert.Equal(t, "o", l.Owner())
	assert.Equal(t, 42, l.Data())
}

func TestManyAddCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{})
		const n = 100_000
		leases := make([]*Lease, n)
		now := time.Now()
		for i := range leases {
			spec := Spec{Key: "k", TTL: time.Duration(i%600+60) * time.Second, Start: now, OnLost: lost.fn("k")}
			if i%2 == 0 {
				spec.Kind = k
			}
			leases[i] = w.Add(spec)
		}
		assert.Equal(t, n, w.Len())
		// Cancel in an order unrelated to the buckets' lists.
		for i := range leases {
			j := (i * 7919) % n
			require.True(t, w.Cancel(leases[j]))
		}
		assert.Zero(t, w.Len())
		w.mu.Lock()
		for _, word := range w.used {
			assert.Zero(t, word, "every bucket is empty")
		}
		w.mu.Unlock()

		// The wheel still works.
		l := w.Add(Spec{Key: "after", Kind: k, TTL: 30 * time.Second, Start: soon(10 * time.Millisecond), OnLost: lost.fn("after")})
		await(t, func() bool { return len(k.callsFor("after")) == 1 })
		assert.True(t, w.Cancel(l))
		assert.Zero(t, lost.total())
	})
}

func TestIdleLoopSleeps(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{answer: func(c call) ([]bool, error) { return all(len(c.keys), false), nil }}
		lost := newLostLog()
		w := start(t, Config{})
		w.Add(Spec{Key: "a", Kind: k, TTL: 30 * time.Second, Start: soon(10 * time.Millisecond), OnLost: lost.fn("a")})
		await(t, func() bool { return lost.total() == 1 })
		await(t, func() bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.wakeTick == math.MaxInt64
		}, "an empty wheel sleeps without a timer")
	})
}

func TestNextTick(t *testing.T) {
	t.Parallel()
	for _, cur := range []int64{0, 5, 63, 64, 100, wheelSize - 1, wheelSize, 3*wheelSize + 4000} {
		for _, b := range []int64{0, 1, 62, 63, 64, 65, 1000, wheelSize - 2, wheelSize - 1} {
			w := newWheel(Config{})
			w.cur = cur
			assert.Equal(t, int64(math.MaxInt64), w.nextTick())
			w.used[b>>6] |= 1 << (b & 63)
			want := cur + 1
			for want&wheelMask != b {
				want++
			}
			assert.Equal(t, want, w.nextTick(), "cur %d bucket %d", cur, b)
		}
	}
}

// TestClose is not parallel: leakcheck must see only this test's goroutines.
func TestClose(t *testing.T) {
	defer leakcheck.Verify(t, leakcheck.Current())
	synctest.Test(t, func(t *testing.T) {
		c := redis.NewClient(&redis.Options{Addr: deadAddr(t), MaxRetries: -1})
		defer func() { _ = c.Close() }()

		var roundCtx context.Context
		in := make(chan struct{})
		k := &fakeKind{answer: func(cl call) ([]bool, error) {
			roundCtx = cl.ctx
			close(in)
			<-cl.ctx.Done() // hangs until Close cancels the round
			return nil, cl.ctx.Err()
		}}
		lost := newLostLog()
		w := New(Config{Client: c})
		blocked := w.Add(Spec{Key: "blocked", Kind: k, TTL: 30 * time.Second, Start: soon(20 * time.Millisecond), OnLost: lost.fn("blocked")})
		var leases []*Lease
		for i := range 50 {
			key := fmt.Sprint("k", i)
			leases = append(leases, w.Add(Spec{Key: key, Kind: k, TTL: time.Duration(i+1) * time.Second, Start: time.Now(), OnLost: lost.fn(key)}))
			leases = append(leases, w.Add(Spec{Key: "fixed" + key, TTL: time.Duration(i+1) * time.Second, Start: time.Now(), OnLost: lost.fn(key)}))
		}
		select {
		case <-in:
		case <-time.After(wait):
			t.Fatal("no round")
		}
		w.Close()
		assert.ErrorIs(t, roundCtx.Err(), context.Canceled)
		assert.Zero(t, w.Len())
		assert.False(t, w.Cancel(blocked))
		for _, l := range leases {
			assert.False(t, w.Cancel(l))
		}
		late := w.Add(Spec{Key: "late", Kind: k, TTL: time.Millisecond, Start: time.Now(), OnLost: lost.fn("late")})
		w.Reset(late, time.Now(), time.Millisecond)
		assert.False(t, w.Cancel(late))
		assert.Zero(t, w.Len())
		w.Close() // idempotent
		assert.Zero(t, lost.total())
		assert.Zero(t, w.Stats().Lost)
	})
}

// assertLostJustBefore checks that a lease of ttl ending at end was reported
// lost before end, and no earlier than its safety margin and one tick.
func assertLostJustBefore(t *testing.T, at, end time.Time, ttl time.Duration) {
	t.Helper()
	margin := Margin(ttl, 2*time.Millisecond, 10*time.Millisecond)
	assert.True(t, at.Before(end), "lost %v after its end", at.Sub(end))
	assert.False(t, at.Before(end.Add(-margin-10*time.Millisecond)), "lost %v before its end", end.Sub(at))
}

// TestStalledRoundCannotDelayLoss: a renewal round that gets no answer must
// not hold back the loss report; it comes before the lease's end whatever
// the round is doing (go-redis ignores the round's deadline by default).
func TestStalledRoundCannotDelayLoss(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// A Redis that does not answer while the connection stays up: the
		// round's pipeline waits until the test ends, whatever its context.
		c := newClient(t)
		hook := gateHook{entered: make(chan struct{}, 1), gate: make(chan struct{})}
		c.AddHook(hook)
		lost := newLostLog()
		w := start(t, Config{Client: c})
		t.Cleanup(func() { close(hook.gate) })
		ttl := 600 * time.Millisecond
		begin := time.Now()
		w.Add(Spec{Key: "a", Kind: pingKind{}, TTL: ttl, Start: begin, OnLost: lost.fn("a")})
		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		require.Len(t, hook.entered, 1, "the round was under way")
		errs, at := lost.get("a")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrLeaseExpired)
		assertLostJustBefore(t, at, begin.Add(ttl), ttl)
		assert.Zero(t, w.Len())
	})
}

// TestOnRound: a round is reported once its answers are applied, with its
// leases, scripts, renewals and losses.
func TestOnRound(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const trip = 5 * time.Millisecond // the round trip, in the bubble's time
		k := &fakeKind{answer: func(c call) ([]bool, error) {
			time.Sleep(trip)
			out := make([]bool, len(c.keys))
			for i, key := range c.keys {
				out[i] = key != "gone"
			}
			return out, nil
		}}
		rounds := make(chan Round, 4)
		w := start(t, Config{OnRound: func(r Round) { rounds <- r }})
		s := soon(50 * time.Millisecond)
		lost := newLostLog()
		w.Add(Spec{Key: "gone", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("gone")})
		w.Add(Spec{Key: "kept", Kind: k, TTL: 30 * time.Second, Start: s, OnLost: lost.fn("kept")})
		select {
		case r := <-rounds:
			require.Equal(t, Round{Leases: 2, Scripts: 1, Duration: trip, Renewed: 1, Lost: 1}, r)
		case <-time.After(wait):
			t.Fatal("no round reported")
		}
	})
}
