package redisson_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

func TestNewDefaultsAndValidation(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)

	c, err := redisson.New(rdb)
	require.NoError(t, err)
	defer c.Close()
	_, err = uuid.Parse(c.ID())
	require.NoError(t, err)
	o := c.Options()
	require.Equal(t, 30*time.Second, o.WatchdogTimeout)
	require.Equal(t, 100, o.RenewalBatchSize)
	require.Equal(t, 3*time.Second, o.Timeout)
	require.Equal(t, time.Second, o.ReplicaSync.Timeout)
	require.False(t, c.Sharded(), "single node: PUBLISH")

	other, err := redisson.New(rdb)
	require.NoError(t, err)
	defer other.Close()
	require.NotEqual(t, c.ID(), other.ID())

	forced, err := redisson.New(rdb, redisson.WithPublishMode(redisson.PublishSharded))
	require.NoError(t, err)
	defer forced.Close()
	require.True(t, forced.Sharded())

	for name, opt := range map[string]redisson.Option{
		"negative watchdog": redisson.WithWatchdogTimeout(-time.Second),
		"tiny watchdog":     redisson.WithWatchdogTimeout(time.Millisecond),
		"negative batch":    redisson.WithRenewalBatchSize(-1),
		"negative timeout":  redisson.WithTimeout(-time.Second),
		"bad publish mode":  redisson.WithPublishMode(redisson.PublishMode(9)),
		"negative sync":     redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Timeout: -1}),
		"negative margin":   redisson.WithLeaseMargin(-time.Millisecond),
	} {
		_, err := redisson.New(rdb, opt)
		require.ErrorIs(t, err, redisson.ErrInvalidArgument, name)
	}
	_, err = redisson.New(nil)
	require.Error(t, err)
}

func TestNewOwnerID(t *testing.T) {
	a, b := redisson.NewOwnerID(), redisson.NewOwnerID()
	require.Positive(t, a)
	require.Positive(t, b)
	require.NotEqual(t, a, b)
}

func TestCloseIsIdempotentAndFinal(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	_, err = c.Lock("x").Lock(context.Background())
	require.ErrorIs(t, err, redisson.ErrClosed)
	// The go-redis client stays usable: it is the caller's.
	require.NoError(t, c.Redis().Ping(context.Background()).Err())
}
