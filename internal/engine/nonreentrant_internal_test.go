package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
)

// TestNonReentrantGuard: a non-reentrant kind refuses the owner that holds
// the lock before anything is sent, and a lost try's recovery does not take
// the count of the hold the client has as that try's. The test scripts
// re-enter like RLock's, so a try that was sent would count a second hold.
func TestNonReentrantGuard(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		nonReentrant bool
		adopts       bool // the recovery takes the count of 1 as the lost try's
	}{
		{"reentrant", false, true},
		{"non-reentrant", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, rt := newTestEngine(t)
			l := testLock(e, "guard")
			l.cfg.NonReentrant = tc.nonReentrant
			field := l.Field(1)
			var h Hold
			ok, err := l.Acquire(ctx, &h, Request{Owner: 1, Lease: time.Minute, Wait: true})
			require.NoError(t, err)
			require.True(t, ok)

			pend := pendingUndo{start: time.Now(), lease: time.Minute}
			o, done, err := l.resolveOwed(ctx, field, &pend)
			require.NoError(t, err)
			require.Equal(t, tc.adopts, done && o.OK)
			require.False(t, pend.owes(), "resolved either way")

			if tc.nonReentrant {
				for _, r := range []Request{
					{Owner: 1, Lease: time.Minute, Wait: true},
					{Owner: 1, Lease: time.Minute},
				} {
					var again Hold
					ok, err := l.Acquire(ctx, &again, r)
					require.ErrorIs(t, err, core.ErrNonReentrant)
					require.False(t, ok)
				}
				n, err := l.cfg.Scripts.Count(ctx, field)
				require.NoError(t, err)
				require.Equal(t, 1, n, "no try was sent")
			}
			require.NoError(t, h.Unlock(ctx))
			require.False(t, rt.Holds().Holding(l.cfg.Name, field))
			// Released, the owner takes it again.
			var next Hold
			ok, err = l.Acquire(ctx, &next, Request{Owner: 1, Lease: time.Minute})
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, next.Unlock(ctx))
		})
	}
}

// TestNonReentrantClaim: while one acquisition of an owner is under way,
// a second one of the same owner is refused, another owner's is not, and
// the claim ends with the acquisition.
func TestNonReentrantClaim(t *testing.T) {
	e, _ := newTestEngine(t)
	l := testLock(e, "claim")
	l.cfg.NonReentrant = true
	field := l.Field(1)
	require.NoError(t, l.claim(field))
	require.ErrorIs(t, l.claim(field), core.ErrNonReentrant)
	var h Hold
	ok, err := l.Acquire(context.Background(), &h, Request{Owner: 1, Lease: time.Minute})
	require.ErrorIs(t, err, core.ErrNonReentrant)
	require.False(t, ok)
	require.NoError(t, l.claim(l.Field(2)))
	l.unclaim(field)
	l.unclaim(l.Field(2))
	require.NoError(t, l.claim(field))
	l.unclaim(field)
	require.Empty(t, e.claims)
}
