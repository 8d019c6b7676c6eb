package metrics_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/metrics"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
)

// samples parses exposition text into series -> value.
func samples(t *testing.T, text string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// seriesOf returns the series of one metric, in the order written.
func seriesOf(text, name string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
			out = append(out, line[:strings.LastIndexByte(line, ' ')])
		}
	}
	return out
}

// writeTop is /metrics' text of rdb with the given --metrics-top.
func writeTop(t *testing.T, rdb redis.UniversalClient, top int) string {
	t.Helper()
	res, err := ls.List(context.Background(), rdb, ls.Options{Pattern: "*", MaxKeys: 10000, ScanCount: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	metrics.Write(&b, res, time.Millisecond, nil, metrics.Options{Top: top})
	for _, bad := range checkExposition(b.String()) {
		t.Error(bad)
	}
	return b.String()
}

// fakeHolder holds lock name as a client of its own would: the lock's
// hash field "<id>:1" and, unless noRecord, a registration record listing
// the hold as started age ago. A gone one's record was last written
// (by its TTL and PTTL) 10 s ago, past two 1 s refresh periods and the
// grace.
type fakeHolder struct {
	name, program, host string
	age                 time.Duration
	gone, noRecord      bool
}

// hold writes h's lock and record and returns its client id.
func (h fakeHolder) hold(t *testing.T, rdb redis.UniversalClient) string {
	t.Helper()
	ctx := context.Background()
	id := uuid.NewString()
	owner := id + ":1"
	if err := rdb.HSet(ctx, h.name, owner, 1).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.PExpire(ctx, h.name, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if h.noRecord {
		return id
	}
	now := time.Now().UnixMilli()
	rec := registry.Record{ID: id, Host: h.host, PID: 4242, Program: h.program, WrittenMs: now,
		TTLms: registry.Tombstone.Milliseconds(), PeriodMs: 1000,
		Holds: []registry.Hold{{Key: h.name, Owner: owner, Object: "lock", SinceMs: now - h.age.Milliseconds(), Depth: 1}}, HoldsTotal: 1}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	px := registry.Tombstone
	if h.gone {
		px -= 10 * time.Second
	}
	if err := rdb.Set(ctx, registry.Key(id), data, px).Err(); err != nil {
		t.Fatal(err)
	}
	return id
}

// holdsScrape is /metrics' text with every hold-age and holder family:
// holders with a live, a gone and no record, odd names among them.
func holdsScrape(t *testing.T) string {
	t.Helper()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	fakeHolder{name: "h:live", program: "api", host: "web-1", age: time.Minute}.hold(t, rdb)
	goneID := fakeHolder{name: "h:gone\n\"x\"", program: "batch\x1b[31m", host: `web"2\x`, age: time.Hour, gone: true}.hold(t, rdb)
	fakeHolder{name: "h:java", noRecord: true}.hold(t, rdb)
	// A fair lock with one waiter queued, as Redisson's script leaves it.
	fakeHolder{name: "h:fair", program: "api", host: "web-1", age: time.Minute}.hold(t, rdb)
	ctx := context.Background()
	waiter := uuid.NewString() + ":7"
	if err := rdb.RPush(ctx, "redisson_lock_queue:{h:fair}", waiter).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZAdd(ctx, "redisson_lock_timeout:{h:fair}", redis.Z{Score: float64(time.Now().Add(5 * time.Minute).UnixMilli()), Member: waiter}).Err(); err != nil {
		t.Fatal(err)
	}
	out := writeTop(t, rdb, metrics.DefaultTop)
	for _, f := range []string{"redisson_fair_lock_queue_length", "redisson_oldest_hold_age_seconds", "redisson_hold_age_seconds", "redisson_hold_age_top",
		"redisson_held_objects_with_age", "redisson_holds_unknown_age", "redisson_gone_holders", "redisson_client_holds"} {
		if len(seriesOf(out, f)) == 0 {
			t.Errorf("no %s", f)
		}
	}
	// Label values escaped as the names are.
	for _, want := range []string{
		`redisson_client_holds{client_id="` + goneID + "\",program=\"batch\x1b[31m\",host=\"web\\\"2\\\\x\",record=\"gone\"} 1\n",
		`redisson_hold_age_seconds{name="h:gone\n\"x\"",kind="lock"} `,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q", want)
		}
	}
	return out
}

// TestHoldAgeLive: a lock held by a real client shows its age from the
// client's record, per name and as its kind's oldest, and its client.
func TestHoldAgeLive(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	ctx := context.Background()
	c, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Lock("age:live").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// The client lists the hold in its record at its next refresh.
	var out string
	for deadline := time.Now().Add(30 * time.Second); ; {
		out = writeTop(t, rdb, metrics.DefaultTop)
		if len(seriesOf(out, "redisson_hold_age_seconds")) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := samples(t, out)
	if _, ok := got[`redisson_hold_age_seconds{name="age:live",kind="lock"}`]; !ok {
		t.Fatalf("no hold age of age:live:\n%s", out)
	}
	if _, ok := got[`redisson_oldest_hold_age_seconds{kind="lock"}`]; !ok {
		t.Errorf("no oldest hold age of kind lock:\n%s", out)
	}
	clients := seriesOf(out, "redisson_client_holds")
	if len(clients) != 1 || !strings.Contains(clients[0], `record="live"`) || !strings.Contains(clients[0], `program="`) {
		t.Errorf("client holds: %q", clients)
	}
	if got[`redisson_gone_holders{kind="lock"}`] != 0 || got[`redisson_holds_unknown_age{kind="lock"}`] != 0 {
		t.Errorf("a live recorded hold counts as gone or of unknown age:\n%s", out)
	}
}

// TestHoldAgeTopN: the per-name series are the oldest holds, oldest
// first, cut at --metrics-top; the kind's oldest is the oldest of all,
// cut or not.
func TestHoldAgeTopN(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	ages := map[string]time.Duration{"top:a": 2 * time.Minute, "top:b": 10 * time.Minute, "top:c": time.Minute}
	for name, age := range ages {
		fakeHolder{name: name, program: "worker", host: "web-1", age: age}.hold(t, rdb)
	}
	for _, tc := range []struct {
		top  int
		want []string
	}{
		{0, nil},
		{1, []string{"top:b"}},
		{2, []string{"top:b", "top:a"}},
		{20, []string{"top:b", "top:a", "top:c"}},
	} {
		out := writeTop(t, rdb, tc.top)
		var names []string
		for _, series := range seriesOf(out, "redisson_hold_age_seconds") {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(series, `redisson_hold_age_seconds{name="`), `",kind="lock"}`))
		}
		if strings.Join(names, ",") != strings.Join(tc.want, ",") {
			t.Errorf("top %d: %q, want %q", tc.top, names, tc.want)
		}
		got := samples(t, out)
		for _, n := range tc.want {
			if v := got[`redisson_hold_age_seconds{name="`+n+`",kind="lock"}`]; v < ages[n].Seconds() {
				t.Errorf("top %d: age of %s %v, want at least %v", tc.top, n, v, ages[n].Seconds())
			}
		}
		if v := got[`redisson_oldest_hold_age_seconds{kind="lock"}`]; v < ages["top:b"].Seconds() || v >= ages["top:b"].Seconds()+float64(time.Hour/time.Second) {
			t.Errorf("top %d: oldest lock hold %v, want top:b's", tc.top, v)
		}
		if got["redisson_hold_age_top"] != float64(tc.top) || got["redisson_held_objects_with_age"] != 3 {
			t.Errorf("top %d: hold_age_top %v, held_objects_with_age %v", tc.top, got["redisson_hold_age_top"], got["redisson_held_objects_with_age"])
		}
		if v := got[`redisson_client_holds{client_id="`]; v != 0 {
			t.Errorf("a holder without client id: %v", v)
		}
	}
}

// TestGoneHolderCounted: a hold whose client stopped refreshing its
// record counts in redisson_gone_holders and under record="gone"; its age
// is still known.
func TestGoneHolderCounted(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	deadID := fakeHolder{name: "gone:dead", program: "batch", host: "web-2", age: 5 * time.Minute, gone: true}.hold(t, rdb)
	liveID := fakeHolder{name: "gone:live", program: "api", host: "web-3", age: time.Minute}.hold(t, rdb)
	got := samples(t, writeTop(t, rdb, metrics.DefaultTop))
	for series, want := range map[string]float64{
		`redisson_gone_holders{kind="lock"}`:                                                           1,
		`redisson_lock_gone_holders{name="gone:dead",kind="lock"}`:                                     1,
		`redisson_client_holds{client_id="` + deadID + `",program="batch",host="web-2",record="gone"}`: 1,
		`redisson_client_holds{client_id="` + liveID + `",program="api",host="web-3",record="live"}`:   1,
		`redisson_holds_unknown_age{kind="lock"}`:                                                      0,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
	if v := got[`redisson_hold_age_seconds{name="gone:dead",kind="lock"}`]; v < 300 {
		t.Errorf("gone holder's hold age %v, want at least 300", v)
	}
}

// TestHolderWithoutRecord: a Java-like holder (a lock's field, no record)
// has no age series; it counts in redisson_holds_unknown_age and under
// record="none" with the client id its field carries.
func TestHolderWithoutRecord(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	javaID := fakeHolder{name: "java:held", noRecord: true}.hold(t, rdb)
	out := writeTop(t, rdb, metrics.DefaultTop)
	got := samples(t, out)
	for series, want := range map[string]float64{
		`redisson_holds_unknown_age{kind="lock"}`:                                            1,
		`redisson_gone_holders{kind="lock"}`:                                                 0,
		`redisson_client_holds{client_id="` + javaID + `",program="",host="",record="none"}`: 1,
		`redisson_held_objects_with_age`:                                                     0,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
	for _, f := range []string{"redisson_hold_age_seconds", "redisson_oldest_hold_age_seconds"} {
		if s := seriesOf(out, f); len(s) != 0 {
			t.Errorf("a hold of unknown age has an age: %q", s)
		}
	}
}
