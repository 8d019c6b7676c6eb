package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

func inspectJSON(t *testing.T, args ...string) Report {
	t.Helper()
	r := cli(t, 30*time.Second, append([]string{"inspect", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("inspect %v:\n%v", args, r)
	}
	var rep Report
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("inspect %v: bad JSON: %v\n%s", args, err, r.stdout)
	}
	// Stable field names: every documented field is present.
	var raw map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"name", "kind", "type", "ttl_ms", "mode", "holders", "queue", "value", "permits",
		"fencing_token", "channels", "waiters", "keys"} {
		if _, ok := raw[f]; !ok {
			t.Errorf("inspect --json lacks field %q", f)
		}
	}
	return rep
}

func TestInspectLock(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	hold, client := holdLock(t, rdb, "held")
	owner := hold.Owner()

	// A waiter in another client subscribes to the lock's channel.
	other, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() {
		_, err := other.Lock("held").Lock(wctx)
		waited <- err
	}()
	waitFor(t, 30*time.Second, "the waiter's subscription", func() (bool, string) {
		n := numSub(t, rdb, rlock.ChannelName("held"))
		return n == 1, strconv.FormatInt(n, 10)
	})

	rep := inspectJSON(t, "--redis", url, "held") // flags before and after NAME both work
	if rep.Name != "held" || rep.Kind != "lock" || rep.Type != "hash" {
		t.Errorf("kind: %+v", rep)
	}
	if rep.TTLms <= 0 || rep.TTLms > 30000 {
		t.Errorf("ttl_ms %d, want (0, 30000]", rep.TTLms)
	}
	if len(rep.Holders) != 1 {
		t.Fatalf("holders: %+v", rep.Holders)
	}
	h := rep.Holders[0]
	if h.ClientID == nil || *h.ClientID != client.ID() || h.OwnerID == nil || *h.OwnerID != owner || h.Holds != 1 || h.Mode != "exclusive" {
		t.Errorf("holder %+v, want client %s owner %d holds 1", h, client.ID(), owner)
	}
	if len(rep.Channels) != 1 || rep.Channels[0].Channel != "redisson_lock__channel:{held}" || rep.Channels[0].Subscribers != 1 {
		t.Errorf("channels: %+v", rep.Channels)
	}
	if rep.Waiters != 1 {
		t.Errorf("waiters %d, want 1", rep.Waiters)
	}
	if rep.Value != nil || rep.Mode != nil || rep.FencingToken != nil {
		t.Errorf("lock with value/mode/token: %+v", rep)
	}

	// Re-entry shows in the hold count.
	if _, err := client.Lock("held").Lock(t.Context(), rlock.WithOwner(owner)); err != nil {
		t.Fatal(err)
	}
	if rep := inspectJSON(t, "held", "--redis", url); len(rep.Holders) != 1 || rep.Holders[0].Holds != 2 {
		t.Errorf("after re-entry: %+v", rep.Holders)
	}

	// Human output.
	r := cli(t, 30*time.Second, "inspect", "--redis", url, "held")
	if r.code != 0 || !strings.Contains(r.stdout, "lock (Redis hash)") || !strings.Contains(r.stdout, client.ID()) ||
		!strings.Contains(r.stdout, "holds 2") {
		t.Errorf("human output:\n%v", r)
	}
	cancel()
	<-waited
}

