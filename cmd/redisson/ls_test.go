package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/watch"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/semaphore"
)

// lsJSON runs "ls --json ARGS" and decodes its output.
func lsJSON(t *testing.T, args ...string) ls.Result {
	t.Helper()
	r := cli(t, 60*time.Second, append([]string{"ls", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("ls %v:\n%v", args, r)
	}
	var res ls.Result
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("ls %v: bad JSON: %v\n%s", args, err, r.stdout)
	}
	return res
}

func lsNames(res ls.Result) string {
	var n []string
	for _, o := range res.Objects {
		n = append(n, o.Name)
	}
	return strings.Join(n, " ")
}

// subscribe keeps a subscription to channel open for the test.
func subscribe(t *testing.T, rdb redis.UniversalClient, channel string) {
	t.Helper()
	ps := rdb.Subscribe(context.Background(), channel)
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// makeEveryKind puts one object of every kind ls knows into rdb, through
// the library where it makes them, and returns what ls must say of each.
func makeEveryKind(t *testing.T, rdb redis.UniversalClient) map[string]lsWant {
	t.Helper()
	ctx := context.Background()
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	owner := func(o int64) string { return fmt.Sprintf("%s:%d", client.ID(), o) }

	lock, err := client.Lock("k:lock").Lock(ctx)
	must(err)
	t.Cleanup(func() { _ = lock.Unlock(context.Background()) })
	// An unlock latch left by an unlock (as Redisson's, for its retries).
	must(rdb.Set(ctx, "redisson_unlock_latch:{k:lock}:0123456789abcdef0123456789abcdef", "1", time.Minute).Err())

	fair, err := client.FairLock("k:fair").Lock(ctx)
	must(err)
	t.Cleanup(func() { _ = fair.Unlock(context.Background()) })
	wctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() { _, _ = client.FairLock("k:fair").Lock(wctx) }()
	waitFor(t, 30*time.Second, "the fair lock's waiter to queue", func() (bool, string) {
		n := rdb.LLen(ctx, keys.FairLockQueue("k:fair")).Val()
		return n == 1, fmt.Sprint(n)
	})

	rl, err := client.ReadWriteLock("k:rw").ReadLock().Lock(ctx)
	must(err)
	t.Cleanup(func() { _ = rl.Unlock(context.Background()) })

	fenced, err := client.FencedLock("k:fenced").Lock(ctx)
	must(err)
	must(fenced.Unlock(ctx)) // free: only the token key is left

	g, err := client.MultiLockGroup("k:group", "a", "b").Lock(ctx, multilock.WithLease(time.Minute))
	must(err)
	t.Cleanup(func() { _ = g.Unlock(context.Background()) })

	sem := client.Semaphore("k:sem")
	_, err = sem.TrySetPermits(ctx, 4)
	must(err)
	subscribe(t, rdb, "redisson_sc:{k:sem}")

	pes := client.PermitExpirableSemaphore("k:pes")
	_, err = pes.TrySetPermits(ctx, 3)
	must(err)
	permit, err := pes.Acquire(ctx, semaphore.WithLease(time.Minute))
	must(err)
	// The client's record lists the permit (written in the background).
	waitFor(t, 30*time.Second, "the permit in the client's record", func() (bool, string) {
		data, err := rdb.Get(ctx, registry.Key(client.ID())).Bytes()
		if err != nil {
			return false, err.Error()
		}
		rec, err := registry.Parse(data)
		if err != nil {
			return false, err.Error()
		}
		return len(rec.Permits) == 1 && len(rec.Permits[0].IDs) == 1 && rec.Permits[0].IDs[0] == permit, string(data)
	})

	_, err = client.CountDownLatch("k:latch").TrySetCount(ctx, 2)
	must(err)
	subscribe(t, rdb, "redisson_countdownlatch__channel__{k:latch}")

	_, err = client.AtomicLong("k:long").AddAndGet(ctx, 42)
	must(err)

	lim := client.RateLimiter("k:rate")
	must(lim.SetRate(ctx, ratelimit.Overall, 10, time.Second))
	_, err = lim.TryAcquire(ctx, 3)
	must(err)
	plim := client.RateLimiter("k:prate")
	must(plim.SetRate(ctx, ratelimit.PerClient, 5, time.Minute))
	_, err = plim.TryAcquire(ctx, 1)
	must(err)

	must(rdb.Set(ctx, "k:text", "hello", 0).Err())
	must(rdb.RPush(ctx, "k:list", "x").Err())

	return map[string]lsWant{
		"k:lock":    {kind: classify.Lock, state: "held", holder: owner(lock.Owner()), held: true},
		"k:fair":    {kind: classify.FairLock, state: "held, queue 1", holder: owner(fair.Owner()), held: true, waiters: 1},
		"k:rw":      {kind: classify.RWLock, state: "held (read)", holder: owner(rl.Owner()), held: true},
		"k:fenced":  {kind: classify.Lock, state: "free, token 1"}, // its token outlives every hold
		"k:group":   {kind: classify.Group, state: "2 values held", holder: owner(g.Owner()), held: true},
		"k:sem":     {kind: classify.Semaphore, state: "permits 4", waiters: 1},
		"k:pes":     {kind: classify.Expirable, state: "permits 2, acquired 1", held: true, permitHolder: client.ID()},
		"k:latch":   {kind: classify.Latch, state: "count 2", waiters: 1},
		"k:long":    {kind: classify.AtomicLong, state: "value 42"},
		"k:rate":    {kind: classify.RateLimiter, state: "rate 10 per 1s, OVERALL"},
		"k:prate":   {kind: classify.RateLimiter, state: "rate 5 per 1m0s, PER_CLIENT"},
		"k:text":    {kind: classify.Bucket, state: "5 bytes"},
		"k:list":    {kind: "unknown (list)", state: "Redis list"},
		"k:unused":  {absent: true},
		"k:nothing": {absent: true},
	}
}

type lsWant struct {
	kind, state, holder string
	permitHolder        string // the client id of a semaphore's permit holder
	held                bool
	waiters             int64
	absent              bool
}

// checkEveryKind checks ls's objects against want: every object once, with
// its kind, state, holder and waiters, and no derived key as an object.
func checkEveryKind(t *testing.T, res ls.Result, want map[string]lsWant) {
	t.Helper()
	got := map[string]ls.Object{}
	for _, o := range res.Objects {
		if _, dup := got[o.Name]; dup {
			t.Errorf("%s listed twice", o.Name)
		}
		got[o.Name] = o
	}
	for name, w := range want {
		o, ok := got[name]
		switch {
		case w.absent && ok:
			t.Errorf("%s listed: %+v", name, o)
			continue
		case w.absent:
			continue
		case !ok:
			t.Errorf("%s not listed; got %s", name, lsNames(res))
			continue
		}
		if o.Kind != w.kind || o.State != w.state || o.Held != w.held || o.Waiters != w.waiters {
			t.Errorf("%s: kind %q state %q held %v waiters %d; want %q %q %v %d", name, o.Kind, o.State, o.Held, o.Waiters,
				w.kind, w.state, w.held, w.waiters)
		}
		if w.holder != "" {
			if len(o.Holders) == 0 || o.Holders[0].ClientID == nil ||
				fmt.Sprintf("%s:%d", *o.Holders[0].ClientID, *o.Holders[0].OwnerID) != w.holder {
				t.Errorf("%s: holders %+v, want %s", name, o.Holders, w.holder)
			}
		} else if w.permitHolder != "" {
			if len(o.Holders) != 1 || o.Holders[0].Mode != "permits" || o.Holders[0].ClientID == nil ||
				*o.Holders[0].ClientID != w.permitHolder || o.Holders[0].Holds != 1 || o.Holders[0].Client == nil {
				t.Errorf("%s: holders %+v, want %s holding 1 permit", name, o.Holders, w.permitHolder)
			}
		} else if len(o.Holders) != 0 {
			t.Errorf("%s: holders %+v, want none", name, o.Holders)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected object %q (a derived key not folded?): %+v", name, got[name])
		}
	}
}

func TestLsEveryKind(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	want := makeEveryKind(t, rdb)
	res := lsJSON(t, "--redis", url)
	checkEveryKind(t, res, want)
	if res.Truncated || res.Pattern != "*" || res.ScannedKeys < len(res.Objects) {
		t.Errorf("ls: %+v", res)
	}
	// The derived keys are the objects' keys.
	keysOf := map[string]string{}
	for _, o := range res.Objects {
		keysOf[o.Name] = strings.Join(o.Keys, " ")
	}
	for name, key := range map[string]string{
		"k:lock":   "redisson_unlock_latch:{k:lock}:0123456789abcdef0123456789abcdef",
		"k:fair":   "redisson_lock_queue:{k:fair}",
		"k:fenced": "redisson_lock_token:{k:fenced}",
		"k:pes":    "{k:pes}:timeout",
		"k:rate":   "{k:rate}:permits",
		"k:prate":  "{k:prate}:value:",
		"k:rw":     ":rwlock_timeout:1",
	} {
		if !strings.Contains(keysOf[name], key) {
			t.Errorf("%s: keys %q lack %q", name, keysOf[name], key)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "lock"}, "k:fenced k:lock"},
		{[]string{"--kind", "fair lock"}, "k:fair"},
		{[]string{"--kind", "rwlock"}, "k:rw"},
		{[]string{"--kind", "semaphore"}, "k:long k:sem"}, // an integer nobody waits on may be one
		{[]string{"--kind", "latch"}, "k:latch k:long"},
		{[]string{"--kind", "pes"}, "k:pes"},
		{[]string{"--kind", "ratelimiter"}, "k:prate k:rate"},
		{[]string{"--kind", "unknown"}, "k:list"},
		{[]string{"--held"}, "k:fair k:group k:lock k:pes k:rw"},
		{[]string{"--held", "--kind", "lock"}, "k:lock"},
		{[]string{"k:r*"}, "k:rate k:rw"},
		{[]string{"*fenced*"}, "k:fenced"},
	} {
		if got := lsNames(lsJSON(t, append([]string{"--redis", url}, tc.args...)...)); got != tc.want {
			t.Errorf("ls %v: got %q, want %q", tc.args, got, tc.want)
		}
	}

	// The text form: one line per object with its columns.
	r := cli(t, 30*time.Second, "ls", "--redis", url, "k:[lp]*")
	if r.code != 0 {
		t.Fatalf("ls:\n%v", r)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	// k:latch k:list k:lock k:long k:pes k:prate: the derived keys do not
	// match the pattern.
	if len(lines) != 8 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[0], "WAITERS") ||
		lines[7] != "6 objects, 6 keys scanned" {
		t.Errorf("ls text:\n%v", r)
	}
	host, _ := os.Hostname()
	me := fmt.Sprintf("%s[%d]@%s", filepath.Base(os.Args[0]), os.Getpid(), host)
	if f := strings.Fields(lines[3]); len(f) != 9 || f[0] != "k:lock" || f[1] != "lock" || f[2] != "held" ||
		!strings.HasPrefix(f[3], want["k:lock"].holder) || f[5] != me || !watch.DurationRe.MatchString(f[6]) ||
		f[7] == "-" || f[8] != "0" {
		t.Errorf("ls text line of k:lock: %q (client %s)", lines[3], me)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "wombat"}, `unknown --kind "wombat"`},
		{[]string{"a", "b"}, "one PATTERN at most"},
		{[]string{"--max-keys", "0"}, "at least 1"},
		{[]string{"--interval", "1s"}, "--interval goes with --watch"},
	} {
		r := cli(t, 30*time.Second, append([]string{"ls", "--redis", url}, tc.args...)...)
		if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("ls %v: want exit 2 and %q:\n%v", tc.args, tc.want, r)
		}
	}
}

