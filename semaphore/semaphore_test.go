package semaphore_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/semaphore"
)

// noTTL and absent are the wantTTL of a key without expiry and of no key.
const (
	noTTL  = -1
	absent = -2
)

// TestRawState runs every operation in turn on one semaphore and checks,
// after each, its result, the key as §8 describes it (type string, decimal
// value, TTL) and the messages published on redisson_sc:{sem}.
func TestRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	pub := redistest.Capture(t, raw)
	c := redissontest.ClientAt(t, srv.Addr())
	s := c.Semaphore("sem")
	ctx := context.Background()
	require.Equal(t, "redisson_sc:{sem}", keys.SemaphoreChannel("sem"))

	steps := []struct {
		name string
		run  func() (any, error)
		want any // the result; nil for calls that return only an error
		// value is the key's value, "" when it must not exist.
		value string
		// ttl is noTTL, absent, or the TTL the key was given (its PTTL
		// must be within 1 s below it).
		ttl  time.Duration
		msgs []string // payloads on the channel
	}{
		{"available on no semaphore", func() (any, error) { return s.AvailablePermits(ctx) }, 0, "", absent, nil},
		{"try set with TTL", func() (any, error) { return s.TrySetPermits(ctx, 3, semaphore.WithTTL(10*time.Second)) }, true, "3", 10 * time.Second, []string{"3"}},
		{"try set again", func() (any, error) { return s.TrySetPermits(ctx, 5) }, false, "3", 10 * time.Second, nil},
		{"acquire keeps the TTL", func() (any, error) { return nil, s.Acquire(ctx, 2) }, nil, "1", 10 * time.Second, nil},
		{"try acquire, too few", func() (any, error) { return s.TryAcquire(ctx, 2) }, false, "1", 10 * time.Second, nil},
		{"release publishes the total", func() (any, error) { return nil, s.Release(ctx, 1) }, nil, "2", 10 * time.Second, []string{"2"}},
		{"add negative clears the TTL", func() (any, error) { return nil, s.AddPermits(ctx, -3) }, nil, "-1", noTTL, []string{"-1"}},
		{"available may be negative", func() (any, error) { return s.AvailablePermits(ctx) }, -1, "-1", noTTL, nil},
		{"try acquire below zero", func() (any, error) { return s.TryAcquire(ctx, 1) }, false, "-1", noTTL, nil},
		{"set", func() (any, error) { return nil, s.SetPermits(ctx, 4) }, nil, "4", noTTL, []string{"4"}},
		{"drain publishes nothing", func() (any, error) { return s.DrainPermits(ctx) }, 4, "0", noTTL, nil},
		{"add zero still publishes", func() (any, error) { return nil, s.AddPermits(ctx, 0) }, nil, "0", noTTL, []string{"0"}},
		{"release 0 sends nothing", func() (any, error) { return nil, s.Release(ctx, 0) }, nil, "0", noTTL, nil},
		{"acquire 0 sends nothing", func() (any, error) { return nil, s.Acquire(ctx, 0) }, nil, "0", noTTL, nil},
		{"try acquire 0 is true", func() (any, error) { return s.TryAcquire(ctx, 0) }, true, "0", noTTL, nil},
		{"delete publishes nothing", func() (any, error) { return s.Delete(ctx) }, true, "", absent, nil},
		{"delete again", func() (any, error) { return s.Delete(ctx) }, false, "", absent, nil},
		{"drain no semaphore", func() (any, error) { return s.DrainPermits(ctx) }, 0, "", absent, nil},
		{"release creates the key", func() (any, error) { return nil, s.Release(ctx, 2) }, nil, "2", noTTL, []string{"2"}},
		{"set over an existing count", func() (any, error) { return nil, s.SetPermits(ctx, 0) }, nil, "0", noTTL, []string{"0"}},
		{"add to no semaphore", func() (any, error) {
			_, err := s.Delete(ctx)
			require.NoError(t, err)
			return nil, s.AddPermits(ctx, 2)
		}, nil, "2", noTTL, []string{"2"}},
	}
	for _, st := range steps {
		got, err := st.run()
		require.NoError(t, err, st.name)
		require.Equal(t, st.want, got, st.name)
		require.Equal(t, st.value, rawValue(t, raw, "sem"), st.name)
		if st.value != "" {
			require.Equal(t, "string", raw.Type(ctx, "sem").Val(), st.name)
		}
		pttl := raw.PTTL(ctx, "sem").Val()
		switch st.ttl {
		case noTTL, absent:
			require.Equal(t, st.ttl, pttl, st.name)
		default:
			require.True(t, pttl > st.ttl-time.Second && pttl <= st.ttl, "%s: PTTL %v", st.name, pttl)
		}
		var got2 []string
		for _, m := range pub.Drain(t) {
			require.Equal(t, "redisson_sc:{sem}", m.Channel, st.name)
			got2 = append(got2, m.Payload)
		}
		require.Equal(t, st.msgs, got2, st.name)
		keys := redistest.Keys(t, raw, "*")
		require.LessOrEqual(t, len(keys), 1, "%s: only the semaphore's key: %v", st.name, keys)
	}
}

