package metrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
)

// TestMetricsLockKinds: the spin and non-reentrant locks are named by
// their holders' registration records and have the lock series of the
// kind whose keys they keep.
func TestMetricsLockKinds(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	c, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := t.Context()
	if _, err := c.SpinLock("m:spin").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NonReentrantLock("m:nr").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NonReentrantFairLock("m:nrf").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, 30*time.Second, "the client's record to list its three holds", func() bool {
		data, err := rdb.Get(context.Background(), registry.Key(c.ID())).Bytes()
		if err != nil {
			return false
		}
		rec, err := registry.Parse(data)
		return err == nil && len(rec.Holds) == 3
	})
	out := write(t, rdb)
	for _, bad := range checkExposition(out) {
		t.Error(bad)
	}
	for _, want := range []string{
		`redisson_lock_held{name="m:spin",kind="spin lock"} 1`,
		`redisson_lock_held{name="m:nr",kind="non-reentrant lock"} 1`,
		`redisson_lock_held{name="m:nrf",kind="non-reentrant fair lock"} 1`,
		`redisson_fair_lock_queue_length{name="m:nrf"} 0`,
		`redisson_objects{kind="spin lock"} 1`,
		`redisson_objects{kind="non-reentrant lock"} 1`,
		`redisson_objects{kind="non-reentrant fair lock"} 1`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("lacks %s", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}
