package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/semaphore"
)

// TestInspectHeldByRun: inspect on a fair lock and a read-write lock held by
// real run processes: the fair queue with each waiter's stale time, the
// read-write lock's mode, readers with hold counts and per-hold TTLs, writer.
func TestInspectHeldByRun(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()

	release := startHolder(t, "run", "--redis", url, "--lock", "fair", "--fair")
	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--lock", "fair", "--fair", "--wait", "60s", "--", "true")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the waiter in the fair queue", func() (bool, string) {
		n, err := rdb.ZCard(ctx, keys.FairLockTimeout("fair")).Result()
		return n == 1, fmt.Sprint(n, err)
	})
	rep := inspectJSON(t, "--redis", url, "fair")
	if rep.Kind != "fair lock" || len(rep.Holders) != 1 || rep.Holders[0].Holds != 1 || len(rep.Queue) != 1 {
		t.Fatalf("fair lock: %+v", rep)
	}
	if q := rep.Queue[0]; q.Stale || q.StaleInMs == nil || *q.StaleInMs <= 0 || *q.StaleInMs > 91000 || q.TimeoutMs == nil {
		// Redisson's stale time of the first waiter: the lock's TTL (30 s
		// watchdog) plus its wait.
		t.Errorf("fair waiter with --wait 60s: %+v, stale in %v ms", q, ptrVal(q.StaleInMs))
	}
	if r := cli(t, 30*time.Second, "inspect", "--redis", url, "fair"); r.code != 0 || !strings.Contains(r.stdout, "stale in ") || !strings.Contains(r.stdout, "re-queued at the tail") {
		t.Errorf("inspect fair:\n%v", r)
	}
	if r := release(); r.code != 0 {
		t.Fatalf("fair holder:\n%v", r)
	}
	if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != 0 {
		t.Fatalf("fair waiter:\n%v", r)
	}

	r1 := startHolder(t, "run", "--redis", url, "--lock", "rw", "--read")
	r2 := startHolder(t, "run", "--redis", url, "--lock", "rw", "--read", "--lease", "50s")
	rep = inspectJSON(t, "--redis", url, "rw")
	if rep.Kind != "read-write lock" || rep.Mode == nil || *rep.Mode != "read" || len(rep.Holders) != 2 {
		t.Fatalf("read-locked: %+v", rep)
	}
	for _, h := range rep.Holders {
		if h.Mode != "read" || h.Holds != 1 || len(h.ReadTTLsms) != 1 || h.ReadTTLsms[0] <= 0 {
			t.Errorf("reader: %+v", h)
		}
	}
	for _, rel := range []func() result{r1, r2} {
		if r := rel(); r.code != 0 {
			t.Fatalf("reader:\n%v", r)
		}
	}
	w := startHolder(t, "run", "--redis", url, "--lock", "rw", "--write")
	rep = inspectJSON(t, "--redis", url, "rw")
	if rep.Mode == nil || *rep.Mode != "write" || len(rep.Holders) != 1 || rep.Holders[0].Mode != "write" ||
		!strings.HasSuffix(rep.Holders[0].Field, ":write") || rep.Holders[0].ReadTTLsms != nil {
		t.Errorf("write-locked: %+v", rep)
	}
	if r := w(); r.code != 0 {
		t.Fatalf("writer:\n%v", r)
	}
}

