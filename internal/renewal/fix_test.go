package renewal

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fixed lease ends with its own words, and still counts as a lease that
// ran out.
func TestFixedLeaseEndedText(t *testing.T) {
	assert.Equal(t, "the fixed lease ended", ErrFixedLeaseEnded.Error())
	assert.ErrorIs(t, ErrFixedLeaseEnded, ErrLeaseExpired)
	assert.NotErrorIs(t, ErrLeaseExpired, ErrFixedLeaseEnded)
}

// TestFixStopsRenewal: a watchdog lease that Fix stopped is never renewed
// and is lost as a fixed lease at its validity's end.
func TestFixStopsRenewal(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		k := &fakeKind{}
		lost := newLostLog()
		w := start(t, Config{})
		begin := time.Now()
		ttl := 600 * time.Millisecond // renewed at 200ms without Fix
		l := w.Add(Spec{Key: "a", Kind: k, TTL: ttl, Start: begin, OnLost: lost.fn("a")})
		busy, ok := w.Fix(l)
		require.True(t, ok)
		require.Nil(t, busy, "no round was in flight")

		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		errs, at := lost.get("a")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrFixedLeaseEnded)
		assertLostJustBefore(t, at, begin.Add(ttl), ttl)
		assert.Empty(t, k.snapshot(), "never renewed")
		_, ok = w.Fix(l)
		assert.False(t, ok, "a lost lease")
	})
}

// gateHook holds every pipeline of a go-redis client until released, as a
// Redis that does not answer would; the pipeline then fails.
type gateHook struct {
	entered chan struct{}
	gate    chan struct{}
}

func (gateHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (gateHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h gateHook) ProcessPipelineHook(redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		select {
		case h.entered <- struct{}{}:
		default:
		}
		<-h.gate
		err := errors.New("released")
		for _, c := range cmds {
			c.SetErr(err)
		}
		return err
	}
}

// TestFixWaitsForRoundInFlight: Fix of a lease whose renewal round is in
// flight returns a channel that closes only once go-redis has ended that
// round's pipeline; the round's answer is discarded.
func TestFixWaitsForRoundInFlight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newClient(t)
		hook := gateHook{entered: make(chan struct{}, 1), gate: make(chan struct{})}
		c.AddHook(hook)
		lost := newLostLog()
		w := start(t, Config{Client: c})
		l := w.Add(Spec{Key: "a", Kind: pingKind{}, TTL: 30 * time.Second, Start: soon(20 * time.Millisecond), OnLost: lost.fn("a")})
		select {
		case <-hook.entered:
		case <-time.After(wait):
			t.Fatal("no round")
		}
		busy, ok := w.Fix(l)
		require.True(t, ok)
		require.NotNil(t, busy, "a round is in flight")
		select {
		case <-busy:
			t.Fatal("closed while the pipeline is under way")
		default:
		}
		close(hook.gate)
		select {
		case <-busy:
		case <-time.After(wait):
			t.Fatal("not closed after the pipeline ended")
		}
		await(t, func() bool { return w.Stats().Errors == 1 })
		busy, ok = w.Fix(l)
		assert.True(t, ok, "the failed round did not end the lease")
		assert.Nil(t, busy)
		assert.Equal(t, uint64(1), w.Stats().Rounds)
		assert.Zero(t, lost.total())
	})
}

// TestCap: a cap brings the validity forward and bounds every later Reset
// until it is removed.
func TestCap(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		lost := newLostLog()
		w := New(Config{})
		t.Cleanup(w.Close)
		ttl := 10 * time.Second
		l := w.Add(Spec{Key: "a", TTL: ttl, Start: time.Now(), OnLost: lost.fn("a")})
		capAt := time.Now().Add(500 * time.Millisecond)
		w.Cap(l, capAt)
		w.Reset(l, time.Now(), ttl) // still capped
		await(t, func() bool { errs, _ := lost.get("a"); return len(errs) > 0 })
		errs, at := lost.get("a")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrFixedLeaseEnded)
		assert.True(t, at.Before(capAt), "lost %v after the cap", at.Sub(capAt))

		// Removed, the cap no longer bounds a Reset.
		capB := time.Now().Add(200 * time.Millisecond)
		b := w.Add(Spec{Key: "b", TTL: ttl, Start: time.Now(), Cap: capB, OnLost: lost.fn("b")})
		w.Cap(b, time.Time{})
		w.Reset(b, time.Now(), ttl)
		await(t, func() bool { return time.Now().After(capB.Add(100 * time.Millisecond)) })
		errs, _ = lost.get("b")
		assert.Empty(t, errs, "lost at the removed cap")
		assert.True(t, w.Cancel(b))
	})
}