// TestBadInput: a bad name, a bad count, a bad duration, a cancelled
// context and a closed client are errors of the right kind, and nothing
// reaches Redis.
func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	closed := redissontest.ClientAt(t, srv.Addr())
	require.NoError(t, closed.Close())
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	good := c.Semaphore("sem")
	unnamed := c.Semaphore("")
	gone := closed.Semaphore("sem")

	// calls runs every operation of s with n permits on ctx.
	calls := func(s *semaphore.Semaphore, ctx context.Context, n int) map[string]func() error {
		return map[string]func() error{
			"Acquire":       func() error { return s.Acquire(ctx, n) },
			"TryAcquire":    func() error { _, err := s.TryAcquire(ctx, n); return err },
			"TryAcquireW":   func() error { _, err := s.TryAcquire(ctx, n, semaphore.WithWait(time.Second)); return err },
			"AcquirePerms":  func() error { _, err := s.AcquirePermits(ctx, n); return err },
			"TryAcquirePer": func() error { _, _, err := s.TryAcquirePermits(ctx, n); return err },
			"Release":       func() error { return s.Release(ctx, n) },
			"TrySetPermits": func() error { _, err := s.TrySetPermits(ctx, n); return err },
			"SetPermits":    func() error { return s.SetPermits(ctx, n) },
			"AddPermits":    func() error { return s.AddPermits(ctx, n) },
			"Available":     func() error { _, err := s.AvailablePermits(ctx); return err },
			"Drain":         func() error { _, err := s.DrainPermits(ctx); return err },
			"Delete":        func() error { _, err := s.Delete(ctx); return err },
		}
	}
	cases := []struct {
		name  string
		calls map[string]func() error
		want  error
		// skip lists the calls that are fine in this case.
		skip []string
	}{
		{"empty name", calls(unnamed, ctx, 1), redisson.ErrInvalidName, nil},
		{"negative permits", calls(good, ctx, -1), redisson.ErrInvalidArgument, []string{"AddPermits", "Available", "Drain", "Delete"}},
		{"permits above a Java int", calls(good, ctx, math.MaxInt32+1), redisson.ErrInvalidArgument, []string{"Available", "Drain", "Delete"}},
		{"permits below a Java int", calls(good, ctx, math.MinInt32-1), redisson.ErrInvalidArgument, []string{"Available", "Drain", "Delete"}},
		{"cancelled context", calls(good, cancelled, 1), context.Canceled, []string{"Release"}},
		{"closed client", calls(gone, ctx, 1), redisson.ErrClosed, []string{"Release"}},
		{"negative wait", map[string]func() error{
			"TryAcquire":    func() error { _, err := good.TryAcquire(ctx, 1, semaphore.WithWait(-time.Millisecond)); return err },
			"TryAcquirePer": func() error { _, _, err := good.TryAcquirePermits(ctx, 1, semaphore.WithWait(-1)); return err },
		}, redisson.ErrInvalidArgument, nil},
		{"bad TTL", map[string]func() error{
			"zero":     func() error { _, err := good.TrySetPermits(ctx, 1, semaphore.WithTTL(0)); return err },
			"negative": func() error { _, err := good.TrySetPermits(ctx, 1, semaphore.WithTTL(-time.Second)); return err },
			"sub-ms":   func() error { _, err := good.TrySetPermits(ctx, 1, semaphore.WithTTL(time.Microsecond)); return err },
		}, redisson.ErrInvalidArgument, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sent := redistest.Sent(t, srv, raw, func() {
				for name, call := range tc.calls {
					if contains(tc.skip, name) {
						continue
					}
					require.ErrorIs(t, call(), tc.want, name)
				}
			})
			require.Empty(t, sent, "nothing may reach Redis")
		})
	}
	require.Zero(t, redistest.DBSize(t, raw))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestReleaseDespiteDoneContextAndClosedClient: a release is never lost to
