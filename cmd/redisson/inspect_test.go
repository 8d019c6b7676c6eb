package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/value"
)

func inspectJSON(t *testing.T, args ...string) inspect.Report {
	t.Helper()
	r := cli(t, 30*time.Second, append([]string{"inspect", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("inspect %v:\n%v", args, r)
	}
	var rep inspect.Report
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
		"rate_limiter", "fencing_token", "group_values", "channels", "waiters", "keys", "alternatives", "codec", "decoded", "size"} {
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
		n := numSub(t, rdb, keys.LockChannel("held"))
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

	// Nothing under the name: the report, and exit 1 with a one-line reason.
	r := cli(t, 30*time.Second, "inspect", "--json", "--redis", url, "missing")
	var rep inspect.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 1 ||
		r.stderr != "redisson inspect: missing: no such object (no key by that name, none Redisson derives from it, no waiter)\n" {
		t.Errorf("inspect missing: want exit 1, the JSON and one line on stderr: %v (%v)", r, err)
	}
	if r := cli(t, 30*time.Second, "inspect", "--redis", url, "missing"); r.code != 1 || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "no such object") {
		t.Errorf("inspect missing: %v", r)
	}
	if rep.Kind != "none" || rep.Type != "none" || rep.TTLms != -2 || len(rep.Holders) != 0 || len(rep.Keys) != 0 {
		t.Errorf("missing key: %+v", rep)
	}
	if len(rep.Channels) != 4 {
		t.Errorf("missing key: want the 4 candidate channels, got %+v", rep.Channels)
	}

	must(rdb.Set(ctx, "sem", "5", 0).Err())
	rep = inspectJSON(t, "--redis", url, "sem")
	if rep.Kind != "atomiclong" || rep.Type != "string" || rep.Value == nil || *rep.Value != 5 || rep.TTLms != -1 ||
		strings.Join(rep.Alternatives, ",") != "semaphore,count-down latch,bucket" || rep.Codec != nil || rep.Decoded != nil {
		t.Errorf("string 5 with no waiters: %+v", rep)
	}
	// A subscriber on the semaphore channel tells what it is.
	ps := rdb.Subscribe(ctx, "redisson_sc:{sem}")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if rep = inspectJSON(t, "--redis", url, "sem"); rep.Kind != "semaphore" || rep.Waiters != 1 || len(rep.Alternatives) != 0 {
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
	if rep = inspectJSON(t, "--redis", url, "text"); rep.Kind != "bucket" || rep.Codec == nil || *rep.Codec != "string" ||
		rep.Decoded != "hello" || len(rep.Channels) != 0 {
		t.Errorf("text: %+v", rep)
	}
	// The text output says what an unknown key holds.
	for name, want := range map[string]string{
		"list": "unknown (Redis list, not a Redisson lock or synchronizer)",
		"text": "bucket (Redis string)",
	} {
		r := cli(t, 30*time.Second, "inspect", "--redis", url, name)
		if r.code != 0 || !strings.Contains(r.stdout, "  kind         "+want+"\n") {
			t.Errorf("inspect %s: want kind %q:\n%v", name, want, r)
		}
	}

	// A tagged name keeps its braces; the latch channel adds them anyway.
	// (Nothing is there: exit 1.)
	r = cli(t, 30*time.Second, "inspect", "--json", "--redis", url, "{t}x")
	rep = inspect.Report{}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 1 {
		t.Errorf("inspect {t}x: %v (%v)", r, err)
	}
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
		var rep inspect.Report
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
	// The holder's record, read from the master of its own key's slot.
	waitFor(t, 30*time.Second, "the holder's identity over the cluster", func() (bool, string) {
		rep := inspectJSON(t, "--cluster", "--redis", url, "clustered")
		h := rep.Holders[0]
		return h.Client != nil && h.Client.PID == os.Getpid() && h.HeldForMs != nil, fmt.Sprintf("%+v", h)
	})

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

// TestInspectValues: buckets show the codec their bytes suggest and their
// value decoded as get prints it; an integer string with no waiters is an
// atomic long, or a semaphore or latch nobody waits on.
func TestInspectValues(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	src := sourceOn(t, rdb)
	ctx := context.Background()
	types := codec.NewTypes().MustRegister("com.example.Person", getPerson{})
	id := int64(7)
	long := make([]any, 100)
	for i := range long {
		long[i] = int32(i)
	}
	subscribe := func(channel string) {
		ps := rdb.Subscribe(ctx, channel)
		t.Cleanup(func() { ps.Close() })
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	type tc struct {
		name    string
		set     func(key string) error
		kind    string
		codec   string // "": null
		decoded string // JSON of the decoded field; "": null
		value   *int64
		alts    string
		ttl     bool // has a TTL
		human   []string
	}
	v := func(n int64) *int64 { return &n }
	for _, c := range []tc{
		{name: "json pojo", set: func(k string) error {
			return value.NewBucket[getPerson](src, k, codec.JsonJackson(types)).Set(ctx, getPerson{Name: "Ann", ID: &id})
		}, kind: "bucket", codec: "json", decoded: `{"@class":"com.example.Person","id":7,"name":"Ann"}`,
			human: []string{"  kind         bucket (Redis string)\n", "  codec        json (JsonJacksonCodec, guessed from the bytes)\n",
				"  value        {\n                 \"@class\": \"com.example.Person\",\n", "  size         70 bytes\n"}},
		{name: "json pojo with Java arrays", set: func(k string) error {
			return rdb.Set(ctx, k, `{"@class":"com.example.Order","codes":[1,2],"tags":["a","b"]}`, 0).Err()
		}, kind: "bucket", codec: "json", decoded: `{"@class":"com.example.Order","codes":[1,2],"tags":["a","b"]}`},
		{name: "json Long with TTL", set: func(k string) error {
			return value.NewBucket[int64](src, k, codec.JsonJackson(nil)).SetTTL(ctx, 42, time.Minute)
		}, kind: "bucket", codec: "json", decoded: `42`, ttl: true},
		{name: "msgpack list", set: func(k string) error {
			return value.NewBucket[any](src, k, codec.MsgPackJackson(nil)).Set(ctx, []any{int64(1), "two", math.NaN()})
		}, kind: "bucket", codec: "msgpack", decoded: `[1,"two","NaN"]`,
			human: []string{"  codec        msgpack (MsgPackJacksonCodec, guessed from the bytes)\n"}},
		{name: "msgpack string", set: func(k string) error {
			return value.NewBucket[string](src, k, codec.MsgPackJackson(nil)).Set(ctx, "héllo")
		}, kind: "bucket", codec: "msgpack", decoded: `"héllo"`},
		{name: "string", set: func(k string) error {
			return value.NewBucket[string](src, k, codec.String()).Set(ctx, "héllo wörld")
		}, kind: "bucket", codec: "string", decoded: `"héllo wörld"`,
			human: []string{"  codec        string (StringCodec, guessed from the bytes)\n", "  value        \"héllo wörld\"\n"}},
		{name: "json string", set: func(k string) error {
			return value.NewBucket[string](src, k, codec.JsonJackson(nil)).Set(ctx, "hi")
		}, kind: "bucket", codec: "string", decoded: `"\"hi\""`,
			human: []string{"also JSON without type information"}},
		{name: "bytes", set: func(k string) error {
			return value.NewBucket[[]byte](src, k, codec.ByteArray()).Set(ctx, []byte{0, 1, 2})
		}, kind: "bucket", codec: "bytes", decoded: `"AAEC"`,
			human: []string{"  codec        bytes: ByteArrayCodec, or Kryo5Codec", "Kryo is not portable", "  hex          000102\n"}},
		{name: "kryo", set: func(k string) error {
			return rdb.Set(ctx, k, "\x03hell\xef", 0).Err() // Kryo 5's String "hello"
		}, kind: "bucket", codec: "bytes", decoded: `"A2hlbGzv"`, human: []string{"Kryo is not portable"}},
		{name: "long value", set: func(k string) error {
			return value.NewBucket[[]any](src, k, codec.JsonJackson(nil)).Set(ctx, long)
		}, kind: "bucket", codec: "json",
			human: []string{"                 38,…\n               (cut short: redisson get --codec json 'long value' prints it all)\n"}},
		{name: "long string", set: func(k string) error {
			return value.NewBucket[string](src, k, codec.String()).Set(ctx, strings.Repeat("é", 3000))
		}, kind: "bucket", codec: "string",
			human: []string{"  value        \"" + strings.Repeat("é", 2047) + "…\n               (cut short: redisson get --codec string 'long string' prints it all)\n"}},
		{name: "atomic long", set: func(k string) error { return value.NewAtomicLong(src, k).Set(ctx, -42) },
			kind: "atomiclong", value: v(-42), alts: "semaphore,count-down latch,bucket",
			human: []string{"  kind         integer string: an atomic long, or a semaphore/latch with no waiters (Redis string)\n",
				"  value        -42\n", "  waiters      0 subscribed connection(s)\n"}},
		{name: "semaphore", set: func(k string) error { subscribe("redisson_sc:{" + k + "}"); return rdb.Set(ctx, k, "3", 0).Err() },
			kind: "semaphore", value: v(3), human: []string{"  kind         semaphore (Redis string)\n", "  permits      3\n"}},
		{name: "latch", set: func(k string) error {
			subscribe("redisson_countdownlatch__channel__{" + k + "}")
			return rdb.Set(ctx, k, "2", 0).Err()
		}, kind: "count-down latch", value: v(2), human: []string{"  count        2\n"}},
		{name: "waiters on both", set: func(k string) error {
			subscribe("redisson_sc:{" + k + "}")
			subscribe("redisson_countdownlatch__channel__{" + k + "}")
			return rdb.Set(ctx, k, "4", 0).Err()
		}, kind: "semaphore or latch", value: v(4)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.set(c.name); err != nil {
				t.Fatal(err)
			}
			rep := inspectJSON(t, "--redis", url, c.name)
			if rep.Kind != c.kind || rep.Type != "string" || strings.Join(rep.Alternatives, ",") != c.alts {
				t.Errorf("kind %q type %q alternatives %q, want %q string %q", rep.Kind, rep.Type, rep.Alternatives, c.kind, c.alts)
			}
			if (rep.Codec == nil) != (c.codec == "") || rep.Codec != nil && *rep.Codec != c.codec {
				t.Errorf("codec %v, want %q", rep.Codec, c.codec)
			}
			if (rep.Value == nil) != (c.value == nil) || rep.Value != nil && *rep.Value != *c.value {
				t.Errorf("value %v, want %v", rep.Value, c.value)
			}
			if c.kind == "bucket" {
				if rep.Size == nil || *rep.Size <= 0 || len(rep.Channels) != 0 || rep.Waiters != 0 {
					t.Errorf("bucket: size %v, channels %+v", rep.Size, rep.Channels)
				}
				if c.decoded != "" {
					got, _ := json.Marshal(rep.Decoded)
					if string(got) != c.decoded {
						t.Errorf("decoded %s, want %s", got, c.decoded)
					}
				}
			} else if rep.Decoded != nil || rep.Size != nil {
				t.Errorf("not a bucket, but decoded %v size %v", rep.Decoded, rep.Size)
			}
			if c.ttl != (rep.TTLms > 0) {
				t.Errorf("ttl_ms %d", rep.TTLms)
			}
			if len(c.human) > 0 {
				r := cli(t, 30*time.Second, "inspect", "--redis", url, c.name)
				for _, want := range c.human {
					if r.code != 0 || !strings.Contains(r.stdout, want) {
						t.Errorf("human output lacks %q:\n%v", want, r)
					}
				}
			}
		})
	}
}
