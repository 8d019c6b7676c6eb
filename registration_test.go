package redisson_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
	"github.com/goredisson/redisson/rwlock"
)

// readRecord returns the client's registration record, nil when there is
// none.
func readRecord(t *testing.T, rdb redis.UniversalClient, id string) *registry.Record {
	t.Helper()
	data, err := rdb.Get(context.Background(), registry.Key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	require.NoError(t, err)
	rec, err := registry.Parse(data)
	require.NoError(t, err)
	return rec
}

func TestRegistrationRecord(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	before := time.Now()
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(3*time.Second))
	require.NoError(t, err)
	defer c.Close()

	var rec *registry.Record
	redistest.Eventually(t, 5*time.Second, "the record appears", func() bool {
		rec = readRecord(t, rdb, c.ID())
		return rec != nil
	})
	host, _ := os.Hostname()
	require.Equal(t, c.ID(), rec.ID)
	require.Equal(t, host, rec.Host)
	require.Equal(t, os.Getpid(), rec.PID)
	require.Equal(t, filepath.Base(os.Args[0]), rec.Program)
	require.Equal(t, "(devel)", rec.Library) // a test binary of the module itself
	require.Equal(t, redisson.Version, rec.Version)
	require.NotEmpty(t, rec.Go)
	require.InDelta(t, before.UnixMilli(), rec.StartedMs, 5000)
	require.Equal(t, int64(1000), rec.PeriodMs) // WatchdogTimeout/3
	require.Equal(t, registry.Tombstone.Milliseconds(), rec.TTLms)
	require.Empty(t, rec.Holds)
	ttl, err := rdb.PTTL(ctx, registry.Key(c.ID())).Result()
	require.NoError(t, err)
	require.Positive(t, ttl)
	require.LessOrEqual(t, ttl, registry.Tombstone)
	gone, _ := rec.Gone(ttl)
	require.False(t, gone, "a live client")

	// Holds appear with their owner field and since when.
	h, err := c.Lock("reg:lock").Lock(ctx)
	require.NoError(t, err)
	w, err := c.ReadWriteLock("reg:rw").WriteLock().Lock(ctx, rwlock.WithOwner(42))
	require.NoError(t, err)
	redistest.Eventually(t, 5*time.Second, "both holds in the record", func() bool {
		rec = readRecord(t, rdb, c.ID())
		return rec != nil && len(rec.Holds) == 2
	})
	lh, ok := rec.Find("reg:lock", fmt.Sprintf("%s:%d", c.ID(), h.Owner()))
	require.True(t, ok, "lock hold in %+v", rec.Holds)
	require.Equal(t, "lock", lh.Object)
	require.Equal(t, 1, lh.Depth)
	require.GreaterOrEqual(t, lh.SinceMs, before.UnixMilli())
	require.LessOrEqual(t, lh.SinceMs, time.Now().UnixMilli())
	wh, ok := rec.Find("reg:rw", c.ID()+":42:write")
	require.True(t, ok, "write hold in %+v", rec.Holds)
	require.Equal(t, "write lock", wh.Object)
	require.Equal(t, 2, rec.HoldsTotal)
	// The owner field is the one in the lock's hash.
	n, err := rdb.HGet(ctx, "reg:lock", lh.Owner).Int()
	require.NoError(t, err)
	require.Equal(t, 1, n)

	// Goroutines waiting for the lock are counted on its channel.
	wctx, stopWaiting := context.WithCancel(ctx)
	var waiting sync.WaitGroup
	for range 3 {
		waiting.Add(1)
		go func() {
			defer waiting.Done()
			if h, err := c.Lock("reg:lock").Lock(wctx); err == nil {
				_ = h.Unlock(ctx)
			}
		}()
	}
	redistest.Eventually(t, 10*time.Second, "3 waiters in the record", func() bool {
		rec = readRecord(t, rdb, c.ID())
		return rec != nil && rec.Waiters["redisson_lock__channel:{reg:lock}"] == 3
	})
	stopWaiting()
	waiting.Wait()

	require.NoError(t, h.Unlock(ctx))
	require.NoError(t, w.Unlock(ctx))
	redistest.Eventually(t, 5*time.Second, "the holds leave the record", func() bool {
		rec = readRecord(t, rdb, c.ID())
		return rec != nil && len(rec.Holds) == 0
	})

	// Refreshed every period: still there well after its first TTL.
	first := rec.WrittenMs
	redistest.Eventually(t, 5*time.Second, "a refresh", func() bool {
		rec = readRecord(t, rdb, c.ID())
		return rec != nil && rec.WrittenMs > first
	})

	require.NoError(t, c.Close())
	require.Nil(t, readRecord(t, rdb, c.ID()), "Close deletes the record")
}

