package redisson_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestDefaultsAreTheConstants: a client without options gets the exported
// defaults, and they are Redisson's values.
func TestDefaultsAreTheConstants(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	o := c.Options()
	for _, tc := range []struct {
		name             string
		got, constant, v any
	}{
		{"WatchdogTimeout", o.WatchdogTimeout, redisson.DefaultWatchdogTimeout, 30 * time.Second},
		{"RenewalBatchSize", o.RenewalBatchSize, redisson.DefaultRenewalBatchSize, 100},
		{"Timeout", o.Timeout, redisson.DefaultTimeout, 3 * time.Second},
		{"ReplicaSync.Timeout", o.ReplicaSync.Timeout, redisson.DefaultReplicaSyncTimeout, time.Second},
		{"LeaseMargin", o.LeaseMargin, redisson.DefaultLeaseMargin, 2 * time.Millisecond},
		{"FairLockWaitTimeout", o.FairLockWaitTimeout, redisson.DefaultFairLockWaitTimeout, 300 * time.Second},
		{"Retry.Attempts", o.Retry.Attempts, redisson.DefaultRetryAttempts, 4},
		{"Retry.Delay", o.Retry.Delay, redisson.DefaultRetryDelay, time.Second},
		{"CleanUp.MinDelay", o.CleanUp.MinDelay, redisson.DefaultCleanUpMinDelay, 5 * time.Second},
		{"CleanUp.MaxDelay", o.CleanUp.MaxDelay, redisson.DefaultCleanUpMaxDelay, 30 * time.Minute},
		{"CleanUp.KeysAmount", o.CleanUp.KeysAmount, redisson.DefaultCleanUpKeysAmount, 100},
	} {
		require.Equal(t, tc.constant, tc.got, tc.name)
		require.EqualValues(t, tc.v, tc.constant, tc.name)
	}
}

// TestMinimaAreTheBounds: the Min constants are the smallest values New
// accepts.
func TestMinimaAreTheBounds(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	for _, tc := range []struct {
		name string
		with func(time.Duration) redisson.Option
		min  time.Duration
	}{
		{"WatchdogTimeout", redisson.WithWatchdogTimeout, redisson.MinWatchdogTimeout},
		{"FairLockWaitTimeout", redisson.WithFairLockWaitTimeout, redisson.MinFairLockWaitTimeout},
		{"CleanUp.MinDelay", func(d time.Duration) redisson.Option {
			return redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: d})
		}, time.Second},
	} {
		c, err := redisson.New(rdb, tc.with(tc.min))
		require.NoError(t, err, tc.name)
		require.NoError(t, c.Close())
		_, err = redisson.New(rdb, tc.with(tc.min-time.Nanosecond))
		require.ErrorIs(t, err, redisson.ErrInvalidArgument, tc.name)
	}
}
