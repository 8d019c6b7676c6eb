package redistest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
)

// The prefix redistest filters on is the registry's: a record key that one
// recognizes and the other does not would be counted as user data.
func TestRegistrationPrefixIsRegistrys(t *testing.T) {
	if redistest.RegistrationPrefix != registry.KeyPrefix {
		t.Fatalf("redistest.RegistrationPrefix %q, registry.KeyPrefix %q", redistest.RegistrationPrefix, registry.KeyPrefix)
	}
	for _, k := range []string{registry.Key("0b7c"), "redisson-go:client:", "redisson-go:clientx", "lock", "{redisson-go:client:x}"} {
		if got, want := redistest.IsRegistrationKey(k), registry.IsKey(k); got != want {
			t.Errorf("IsRegistrationKey(%q) = %v, registry.IsKey %v", k, got, want)
		}
	}
}

// The keyspace helpers leave registration records out, Sent leaves out the
// commands on them and SentAll keeps them, and Changes counts every write
// but the records'.
func TestRegistrationRecordsLeftOut(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	record := registry.Key("c1")
	require.NoError(t, rdb.Set(ctx, record, "{}", time.Minute).Err())
	require.NoError(t, rdb.Set(ctx, "user", "v", 0).Err())
	require.Equal(t, []string{"user"}, redistest.Keys(t, rdb, "*"))
	require.Equal(t, int64(1), redistest.DBSize(t, rdb))

	both := func() {
		require.NoError(t, rdb.Set(ctx, record, "{}", time.Minute).Err())
		require.NoError(t, rdb.Get(ctx, "user").Err())
	}
	var names []string
	for _, l := range redistest.Sent(t, srv, rdb, both) {
		names = append(names, l.Command+" "+l.Args[0])
	}
	require.Equal(t, []string{"get user"}, names)
	names = nil
	for _, l := range redistest.SentAll(t, srv, rdb, both) {
		names = append(names, l.Command+" "+l.Args[0])
	}
	require.Equal(t, []string{"set " + record, "get user"}, names)

	require.Zero(t, redistest.Changes(t, srv, rdb, both), "a record write is not a change")
	require.Equal(t, int64(2), redistest.Changes(t, srv, rdb, func() {
		both()
		require.NoError(t, rdb.Set(ctx, "user", "w", 0).Err())
		require.NoError(t, rdb.PExpire(ctx, "user", time.Minute).Err())
		require.NoError(t, rdb.ZRem(ctx, "absent", "m").Err()) // changes nothing
	}))
}