func TestInspectKinds(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	const cid = "c0ffee00-0000-4000-8000-000000000001"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	rep := inspectJSON(t, "--redis", url, "missing")
	if rep.Kind != "none" || rep.Type != "none" || rep.TTLms != -2 || len(rep.Holders) != 0 || len(rep.Keys) != 0 {
		t.Errorf("missing key: %+v", rep)
	}
	if len(rep.Channels) != 4 {
		t.Errorf("missing key: want the 4 candidate channels, got %+v", rep.Channels)
	}

	must(rdb.Set(ctx, "sem", "5", 0).Err())
	rep = inspectJSON(t, "--redis", url, "sem")
	if rep.Kind != "semaphore or latch" || rep.Type != "string" || rep.Value == nil || *rep.Value != 5 || rep.TTLms != -1 {
		t.Errorf("string 5: %+v", rep)
	}
	// A subscriber on the semaphore channel tells what it is.
	ps := rdb.Subscribe(ctx, "redisson_sc:{sem}")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if rep = inspectJSON(t, "--redis", url, "sem"); rep.Kind != "semaphore" || rep.Waiters != 1 {
		t.Errorf("string 5 with a semaphore waiter: %+v", rep)
	}
	must(rdb.Set(ctx, "latch", "2", 0).Err())
	ps2 := rdb.Subscribe(ctx, "redisson_countdownlatch__channel__{latch}")
	defer ps2.Close()
	if _, err := ps2.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if rep = inspectJSON(t, "--redis", url, "latch"); rep.Kind != "count-down latch" || *rep.Value != 2 {
		t.Errorf("latch: %+v", rep)
	}

	must(rdb.Set(ctx, "pes", "1", 0).Err())
	expiry := time.Now().Add(time.Minute).UnixMilli()
	must(rdb.ZAdd(ctx, "{pes}:timeout", redis.Z{Score: float64(expiry), Member: "\x01\x02"},
		redis.Z{Score: 922337203685477, Member: "\xff"}).Err())
	rep = inspectJSON(t, "--redis", url, "pes")
	if rep.Kind != "permit-expirable semaphore" || *rep.Value != 1 || len(rep.Permits) != 2 {
		t.Fatalf("PES: %+v", rep)
	}
	if rep.Permits[0].ID != "0102" || rep.Permits[0].ExpiresMs == nil || *rep.Permits[0].ExpiresMs != expiry ||
		rep.Permits[1].ID != "ff" || rep.Permits[1].ExpiresMs != nil {
		t.Errorf("PES permits: %+v", rep.Permits)
	}

	must(rdb.HSet(ctx, "rw", "mode", "read", cid+":3", "2").Err())
	must(rdb.Set(ctx, "{rw}:"+cid+":3:rwlock_timeout:1", "1", time.Minute).Err())
	must(rdb.Set(ctx, "{rw}:"+cid+":3:rwlock_timeout:2", "1", time.Minute).Err())
	rep = inspectJSON(t, "--redis", url, "rw")
	if rep.Kind != "read-write lock" || rep.Mode == nil || *rep.Mode != "read" || len(rep.Holders) != 1 {
		t.Fatalf("rwlock: %+v", rep)
	}
	if h := rep.Holders[0]; h.Mode != "read" || h.Holds != 2 || *h.OwnerID != 3 || len(h.ReadTTLsms) != 2 || h.ReadTTLsms[1] <= 0 {
		t.Errorf("rwlock reader: %+v", h)
	}
	must(rdb.HSet(ctx, "rww", "mode", "write", cid+":9:write", "1").Err())
	rep = inspectJSON(t, "--redis", url, "rww")
	if h := rep.Holders[0]; rep.Kind != "read-write lock" || h.Mode != "write" || *h.OwnerID != 9 || *h.ClientID != cid {
		t.Errorf("rwlock writer: %+v", rep)
	}
	if rep.Channels[0].Channel != "redisson_rwlock:{rww}" {
		t.Errorf("rwlock channel: %+v", rep.Channels)
	}

	must(rdb.HSet(ctx, "fair", cid+":1", "1").Err())
	must(rdb.PExpire(ctx, "fair", time.Minute).Err())
	deadline := time.Now().Add(time.Minute).UnixMilli()
	must(rdb.RPush(ctx, "redisson_lock_queue:{fair}", cid+":2").Err())
	must(rdb.ZAdd(ctx, "redisson_lock_timeout:{fair}", redis.Z{Score: float64(deadline), Member: cid + ":2"}).Err())
	rep = inspectJSON(t, "--redis", url, "fair")
	if rep.Kind != "fair lock" || len(rep.Holders) != 1 || len(rep.Queue) != 1 {
		t.Fatalf("fair lock: %+v", rep)
	}
	if q := rep.Queue[0]; *q.OwnerID != 2 || q.TimeoutMs == nil || *q.TimeoutMs != deadline || q.Stale {
		t.Errorf("fair lock queue: %+v", q)
	}
	if len(rep.Channels) != 2 || rep.Channels[1].Channel != "redisson_lock__channel:{fair}:"+cid+":2" {
		t.Errorf("fair lock channels: %+v", rep.Channels)
	}
	if len(rep.Keys) != 3 {
		t.Errorf("fair lock keys: %+v", rep.Keys)
	}

	must(rdb.LPush(ctx, "list", "x").Err())
	if rep = inspectJSON(t, "--redis", url, "list"); rep.Kind != "unknown (list)" {
		t.Errorf("list: %+v", rep)
	}
	must(rdb.Set(ctx, "text", "hello", 0).Err())
	if rep = inspectJSON(t, "--redis", url, "text"); rep.Kind != "unknown (string)" {
		t.Errorf("text: %+v", rep)
	}
	// The text output says what an unknown key holds.
	for name, want := range map[string]string{
		"list": "unknown (Redis list, not a Redisson lock or synchronizer)",
		"text": "unknown (Redis string that is not an integer, not a Redisson lock or synchronizer)",
	} {
		r := cli(t, 30*time.Second, "inspect", "--redis", url, name)
		if r.code != 0 || !strings.Contains(r.stdout, "  kind         "+want+"\n") {
			t.Errorf("inspect %s: want kind %q:\n%v", name, want, r)
		}
	}

	// A tagged name keeps its braces; the latch channel adds them anyway.
	rep = inspectJSON(t, "--redis", url, "{t}x")
	var chans []string
	for _, c := range rep.Channels {
		chans = append(chans, c.Channel)
	}
	want := "redisson_lock__channel:{t}x redisson_rwlock:{t}x redisson_sc:{t}x redisson_countdownlatch__channel__{{t}x}"
	if strings.Join(chans, " ") != want {
		t.Errorf("channels of {t}x: %v, want %s", chans, want)
	}
}

