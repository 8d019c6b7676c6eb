package main

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestLockCounterModes runs each lock counter mode from two clients at
// once, Go against Go: the counter must hold every increment, as the
// hand-run check against Java's Contend requires.
func TestLockCounterModes(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	newClient := func() *redisson.Client {
		c, err := redisson.New(redistest.Client(t, srv))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	clients := []*redisson.Client{newClient(), newClient()}
	for _, mode := range []string{"spincounter", "nrcounter", "nrfaircounter"} {
		t.Run(mode, func(t *testing.T) {
			name := "lk-" + mode
			ck := &checker{}
			errs := make([]error, len(clients))
			got := capture(t, func() {
				var wg sync.WaitGroup
				for i, c := range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, errs[i] = runLocks(ctx, c, ck, mode, name, []string{"25", "3"})
					}()
				}
				wg.Wait()
			})
			require.NoError(t, errors.Join(errs...))
			require.False(t, ck.failed, got)
			require.Len(t, lines(got, "end "), 2, got)
			require.Equal(t, strconv.Itoa(2*25*3), rdb.Get(ctx, "ctr:"+name).Val())
			require.Zero(t, rdb.Exists(ctx, name).Val(), "the lock is free")
		})
	}
	known, err := runLocks(ctx, clients[0], &checker{}, "nrcounter", "x", []string{"1"})
	require.True(t, known)
	require.Error(t, err, "THREADS missing")
	known, _ = runLocks(ctx, clients[0], &checker{}, "counter", "x", nil)
	require.False(t, known)
}
