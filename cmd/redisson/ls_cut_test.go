package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/registry"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/semaphore"
)

// TestLsCutKeepsWhatMatters: with 20 000 other keys and --max-keys 100,
// every held, waited-on and pinned object is listed, and the note says how
// many keys were left out and how to see them.
func TestLsCutKeepsWhatMatters(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	const others = 20_000
	pipe := rdb.Pipeline()
	for i := range others {
		pipe.Set(ctx, fmt.Sprintf("other:%05d", i), i, 0)
		if i%1000 == 999 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	known, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer known.Close()
	anon, err := redisson.New(rdb, func(o *redisson.Options) { o.Registration.Disabled = true })
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// Held by a registered client, nobody waiting: its record says so.
	_, err = known.Lock("orders:42").Lock(ctx, rlock.WithLease(10*time.Minute))
	must(err)
	// A fair lock with a waiter queued: its queue key.
	_, err = anon.FairLock("jobs:nightly").Lock(ctx, fairlock.WithLease(10*time.Minute))
	must(err)
	go func() { _, _ = known.FairLock("jobs:nightly").Lock(wctx) }()
	// A semaphore with a waiter: its channel.
	_, err = anon.Semaphore("encoders").TrySetPermits(ctx, 0)
	must(err)
	go func() { _ = known.Semaphore("encoders").Acquire(wctx, 1) }()
	// A permit-expirable semaphore with a permit acquired: its timeout zset.
	pes := anon.PermitExpirableSemaphore("licenses")
	_, err = pes.TrySetPermits(ctx, 2)
	must(err)
	_, err = pes.Acquire(ctx, semaphore.WithLease(10*time.Minute))
	must(err)
	// Held by a client without a record: read-held (its read timeout key),
	// or with a waiter that keeps no record (a subscribed connection).
	_, err = anon.ReadWriteLock("reports").ReadLock().Lock(ctx)
	must(err)
	_, err = anon.Lock("java:held").Lock(ctx, rlock.WithLease(10*time.Minute))
	must(err)
	subscribe(t, rdb, keys.LockChannel("java:held"))
	// Pinned by name and by pattern.
	_, err = anon.Lock("orders:43").Lock(ctx, rlock.WithLease(10*time.Minute))
	must(err)
	must(rdb.Set(ctx, "keep:a", "x", 0).Err())
	must(rdb.Set(ctx, "keep:b", "y", 0).Err())

	waitFor(t, 30*time.Second, "the waiters", func() (bool, string) {
		q := rdb.LLen(ctx, keys.FairLockQueue("jobs:nightly")).Val()
		s := numSub(t, rdb, keys.SemaphoreChannel("encoders"))
		return q == 1 && s == 1, fmt.Sprintf("queue %d, semaphore subscribers %d", q, s)
	})
	// The record is written at once, then after each change of the holds
	// (at most one write per 250 ms) and every refresh period (waiters):
	// its first write may list neither the hold nor the waiters, and this
	// test is about the listing of a record that does.
	waitFor(t, 30*time.Second, "orders:42 and the waiters in its client's record", func() (bool, string) {
		data, _ := rdb.Get(ctx, registry.KeyPrefix+known.ID()).Bytes()
		rec, err := registry.Parse(data)
		if err != nil {
			return false, err.Error()
		}
		held := false
		for _, h := range rec.Holds {
			held = held || h.Key == "orders:42"
		}
		return held && rec.Waiters[keys.SemaphoreChannel("encoders")] == 1, string(data)
	})
	waitFor(t, 30*time.Second, "orders:42's holder known", func() (bool, string) {
		res := lsJSON(t, "--redis", url, "orders:42")
		return len(res.Objects) == 1 && len(res.Objects[0].Holders) == 1 && res.Objects[0].Holders[0].Client != nil, lsNames(res)
	})

	args := []string{"--redis", url, "--max-keys", "100", "--pin", "orders:43", "--pin", "keep:*"}
	res := lsJSON(t, args...)
	got := map[string]ls.Object{}
	for _, o := range res.Objects {
		got[o.Name] = o
	}
	for name, kind := range map[string]string{
		"orders:42": "lock", "jobs:nightly": "fair lock", "encoders": "semaphore", "licenses": "permit-expirable semaphore",
		"reports": "read-write lock", "java:held": "lock", "orders:43": "lock", "keep:a": "bucket", "keep:b": "bucket",
	} {
		if o, ok := got[name]; !ok || o.Kind != kind {
			t.Errorf("%s (%s) cut or misread: %+v", name, kind, o)
		}
	}
	if !res.Truncated || res.LeftOut < others-100 || res.ScannedKeys-res.KeptPastLimit > 100 ||
		res.MatchedKeys != res.ScannedKeys+res.LeftOut {
		t.Errorf("the cut: matched %d, read %d (%d past the limit), left out %d", res.MatchedKeys, res.ScannedKeys,
			res.KeptPastLimit, res.LeftOut)
	}
	if o := got["encoders"]; o.Waiting != 1 || o.WaiterConnections != 0 {
		t.Errorf("encoders: %d goroutines, %d connections waiting; want 1 and 0", o.Waiting, o.WaiterConnections)
	}
	if o := got["java:held"]; o.Waiting != 0 || o.WaiterConnections != 1 {
		t.Errorf("java:held: %d goroutines, %d connections waiting; want 0 and 1", o.Waiting, o.WaiterConnections)
	}

	r := cli(t, 60*time.Second, append([]string{"ls"}, args...)...)
	note := fmt.Sprintf("note: --max-keys 100 cut the scan: %d of %d keys matching \"*\" left out;", res.LeftOut, res.MatchedKeys)
	if r.code != 0 || !strings.Contains(r.stdout, note) || !strings.Contains(r.stdout, "raise --max-keys") {
		t.Errorf("ls text: want %q:\n%v", note, r)
	}
	if line := lineWith(r.stdout, "java:held "); !strings.HasSuffix(strings.TrimSpace(line), "1 conn") {
		t.Errorf("java:held row: %q", line)
	}
}

// TestGlob: --pin matches as Redis' MATCH does.
func TestGlob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "abc", true},
		{"orders:*", "orders:42", true},
		{"orders:*", "order:42", false},
		{"o?ders:4[0-3]", "orders:42", true},
		{"o?ders:4[^0-3]", "orders:42", false},
		{"a[bc]d", "acd", true},
		{"a\\*", "a*", true},
		{"a\\*", "ab", false},
		{"*:timeout", "{x}:timeout", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"[z-a]", "m", true},
	} {
		if got := ls.Glob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}
