package inflight

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/redistest"
)

var errClosed = errors.New("closed")

// tracker returns a Tracker over a go-redis client with readTimeout; no
// command is sent.
func tracker(t *testing.T, readTimeout, timeout time.Duration, synced bool, syncTimeout time.Duration) *Tracker {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ReadTimeout: readTimeout})
	t.Cleanup(func() { _ = rdb.Close() })
	pool := conns.New(conns.Config{Redis: rdb, Timeout: timeout, Lifetime: context.Background()})
	return New(Config{
		Conns: pool, Timeout: timeout, Synced: synced, SyncTimeout: syncTimeout,
		Lifetime: context.Background(), Closed: errClosed, Refused: func(error) bool { return false },
	})
}

// drainAsync runs tr.Drain and returns a channel closed when it returns.
func drainAsync(tr *Tracker) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		tr.Drain()
		close(done)
	}()
	return done
}

// TestCloseWait: the reply's bound (ReadTimeout, else Timeout, plus WAIT's
// timeout when synced) and then the give-back's Timeout.
func TestCloseWait(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		read, timeout, syncT time.Duration
		synced               bool
		want                 time.Duration
	}{
		{"ReadTimeout and Timeout", time.Minute, time.Minute, 0, false, 2 * time.Minute},
		{"default WAIT timeout", time.Minute, time.Minute, 0, true, 2*time.Minute + time.Second},
		{"WAIT timeout given", time.Minute, time.Minute, 3 * time.Second, true, 2*time.Minute + 3*time.Second},
		{"no ReadTimeout: Timeout twice", -1, 200 * time.Millisecond, 0, false, 400 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tracker(t, tc.read, tc.timeout, tc.synced, tc.syncT).CloseWait())
		})
	}
}

// TestDrainWaitsForWork: Drain refuses new work at once, waits for open
// work and its forks, and only then stops the background sends.
func TestDrainWaitsForWork(t *testing.T) {
	tr := tracker(t, time.Minute, time.Minute, false, 0)
	w, err := tr.Begin()
	require.NoError(t, err)
	done := drainAsync(tr)
	redistest.Eventually(t, 10*time.Second, "new work is refused", func() bool {
		w2, err := tr.Begin()
		if err == nil {
			w2.End()
			return false
		}
		require.ErrorIs(t, err, errClosed)
		return true
	})
	fork := w.Fork()
	w.End()
	w.End() // a second End changes nothing
	require.Equal(t, 1, tr.Count())
	select {
	case <-done:
		t.Fatal("Drain returned with a fork open")
	default:
	}
	require.NoError(t, tr.Drained().Err(), "undos may still be sent while Close waits")
	uctx, cancel := tr.ForUndo(context.Background())
	defer cancel()
	require.NoError(t, uctx.Err())
	fork.End()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Drain did not return after the work ended")
	}
	require.Error(t, tr.Drained().Err())
	// The undo context ends through context.AfterFunc, in its own
	// goroutine; what must hold at once is Drained, which every background
	// send checks.
	select {
	case <-uctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("an undo context did not end after Drain stopped waiting")
	}
	require.Zero(t, tr.Count())
}

// TestDrainWithoutWork: nothing registered, nothing waited for.
func TestDrainWithoutWork(t *testing.T) {
	tr := tracker(t, time.Minute, time.Hour, false, 0)
	w, err := tr.Begin()
	require.NoError(t, err)
	w.End()
	select {
	case <-drainAsync(tr):
	case <-time.After(10 * time.Second):
		t.Fatal("Drain waited with nothing in flight")
	}
	require.Error(t, tr.Drained().Err())
	_, err = tr.Begin()
	require.ErrorIs(t, err, errClosed)
	left, waited := tr.Drain() // a second Drain returns at once
	require.Zero(t, left)
	require.Zero(t, waited)
}
