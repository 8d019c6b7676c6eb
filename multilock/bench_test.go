package multilock_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// BenchmarkUncontended10 compares one lock+unlock pair of a MultiLock of
// 10 RLocks (20 scripts: one client's members are released in order) with
// the group multi-lock of 10 values (2 scripts), one goroutine, one server.
func BenchmarkUncontended10(b *testing.B) {
	srv := redistest.StartServer(b)
	c := redissontest.ClientAt(b, srv.Addr())
	ctx := context.Background()
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprintf("k%d", i)
	}
	b.Run("multilock-10-rlocks", func(b *testing.B) {
		m := multilock.New(rlocks(c, names...)...)
		for b.Loop() {
			h, err := m.Lock(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if err := h.Unlock(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("group-10-values", func(b *testing.B) {
		g := c.MultiLockGroup("grp", names...)
		for b.Loop() {
			h, err := g.Lock(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if err := h.Unlock(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{3, 5} {
		b.Run(fmt.Sprintf("redlock-%d-servers", n), func(b *testing.B) {
			servers := redistest.StartMasters(b, n)
			members := make([]lockable.Lock, n)
			for i, s := range servers {
				members[i] = redissontest.ClientAt(b, s.Addr()).Lock("res")
			}
			rl := multilock.NewRedLock(members...)
			cpu := processCPU()
			for b.Loop() {
				h, err := rl.Lock(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := h.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
			}
			// The machine is shared: wall time per pair says little, the
			// process's CPU per pair more.
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
