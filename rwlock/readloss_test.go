package rwlock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rwlock"
)

// TestReadHoldLossEndsOnlyThatHold: a client holds the read lock for two
// owners under the watchdog. One owner's rwlock_timeout key disappears (its
// lease lapsed: Redisson's read unlock then no longer counts it, so the
// lock may be freed under it). The watchdog reports that owner's holds lost
// (Done fires, Err wraps ErrLockLost) while the other owner's hold lasts
// past three watchdog periods with its timeout key and the hash renewed.
// An owner's re-entrant holds share one lease, so losing any one of its
// timeout keys ends all of them.
func TestReadHoldLossEndsOnlyThatHold(t *testing.T) {
	tests := []struct {
		name    string
		reentry bool   // the lost owner holds twice
		lost    string // which of its timeout keys is deleted
	}{
		{"single hold", false, "1"},
		{"re-entrant, newest key", true, "2"},
		{"re-entrant, oldest key", true, "1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			raw := redistest.Client(t, srv)
			ctx := context.Background()
			const watchdog = time.Second
			c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
			rw := c.ReadWriteLock("loss")
			r := rw.ReadLock()
			prefix := func(h *rwlock.Hold) string {
				return keys.ReadWriteLockTimeoutPrefix("loss", c.ID()+":"+strconv.FormatInt(h.Owner(), 10))
			}

			lost, err := r.Lock(ctx)
			require.NoError(t, err)
			lostHolds := []*rwlock.Hold{lost}
			if tc.reentry {
				again, err := r.Lock(ctx, rwlock.WithOwner(lost.Owner()))
				require.NoError(t, err)
				lostHolds = append(lostHolds, again)
			}
			kept, err := r.Lock(ctx)
			require.NoError(t, err)
			require.NotEqual(t, lost.Owner(), kept.Owner())

			gone := prefix(lost) + ":" + tc.lost
			require.EqualValues(t, 1, raw.Del(ctx, gone).Val(), "the timeout key %s exists before the test deletes it", gone)

			for i, h := range lostHolds {
				select {
				case <-h.Done():
				case <-kept.Done():
					t.Fatalf("the kept hold ended instead: %v", kept.Err())
				case <-time.After(10 * watchdog):
					t.Fatalf("lost hold %d not signalled within %v", i, 10*watchdog)
				}
				require.ErrorIs(t, h.Err(), redisson.ErrLockLost, "lost hold %d", i)
			}

			// The kept hold lives on past three watchdog periods: renewed.
			select {
			case <-kept.Done():
				t.Fatalf("the kept hold ended: %v", kept.Err())
			case <-time.After(3 * watchdog):
			}
			require.NoError(t, kept.Err())
			require.Positive(t, raw.PTTL(ctx, prefix(kept)+":1").Val(), "the kept hold's timeout key")
			require.Positive(t, raw.PTTL(ctx, "loss").Val(), "the hash")
			require.Equal(t, "read", raw.HGet(ctx, "loss", "mode").Val())

			// The lost owner's other timeout keys are no longer renewed; once
			// they are gone, the kept hold's release frees the lock (the
			// lost owner's field does not count) and a writer gets in, which
			// is why the lost holds had to be told.
			redistest.Eventually(t, 5*watchdog, "the lost owner's timeout keys expire", func() bool {
				n, err := raw.Exists(ctx, prefix(lost)+":1", prefix(lost)+":2").Result()
				return err == nil && n == 0
			})
			require.NoError(t, kept.Unlock(ctx))
			require.Zero(t, raw.Exists(ctx, "loss").Val(), "the lock is freed")
			w, ok, err := redissontest.ClientAt(t, srv.Addr()).ReadWriteLock("loss").WriteLock().TryLock(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, w.Unlock(ctx))
		})
	}
}
