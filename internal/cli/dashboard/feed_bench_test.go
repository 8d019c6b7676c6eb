package dashboard

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/redistest"
)

// BenchmarkOverviewFeed20000 is one interval of the overview's feed with
// one viewer over 20 000 held locks, 400 of them changing: the scanner's
// reading, the state and the viewer's diff.
func BenchmarkOverviewFeed20000(b *testing.B) {
	s := redistest.StartServer(b)
	rdb := redistest.Client(b, s)
	ctx := context.Background()
	for start := 0; start < 20000; start += 1000 {
		pipe := rdb.Pipeline()
		for i := start; i < start+1000; i++ {
			k := fmt.Sprintf("scale:%05d", i)
			pipe.HSet(ctx, k, fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d:1", i%7), 1)
			pipe.PExpire(ctx, k, 30*time.Minute)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	d := &dashboard{rdb: rdb, o: dashOptions{ls: ls.Options{Pattern: "*", MaxKeys: 40000, ScanCount: 1000}, timeout: 5 * time.Second}}
	sc := ls.NewScanner(rdb, d.o.ls)
	v := newViewer(parseViewQuery(url.Values{}))
	var prev *lsState
	step := func(i int) {
		rdb.HIncrBy(ctx, fmt.Sprintf("scale:%05d", i%400), fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d:1", i%7), 1)
		prev = nextLsState(d.lsView(ctx, sc.Next), prev)
		v.next(prev)
	}
	step(0)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		step(i)
	}
}