// TestRegistrationDisabled: a disabled registration sends nothing at all
// for the record, from New to Close. MONITOR is read here directly, so
// that no filter of a helper can hide a registration command.
func TestRegistrationDisabled(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	m, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	defer m.Close()
	begin, end := "reg-begin-"+strconv.FormatInt(time.Now().UnixNano(), 36), "reg-end-"+strconv.FormatInt(time.Now().UnixNano(), 36)
	require.NoError(t, rdb.Echo(ctx, begin).Err())
	c, err := redisson.New(rdb, func(o *redisson.Options) { o.Registration.Disabled = true })
	require.NoError(t, err)
	h, err := c.Lock("reg:off").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	require.NoError(t, c.Close())
	require.NoError(t, rdb.Echo(ctx, end).Err())

	inside, lockCalls := false, 0
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case line, ok := <-m.Lines():
			require.True(t, ok, "MONITOR ended")
			l, ok := redistest.ParseMonitorLine(line)
			if !ok {
				continue
			}
			if l.Command == "echo" && len(l.Args) == 1 {
				inside = inside || l.Args[0] == begin
				done = l.Args[0] == end
				continue
			}
			if !inside {
				continue
			}
			for _, a := range l.Args {
				require.NotContains(t, a, registry.KeyPrefix, "a registration command: %s", line)
				if strings.Contains(a, "reg:off") {
					lockCalls++
				}
			}
		case <-timeout:
			t.Fatal("end marker not seen")
		}
	}
	require.Positive(t, lockCalls, "the lock calls were seen")
	require.Nil(t, readRecord(t, rdb, c.ID()))
}

// TestRegistrationPermits: the record lists the semaphore permits the
// client took and has not given back, a permit-expirable semaphore's by
// id, within a refresh period.
func TestRegistrationPermits(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(3*time.Second))
	require.NoError(t, err)
	defer c.Close()
	sem := c.Semaphore("reg:sem")
	_, err = sem.TrySetPermits(ctx, 5)
	require.NoError(t, err)
	require.NoError(t, sem.Acquire(ctx, 3))
	pes := c.PermitExpirableSemaphore("reg:pes")
	_, err = pes.TrySetPermits(ctx, 2)
	require.NoError(t, err)
	id, err := pes.Acquire(ctx)
	require.NoError(t, err)

	want := []registry.PermitHold{{Key: "reg:pes", Count: 1, IDs: []string{id}}, {Key: "reg:sem", Count: 3}}
	var rec *registry.Record
	redistest.Eventually(t, 10*time.Second, "the permits in the record", func() bool {
		rec = readRecord(t, rdb, c.ID())
		return rec != nil && reflect.DeepEqual(rec.Permits, want)
	})
	require.NoError(t, sem.Release(ctx, 1))
	require.NoError(t, pes.Release(ctx, id))
	redistest.Eventually(t, 10*time.Second, "the released permits leave the record", func() bool {
		rec = readRecord(t, rdb, c.ID())
		return rec != nil && reflect.DeepEqual(rec.Permits, []registry.PermitHold{{Key: "reg:sem", Count: 2}})
	})
}