func ptrVal(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestInspectExpirableAndRateLimiter: inspect on state made by the library:
// a permit-expirable semaphore's permits with each one's expiry (in ms and
// at), an expired one flagged; a rate limiter's config and window state,
// OVERALL and PER_CLIENT (one window per client), in JSON and text.
func TestInspectExpirableAndRateLimiter(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	c1, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()

	// Permit-expirable semaphore: 3 permits, one taken for a minute, one
	// without lease, one with a lease that runs out.
	pes := c1.PermitExpirableSemaphore("pes")
	if ok, err := pes.TrySetPermits(ctx, 3); err != nil || !ok {
		t.Fatalf("try set permits: %v %v", ok, err)
	}
	long, err := pes.Acquire(ctx, semaphore.WithLease(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	forever, err := pes.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, err := pes.Acquire(ctx, semaphore.WithLease(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the short lease to pass", func() (bool, string) {
		s, err := rdb.ZScore(ctx, "{pes}:timeout", string(mustHex(t, short))).Result()
		return err == nil && int64(s) < time.Now().UnixMilli(), fmt.Sprint(s, err)
	})
	rep := inspectJSON(t, "--redis", url, "pes")
	if rep.Kind != "permit-expirable semaphore" || rep.Value == nil || *rep.Value != 0 || len(rep.Permits) != 3 {
		t.Fatalf("PES: %+v", rep)
	}
	byID := map[string]objinfo.Permit{}
	for _, p := range rep.Permits {
		byID[p.ID] = p
	}
	if p := byID[long]; p.ExpiresMs == nil || p.ExpiresInMs == nil || *p.ExpiresInMs <= 0 || *p.ExpiresInMs > 60000 || p.Expired ||
		*p.ExpiresMs-*p.ExpiresInMs > time.Now().UnixMilli() {
		t.Errorf("permit with a minute's lease: %+v", p)
	}
	if p := byID[forever]; p.ExpiresMs != nil || p.ExpiresInMs != nil || p.Expired {
		t.Errorf("permit without lease: %+v", p)
	}
	if p := byID[short]; p.ExpiresInMs == nil || *p.ExpiresInMs >= 0 || !p.Expired {
		t.Errorf("expired permit: %+v", p)
	}
	if rep.Permits[0].ID != short || rep.Permits[2].ID != forever {
		t.Errorf("permits not soonest first: %+v", rep.Permits)
	}
	r := cli(t, 30*time.Second, "inspect", "--redis", url, "pes")
	for _, want := range []string{"  available    0\n", "3 permits, 1 of them expired", long + "  expires in ", forever + "  no lease\n",
		short + "  expired "} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("inspect pes: want %q:\n%v", want, r)
		}
	}
	if !regexp.MustCompile(`expires in [0-9.]+s, at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n`).MatchString(r.stdout) {
		t.Errorf("inspect pes: no absolute expiry:\n%v", r)
	}

	// OVERALL: 10 per minute, 3 then 4 taken (by two clients: one window).
	rl := c1.RateLimiter("rl")
	if ok, err := rl.TrySetRate(ctx, ratelimit.Overall, 10, time.Minute); err != nil || !ok {
		t.Fatalf("try set rate: %v %v", ok, err)
	}
	rep = inspectJSON(t, "--redis", url, "rl")
	if rep.Kind != "rate limiter" || rep.RateLimiter == nil || len(rep.RateLimiter.Windows) != 1 || len(rep.Holders) != 0 || len(rep.Channels) != 0 {
		t.Fatalf("rate limiter before use: %+v", rep)
	}
	if w := rep.RateLimiter.Windows[0]; w.Value != nil || w.Available != 10 || w.Used != 0 || w.ClientID != nil || w.RefillInMs != nil {
		t.Errorf("unused window: %+v", w)
	}
	for _, acq := range []struct {
		c *redisson.Client
		n int64
	}{{c1, 3}, {c2, 4}} {
		if ok, err := acq.c.RateLimiter("rl").TryAcquire(ctx, acq.n); err != nil || !ok {
			t.Fatalf("try acquire %d: %v %v", acq.n, ok, err)
		}
	}
	rep = inspectJSON(t, "--redis", url, "rl")
	cfg := rep.RateLimiter
	if cfg.Rate != 10 || cfg.IntervalMs != 60000 || cfg.Type != "OVERALL" || cfg.KeepAliveMs != 0 || len(cfg.Windows) != 1 {
		t.Fatalf("OVERALL config: %+v", cfg)
	}
	w := cfg.Windows[0]
	if w.ClientID != nil || w.ValueKey != "{rl}:value" || w.PermitsKey != "{rl}:permits" || w.Value == nil || *w.Value != 3 ||
		w.Available != 3 || w.Used != 7 || w.Grants != 2 || w.RefillInMs == nil || *w.RefillInMs <= 0 || *w.RefillInMs > 60000 {
		t.Errorf("OVERALL window: %+v", w)
	}
	if len(rep.Keys) != 3 {
		t.Errorf("OVERALL keys: %+v", rep.Keys)
	}
	if avail, err := rl.AvailablePermits(ctx); err != nil || avail != w.Available {
		t.Errorf("available %d, library says %d (%v)", w.Available, avail, err)
	}
	r = cli(t, 30*time.Second, "inspect", "--redis", url, "rl")
	for _, want := range []string{"  kind         rate limiter (Redis hash)\n", "  rate         10 permits per 1m0s (OVERALL)\n",
		"    shared window  available 3, used 7 in 2 grant(s), oldest leaves in "} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("inspect rl: want %q:\n%v", want, r)
		}
	}
	if strings.Contains(r.stdout, "holders") || strings.Contains(r.stdout, "waiters") {
		t.Errorf("inspect rl shows lock lines:\n%v", r)
	}

	// PER_CLIENT with keep-alive: each client has its own window.
	pc := c1.RateLimiter("pc")
	if ok, err := pc.TrySetRate(ctx, ratelimit.PerClient, 5, time.Second, ratelimit.WithKeepAlive(time.Hour)); err != nil || !ok {
		t.Fatalf("try set rate: %v %v", ok, err)
	}
	if ok, err := pc.TryAcquire(ctx, 2); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if ok, err := c2.RateLimiter("pc").TryAcquire(ctx, 5); err != nil || !ok {
		t.Fatal(ok, err)
	}
	rep = inspectJSON(t, "--redis", url, "pc")
	cfg = rep.RateLimiter
	if cfg == nil || cfg.Type != "PER_CLIENT" || cfg.Rate != 5 || cfg.IntervalMs != 1000 || cfg.KeepAliveMs != 3600000 || len(cfg.Windows) != 2 {
		t.Fatalf("PER_CLIENT: %+v", rep)
	}
	want := map[string]int64{c1.ID(): 3, c2.ID(): 0}
	for _, w := range cfg.Windows {
		if w.ClientID == nil || w.Value == nil || *w.Value != want[*w.ClientID] || w.ValueKey != "{pc}:value:"+*w.ClientID ||
			w.ValueTTLms <= 0 || w.ValueTTLms > 3600000 {
			t.Errorf("PER_CLIENT window: %+v", w)
		}
	}
	// Once the grants leave the 1 s window, their permits count as available.
	waitFor(t, 10*time.Second, "the grants to leave the window", func() (bool, string) {
		rep := inspectJSON(t, "--redis", url, "pc")
		ok := true
		for _, w := range rep.RateLimiter.Windows {
			ok = ok && w.Available == 5 && w.Used == 0 && w.Grants == 0 && w.RefillInMs == nil
		}
		return ok, fmt.Sprintf("%+v", rep.RateLimiter.Windows)
	})
	r = cli(t, 30*time.Second, "inspect", "--redis", url, "pc")
	for _, want := range []string{"  rate         5 permits per 1s (PER_CLIENT)\n", "  keep-alive   1h0m0s after the last use\n",
		"  windows      2 clients\n", "    client " + c1.ID() + "  available 5, used 0 in 0 grant(s)\n"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("inspect pc: want %q:\n%v", want, r)
		}
	}
	// unlock --force refuses it: its DEL would drop the limiter's config.
	if r := cli(t, 30*time.Second, "unlock", "--force", "--redis", url, "rl"); r.code != cliflag.ExitError ||
		!strings.Contains(r.stderr, `"rl" holds a rate limiter, not a plain lock`) {
		t.Errorf("unlock --force of a rate limiter:\n%v", r)
	}
	if n, _ := rdb.Exists(ctx, "rl").Result(); n != 1 {
		t.Errorf("unlock --force deleted the rate limiter")
	}
}

