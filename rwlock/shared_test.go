package rwlock_test

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rwlock"
)

// warnLog keeps the messages logged at Warn or above.
type warnLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *warnLog) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelWarn }

func (l *warnLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.msgs = append(l.msgs, r.Message)
	l.mu.Unlock()
	return nil
}

func (l *warnLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *warnLog) WithGroup(string) slog.Handler      { return l }

func (l *warnLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// A read unlock answers "still locked" without saying by whom: the
// releasing owner's other holds or other owners. Either way the hold ends
// as released, the owner's other holds (and its lease) live on while it
// has any, and nothing is logged: an owner's last read hold going while
// others read is the ordinary case, not a surplus Redis counts.
func TestSharedReadRelease(t *testing.T) {
	type holds struct {
		release *rwlock.Hold   // the hold the test releases
		kept    []*rwlock.Hold // holds that must live on
	}
	for _, tc := range []struct {
		name string
		// take sets up the holds.
		take func(t *testing.T, ctx context.Context, rw *rwlock.ReadWriteLock) holds
		// leases: how many owners' leases the client still renews after.
		leases int
		// left: the releasing owner's read hold count in Redis after.
		left int
	}{
		{"last hold of a reader, another reads", func(t *testing.T, ctx context.Context, rw *rwlock.ReadWriteLock) holds {
			a, err := rw.ReadLock().Lock(ctx)
			require.NoError(t, err)
			b, err := rw.ReadLock().Lock(ctx)
			require.NoError(t, err)
			return holds{release: a, kept: []*rwlock.Hold{b}}
		}, 1, 0},
		{"inner hold of a re-entrant reader, another reads", func(t *testing.T, ctx context.Context, rw *rwlock.ReadWriteLock) holds {
			a, err := rw.ReadLock().Lock(ctx)
			require.NoError(t, err)
			inner, err := rw.ReadLock().Lock(ctx, rwlock.WithOwner(a.Owner()))
			require.NoError(t, err)
			b, err := rw.ReadLock().Lock(ctx)
			require.NoError(t, err)
			return holds{release: inner, kept: []*rwlock.Hold{a, b}}
		}, 2, 1},
		{"inner hold of a re-entrant reader alone", func(t *testing.T, ctx context.Context, rw *rwlock.ReadWriteLock) holds {
			a, err := rw.ReadLock().Lock(ctx)
			require.NoError(t, err)
			inner, err := rw.ReadLock().Lock(ctx, rwlock.WithOwner(a.Owner()))
			require.NoError(t, err)
			return holds{release: inner, kept: []*rwlock.Hold{a}}
		}, 1, 1},
		{"read hold of the writer", func(t *testing.T, ctx context.Context, rw *rwlock.ReadWriteLock) holds {
			w, err := rw.WriteLock().Lock(ctx)
			require.NoError(t, err)
			r, err := rw.ReadLock().Lock(ctx, rwlock.WithOwner(w.Owner()))
			require.NoError(t, err)
			return holds{release: r, kept: []*rwlock.Hold{w}}
		}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			raw := redistest.Client(t, srv)
			var logs warnLog
			c := redissontest.ClientAt(t, srv.Addr(), redisson.WithLogger(slog.New(&logs)))
			ctx := context.Background()
			rw := c.ReadWriteLock("shared")
			hs := tc.take(t, ctx, rw)

			require.NoError(t, hs.release.Unlock(ctx))
			require.ErrorIs(t, hs.release.Err(), context.Canceled)
			for _, h := range hs.kept {
				require.NoError(t, h.Err(), "a hold the release must not end")
			}
			require.Equal(t, tc.leases, c.Stats().Leases)
			n, err := rw.ReadLock().HoldCount(ctx, hs.release.Owner())
			require.NoError(t, err)
			require.Equal(t, tc.left, n)
			field := c.ID() + ":" + strconv.FormatInt(hs.release.Owner(), 10)
			require.Equal(t, tc.left > 0, raw.HExists(ctx, "shared", field).Val())

			for _, h := range hs.kept {
				require.NoError(t, h.Unlock(ctx))
			}
			require.Zero(t, raw.Exists(ctx, "shared").Val(), "the last release frees the lock")
			require.Zero(t, c.Stats().Leases)
			require.Empty(t, logs.all())
		})
	}
}