// TestLsMaxKeys: --max-keys cuts the scan and says so, in text and JSON.
func TestLsMaxKeys(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	for i := range 50 {
		if err := rdb.Set(ctx, fmt.Sprintf("m:%02d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	res := lsJSON(t, "--redis", url, "--max-keys", "10", "--scan-count", "5")
	if !res.Truncated || res.ScannedKeys != 10 || len(res.Objects) != 10 || res.MaxKeys != 10 {
		t.Errorf("cut at 10: %+v", res)
	}
	r := cli(t, 30*time.Second, "ls", "--redis", url, "--max-keys", "10")
	if r.code != 0 || !strings.Contains(r.stdout, "note: --max-keys 10 cut the scan") {
		t.Errorf("ls text cut: want the note:\n%v", r)
	}
	res = lsJSON(t, "--redis", url, "--max-keys", "50")
	if res.Truncated || len(res.Objects) != 50 {
		t.Errorf("50 keys, --max-keys 50: not cut: %+v", res.Truncated)
	}
	if r := cli(t, 30*time.Second, "ls", "--redis", url); strings.Contains(r.stdout, "note:") {
		t.Errorf("uncut listing with a note:\n%v", r)
	}
}

// TestLsCluster: ls scans every master of a cluster and folds derived
// keys there too; sharded waiters count.
func TestLsCluster(t *testing.T) {
	t.Parallel()
	c := redistest.StartCluster(t, 3)
	cc := c.Client(t)
	want := makeEveryKind(t, cc)
	url := "redis://" + strings.Join(c.Addrs(), ",")
	// A waiter on a plain lock, subscribed with SSUBSCRIBE.
	other, err := redisson.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = other.Lock("k:lock").Lock(wctx) }()
	w := want["k:lock"]
	w.waiters = 1
	want["k:lock"] = w
	var res ls.Result
	waitFor(t, 30*time.Second, "the lock's sharded waiter", func() (bool, string) {
		res = lsJSON(t, "--cluster", "--redis", url)
		for _, o := range res.Objects {
			if o.Name == "k:lock" {
				return o.Waiters == 1, fmt.Sprint(o.Waiters)
			}
		}
		return false, lsNames(res)
	})
	checkEveryKind(t, res, want)
	// Keys on several masters: the scan reached them all.
	masters := map[string]bool{}
	for _, o := range res.Objects {
		n, err := cc.MasterForKey(context.Background(), o.Name)
		if err != nil {
			t.Fatal(err)
		}
		masters[n.Options().Addr] = true
	}
	if len(masters) < 2 {
		t.Errorf("the objects are on %d master(s); the test wants several", len(masters))
	}
	// Cut at 3: the keys of held and waited-on objects are kept past the
	// limit, the others left out.
	if res := lsJSON(t, "--cluster", "--redis", url, "--max-keys", "3"); !res.Truncated || res.ScannedKeys-res.KeptPastLimit != 3 ||
		res.LeftOut != res.MatchedKeys-res.ScannedKeys || res.LeftOut == 0 {
		t.Errorf("cluster, --max-keys 3: %+v", res)
	}
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// frames splits watch output into its drawings.
func frames(out string) []string {
	return strings.Split(out, "\nEvery ")[1:]
}

// runWatch starts a --watch command; stop sends SIGINT and returns the
// result.
func runWatch(t *testing.T, args ...string) (out *lockedBuffer, stop func() result) {
	t.Helper()
	cmd, _, _ := cliCommand(t, args...)
	out = &lockedBuffer{}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return out, func() result {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("%v did not stop on SIGINT", args)
		}
		return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	}
}

// TestWatch: ls --watch and inspect --watch redraw, and mark what changed.
func TestWatch(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	if err := rdb.Set(ctx, "w:sem", "3", 0).Err(); err != nil {
		t.Fatal(err)
	}
	lsOut, stopLs := runWatch(t, "ls", "--watch", "--interval", "200ms", "--redis", url, "w:*")
	inOut, stopIn := runWatch(t, "inspect", "--watch", "--interval", "200ms", "--redis", url, "w:lock")
	waitFor(t, 30*time.Second, "two drawings of each", func() (bool, string) {
		return len(frames(lsOut.String())) >= 2 && len(frames(inOut.String())) >= 2, lsOut.String() + inOut.String()
	})
	hold, hc := holdLock(t, rdb, "w:lock")
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if err := client.Semaphore("w:sem").AddPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	const held = "* w:lock  lock        held"
	waitFor(t, 30*time.Second, "ls to mark the new lock and the new permits", func() (bool, string) {
		out := lsOut.String()
		return strings.Contains(out, held) && strings.Contains(out, "* w:sem   atomiclong  value 5"), out
	})
	waitFor(t, 30*time.Second, "inspect to mark the holder", func() (bool, string) {
		out := inOut.String()
		return strings.Contains(out, fmt.Sprintf("*     client %s  owner %d  holds 1", hc.ID(), hold.Owner())), out
	})
	// The drawing after a change marks nothing (the TTL counting down is
	// not a change).
	waitFor(t, 30*time.Second, "a drawing without changes", func() (bool, string) {
		fs := frames(lsOut.String())
		last := fs[len(fs)-1]
		return strings.Contains(last, "w:lock") && !strings.Contains(last, "\n* "), last
	})
	for _, stop := range []func() result{stopLs, stopIn} {
		if r := stop(); r.code != 0 {
			t.Errorf("watch after SIGINT: want exit 0:\n%v", r)
		}
	}
	// Frames are separate drawings with a header each.
	if fs := frames(lsOut.String()); !strings.HasPrefix(fs[0], "200ms: redisson ls w:*") {
		t.Errorf("ls --watch header: %q", fs[0])
	}
}
