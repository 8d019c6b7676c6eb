package ls

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
)

// fillScale writes n held-lock hashes of no registered client with a TTL,
// as browsertest's TestOverviewAtScale does.
func fillScale(tb testing.TB, rdb *redis.Client, n int) {
	tb.Helper()
	ctx := context.Background()
	for start := 0; start < n; start += 1000 {
		pipe := rdb.Pipeline()
		for i := start; i < min(start+1000, n); i++ {
			k := fmt.Sprintf("scale:%05d", i)
			pipe.HSet(ctx, k, fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d:1", i%7), 1)
			pipe.PExpire(ctx, k, 30*time.Minute)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			tb.Fatal(err)
		}
	}
}

// serverCPU is redis-server's user+system CPU seconds (INFO cpu).
func serverCPU(tb testing.TB, rdb *redis.Client) float64 {
	tb.Helper()
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		tb.Fatal(err)
	}
	var sum float64
	for _, line := range strings.Split(info, "\r\n") {
		for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, f); ok {
				x, _ := strconv.ParseFloat(v, 64)
				sum += x
			}
		}
	}
	return sum
}

// BenchmarkList20000 is one full ls.List over 20 000 held locks; it
// reports redis-server's CPU per listing beside Go's.
func BenchmarkList20000(b *testing.B) {
	s := redistest.StartServer(b)
	rdb := redistest.Client(b, s)
	fillScale(b, rdb, 20000)
	o := Options{Pattern: "*", MaxKeys: 40000, ScanCount: 1000}
	ctx := context.Background()
	c0 := serverCPU(b, rdb)
	b.ResetTimer()
	for b.Loop() {
		if _, err := List(ctx, rdb, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((serverCPU(b, rdb)-c0)*1e3/float64(b.N), "redis-ms/op")
}

// BenchmarkScanner20000 is one call of a Scanner past its first whole
// pass over the same 20 000 held locks, 400 of them changing.
func BenchmarkScanner20000(b *testing.B) {
	s := redistest.StartServer(b)
	rdb := redistest.Client(b, s)
	fillScale(b, rdb, 20000)
	ctx := context.Background()
	sc := NewScanner(rdb, Options{Pattern: "*", MaxKeys: 40000, ScanCount: 1000})
	if _, err := sc.Next(ctx); err != nil {
		b.Fatal(err)
	}
	c0 := serverCPU(b, rdb)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		rdb.HIncrBy(ctx, fmt.Sprintf("scale:%05d", i%400), fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d:1", i%7), 1)
		if _, err := sc.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((serverCPU(b, rdb)-c0)*1e3/float64(b.N), "redis-ms/op")
}