// mustHex turns a permit id (32 hex chars) into its stored raw bytes.
func mustHex(t *testing.T, id string) []byte {
	t.Helper()
	b, err := hex.DecodeString(id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInspectRateLimiterCluster: a PER_CLIENT rate limiter's windows are
// found by SCAN on the master owning the name's slot.
func TestInspectRateLimiterCluster(t *testing.T) {
	t.Parallel()
	c := redistest.StartCluster(t, 3)
	cc := c.Client(t)
	client, err := redisson.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	rl := client.RateLimiter("crl")
	if ok, err := rl.TrySetRate(ctx, ratelimit.PerClient, 7, time.Minute); err != nil || !ok {
		t.Fatalf("try set rate: %v %v", ok, err)
	}
	if ok, err := rl.TryAcquire(ctx, 2); err != nil || !ok {
		t.Fatal(ok, err)
	}
	url := "redis://" + strings.Join(c.Addrs(), ",")
	rep := inspectJSON(t, "--cluster", "--redis", url, "crl")
	if rep.Kind != "rate limiter" || rep.RateLimiter == nil || rep.RateLimiter.Type != "PER_CLIENT" || len(rep.RateLimiter.Windows) != 1 {
		t.Fatalf("cluster rate limiter: %+v", rep)
	}
	if w := rep.RateLimiter.Windows[0]; w.ClientID == nil || *w.ClientID != client.ID() || w.Value == nil || *w.Value != 5 ||
		w.Available != 5 || w.Used != 2 || w.Grants != 1 {
		t.Errorf("cluster window: %+v", w)
	}
}