// its caller's context or to the client closing (permits have no lease).
func TestReleaseDespiteDoneContextAndClosedClient(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	s := c.Semaphore("sem")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, s.Release(cancelled, 1))
	require.Equal(t, "1", rawValue(t, raw, "sem"))
	require.NoError(t, c.Close())
	require.NoError(t, s.Release(cancelled, 2))
	require.Equal(t, "3", rawValue(t, raw, "sem"))
}

// TestWrongType: a key of another type, or a string that is not a number,
// gives ErrWrongType saying what the key holds, and stays as it was.
func TestWrongType(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	require.NoError(t, raw.HSet(ctx, "hash", "f", "v").Err())
	require.NoError(t, raw.Set(ctx, "text", "abc", 0).Err())

	for _, tc := range []struct{ key, says string }{
		{"hash", "holds a hash, not a string"},
		{"text", `holds the string "abc", not a number of permits`},
	} {
		s := c.Semaphore(tc.key)
		calls := map[string]func() error{
			"Acquire":       func() error { return s.Acquire(ctx, 1) },
			"TryAcquire":    func() error { _, err := s.TryAcquire(ctx, 1); return err },
			"TryAcquireW":   func() error { _, err := s.TryAcquire(ctx, 1, semaphore.WithWait(time.Second)); return err },
			"AcquirePerms":  func() error { _, err := s.AcquirePermits(ctx, 1); return err },
			"Release":       func() error { return s.Release(ctx, 1) },
			"SetPermits":    func() error { return s.SetPermits(ctx, 1) },
			"AddPermits":    func() error { return s.AddPermits(ctx, 1) },
			"Available":     func() error { _, err := s.AvailablePermits(ctx); return err },
			"Drain":         func() error { _, err := s.DrainPermits(ctx); return err },
			"TrySetPermits": func() error { _, err := s.TrySetPermits(ctx, 1); return err },
		}
		for name, call := range calls {
			err := call()
			if tc.key == "text" && name == "TrySetPermits" {
				// Redisson's answer: the key exists, so nothing is set.
				require.NoError(t, err)
				continue
			}
			require.ErrorIs(t, err, redisson.ErrWrongType, "%s on %s", name, tc.key)
			require.ErrorContains(t, err, tc.says, "%s on %s", name, tc.key)
		}
	}
	require.Equal(t, map[string]string{"f": "v"}, raw.HGetAll(ctx, "hash").Val())
	require.Equal(t, "abc", rawValue(t, raw, "text"))
	require.Equal(t, int64(2), redistest.DBSize(t, raw))
}

// TestPermitsReleaseOnce: a Permits value gives back exactly what it took,
// once; the second Release sends nothing.
func TestPermitsReleaseOnce(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	s := c.Semaphore("sem")
	ok, err := s.TrySetPermits(ctx, 5)
	require.NoError(t, err)
	require.True(t, ok)

	p, err := s.AcquirePermits(ctx, 3)
	require.NoError(t, err)
	require.Equal(t, 3, p.Count())
	require.Equal(t, "sem", p.Name())
	require.Equal(t, "2", rawValue(t, raw, "sem"))

	_, ok, err = s.TryAcquirePermits(ctx, 3)
	require.NoError(t, err)
	require.False(t, ok)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.NoError(t, p.Release(cancelled), "a release does not depend on its context")
	require.Equal(t, "5", rawValue(t, raw, "sem"))
	sent := redistest.Sent(t, srv, raw, func() {
		err := p.Release(ctx)
		require.ErrorIs(t, err, redisson.ErrNotOwner)
		require.ErrorContains(t, err, "already released")
	})
	require.Empty(t, sent)
	require.Equal(t, "5", rawValue(t, raw, "sem"))

	q, ok, err := s.TryAcquirePermits(ctx, 5, semaphore.WithWait(time.Second))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "0", rawValue(t, raw, "sem"))
	require.NoError(t, c.Close())
	require.NoError(t, q.Release(ctx), "permits taken before Close can be given back after it")
	require.Equal(t, "5", rawValue(t, raw, "sem"))
}
