package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/redissontest"
)

// objectHistory fetches an object's history from the dashboard: the
// reads' times and each line's values.
func objectHistory(t *testing.T, base, name string) ([]int64, map[string][]*int64) {
	t.Helper()
	res, err := http.Get(base + "api/history?name=" + url.QueryEscape(name))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v struct {
		T     []int64 `json:"t"`
		Lines []struct {
			Key    string   `json:"key"`
			Values []*int64 `json:"values"`
		} `json:"lines"`
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	lines := map[string][]*int64{}
	for _, l := range v.Lines {
		lines[l.Key] = l.Values
	}
	return v.T, lines
}

// waitHistory waits until the last read in name's history has line key
// satisfying ok.
func waitHistory(t *testing.T, base, name, key, what string, ok func(int64) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, lines := objectHistory(t, base, name)
		if l := lines[key]; len(l) > 0 && l[len(l)-1] != nil && ok(*l[len(l)-1]) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's history never read %s %s", name, key, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func is(n int64) func(int64) bool { return func(v int64) bool { return v == n } }

// addWaiter starts a goroutine waiting for name's lock until ctx ends
// and returns once the dashboard's history counts n waiters.
func addWaiter(t *testing.T, ctx context.Context, rdb *redis.Client, base, name string, n int64) {
	t.Helper()
	client := redissontest.NewClient(t, rdb)
	go func() { _, _ = client.Lock(name).Lock(ctx) }()
	waitHistory(t, base, name, "waiters", fmt.Sprint("= ", n), is(n))
}

// drawn is what the object page drew for one figure: its polyline's
// vertices, their distinct heights and the times of the first and last
// read drawn.
type drawn struct {
	Points  int   `json:"points"`
	Heights int   `json:"heights"`
	T0      int64 `json:"t0"`
	T1      int64 `json:"t1"`
}

// readChart reads the chart of figure key off the object page.
func readChart(t *testing.T, ctx context.Context, key string) drawn {
	t.Helper()
	raw, err := evaluate[string](ctx, `(() => {
		const pl = document.querySelector('svg.hist-chart[data-key=`+js(key)+`] polyline.hist-line');
		const ys = Array.from({length: pl.points.numberOfItems}, (_, i) => pl.points.getItem(i).y.toFixed(2));
		return JSON.stringify({points: ys.length, heights: new Set(ys).size, t0: Number(pl.getAttribute("data-t0")), t1: Number(pl.getAttribute("data-t1"))});
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	var d drawn
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestHistoryDrawn: a held lock whose waiters change over some reads gets,
// on its page, one chart per figure (holders, waiters, oldest hold) with
// a point per read, and a sparkline on the list; a hold older than
// --hold-warn is marked, by class and by text, on both pages.
func TestHistoryDrawn(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr, "--hold-warn", "2s")
	const name = "orders:hist"
	holder := redissontest.NewClient(t, rdb)
	h, err := holder.Lock(name).Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unlock(context.Background())

	ctx := browser(t)
	// While the page is open the dashboard reads, and keeps what it read.
	navigate(t, ctx, base+"object?name="+url.QueryEscape(name))
	live(t, ctx)
	waitHistory(t, base, name, "holders", "= 1", is(1))
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addWaiter(t, wctx, rdb, base, name, 1)
	w2ctx, cancel2 := context.WithCancel(wctx)
	addWaiter(t, w2ctx, rdb, base, name, 2)
	cancel2()
	waitHistory(t, base, name, "waiters", "back at 1", is(1))
	waitHistory(t, base, name, "hold_age", "past --hold-warn", func(ms int64) bool { return ms > 2000 })

	// The page fetches its history every 2 s: wait for a drawing that has
	// the last change.
	within(t, ctx, 10*time.Second, "three charts, the waiters' at three heights (0, 1, 2)", `(() => {
		const charts = [...document.querySelectorAll("#history-card svg.hist-chart")].map((s) => s.getAttribute("data-key"));
		const pl = document.querySelector('svg.hist-chart[data-key="waiters"] polyline.hist-line');
		if (charts.join(",") !== "holders,waiters,hold_age" || !pl) return false;
		const ys = Array.from({length: pl.points.numberOfItems}, (_, i) => pl.points.getItem(i).y.toFixed(2));
		return new Set(ys).size === 3;
	})()`)
	ts, lines := objectHistory(t, base, name)
	if got := len(lines); got != 3 {
		t.Errorf("%d lines in the history, want 3 (holders, waiters, hold_age): %v", got, lines)
	}
	for _, key := range []string{"holders", "waiters", "hold_age"} {
		d := readChart(t, ctx, key)
		// The reads the chart drew, counted in the history.
		want, values := 0, map[int64]bool{}
		for i, at := range ts {
			if at >= d.T0 && at <= d.T1 && lines[key][i] != nil {
				want++
				values[*lines[key][i]] = true
			}
		}
		if d.Points != want || d.Points < 3 {
			t.Errorf("chart %s: %d points, the history has %d reads in its span (and at least 3, one per waiter count, are expected)", key, d.Points, want)
		}
		if d.Heights != len(values) {
			t.Errorf("chart %s: %d heights for %d distinct values", key, d.Heights, len(values))
		}
		if key == "waiters" && !slices.Equal([]bool{values[0], values[1], values[2]}, []bool{true, true, true}) {
			t.Errorf("the waiters chart spans values %v, want 0, 1 and 2", values)
		}
	}
	within(t, ctx, 5*time.Second, "the holder marked as held over 2s", `(() => {
		const tr = document.querySelector("#body tr.old-hold");
		return tr !== null && tr.querySelector(".old-hold-note").innerText.includes("held over 2s");
	})()`)
	within(t, ctx, 10*time.Second, "the waiters chart back at 1", `document.querySelector('.hist[data-key="waiters"] .hist-head').innerText.includes("now 1 · most 2")`)
	screenshot(t, ctx, "history-object")

	navigate(t, ctx, base)
	live(t, ctx)
	within(t, ctx, 10*time.Second, "the row's sparkline", `(() => {
		const pl = document.querySelector('tr[data-name=`+js(name)+`] td.spark svg.sparkline polyline');
		return pl !== null && pl.points.numberOfItems >= 4;
	})()`)
	within(t, ctx, 5*time.Second, "the row marked as held over 2s", `(() => {
		const tr = document.querySelector('tr[data-name=`+js(name)+`]');
		return tr.classList.contains("old-hold") && tr.querySelector("td.holder .old-hold-note").innerText.includes("held over 2s");
	})()`)
	screenshot(t, ctx, "history-list")
}