func TestInspectCluster(t *testing.T) {
	t.Parallel()
	c := redistest.StartCluster(t, 3)
	cc := c.Client(t)
	hold, client := holdLock(t, cc, "clustered")
	owner := hold.Owner()
	if !client.Sharded() {
		t.Fatalf("a Redis 7 cluster should use sharded pub/sub")
	}
	other, err := redisson.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = other.Lock("clustered").Lock(wctx) }()

	url := "redis://" + strings.Join(c.Addrs(), ",")
	waitFor(t, 30*time.Second, "the waiter's sharded subscription", func() (bool, string) {
		r := cli(t, 30*time.Second, "inspect", "--json", "--cluster", "--redis", url, "clustered")
		var rep Report
		_ = json.Unmarshal([]byte(r.stdout), &rep)
		return rep.Waiters == 1, r.String()
	})
	rep := inspectJSON(t, "--cluster", "--redis", url, "clustered")
	if rep.Kind != "lock" || len(rep.Holders) != 1 || *rep.Holders[0].OwnerID != owner {
		t.Errorf("cluster lock: %+v", rep)
	}
	if ch := rep.Channels[0]; ch.ShardSubscribers == nil || *ch.ShardSubscribers != 1 || ch.Subscribers != 0 {
		t.Errorf("cluster lock channel: %+v", ch)
	}

	// run and unlock over the cluster too.
	r := cli(t, 30*time.Second, "run", "--cluster", "--redis", url, "--lock", "cl-run", "--", "sh", "-c", "exit 5")
	if r.code != 5 {
		t.Errorf("run on a cluster:\n%v", r)
	}
	r = cli(t, 30*time.Second, "unlock", "--force", "--cluster", "--redis", url, "clustered")
	if r.code != 0 || !strings.Contains(r.stdout, "force-unlocked") {
		t.Errorf("unlock on a cluster:\n%v", r)
	}
}

func TestSentinel(t *testing.T) {
	t.Parallel()
	master := redistest.StartServer(t)
	sentinel := redistest.StartSentinel(t, master)
	url := "redis-sentinel://" + sentinel.Addr() + "/" + redistest.SentinelMasterName
	r := cli(t, 30*time.Second, "run", "--redis", url, "--lock", "via-sentinel", "--", "sh", "-c", "exit 4")
	if r.code != 4 {
		t.Fatalf("run through a sentinel:\n%v", r)
	}
	rdb := redistest.Client(t, master)
	holdLock(t, rdb, "via-sentinel")
	if rep := inspectJSON(t, "--redis", url, "via-sentinel"); rep.Kind != "lock" {
		t.Errorf("inspect through a sentinel: %+v", rep)
	}
	// A comma list of sentinels, the first one dead; and go-redis' own form
	// (redis.ParseFailoverURL), with the sentinels as ?addr=.
	for _, u := range []string{
		"redis-sentinel://127.0.0.1:1," + sentinel.Addr() + "/" + redistest.SentinelMasterName,
		"redis://127.0.0.1:1?master_name=" + redistest.SentinelMasterName + "&addr=" + sentinel.Addr(),
	} {
		if rep := inspectJSON(t, "--redis", u, "via-sentinel"); rep.Kind != "lock" {
			t.Errorf("inspect through %s: %+v", u, rep)
		}
	}
}
