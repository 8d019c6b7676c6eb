package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/redis/go-redis/v9"
)

func TestUnlockForce(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	holdLock(t, rdb, "stuck")

	ps := rdb.PSubscribe(ctx, "redisson_lock__channel:*")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	r := cli(t, 30*time.Second, "unlock", "--redis", url, "stuck")
	if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("unlock without --force: want exit 2 and an explanation:\n%v", r)
	}
	if n, _ := rdb.Exists(ctx, "stuck").Result(); n != 1 {
		t.Fatalf("unlock without --force deleted the lock")
	}

	r = cli(t, 30*time.Second, "unlock", "--force", "--redis", url, "stuck")
	if r.code != 0 || !strings.Contains(r.stdout, "force-unlocked") || !strings.Contains(r.stdout, "deleted") {
		t.Fatalf("unlock --force:\n%v", r)
	}
	if n, _ := rdb.Exists(ctx, "stuck").Result(); n != 0 {
		t.Fatalf("the lock is still there")
	}
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		msg, err := ps.Receive(mctx)
		if err != nil {
			t.Fatalf("no unlock message: %v", err)
		}
		if m, ok := msg.(*redis.Message); ok {
			if m.Channel != "redisson_lock__channel:{stuck}" || m.Payload != "0" {
				t.Fatalf("message %q on %q, want \"0\" on redisson_lock__channel:{stuck}", m.Payload, m.Channel)
			}
			break
		}
	}

	r = cli(t, 30*time.Second, "unlock", "--redis", url, "stuck", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "not locked") {
		t.Errorf("unlock --force of no lock:\n%v", r)
	}

	// Not a plain lock: left alone.
	if err := rdb.Set(ctx, "a-semaphore", "3", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r = cli(t, 30*time.Second, "unlock", "--force", "--redis", url, "a-semaphore")
	if r.code != cliflag.ExitError || !strings.Contains(r.stderr, "not a plain lock") {
		t.Errorf("unlock --force of a semaphore:\n%v", r)
	}
	if v, _ := rdb.Get(ctx, "a-semaphore").Result(); v != "3" {
		t.Errorf("the semaphore was changed: %q", v)
	}
	for name, want := range map[string]string{
		"a-semaphore": `redisson unlock: "a-semaphore" holds an integer string (a semaphore or count-down latch nobody waits on, or an atomic long), not a plain lock: not force-unlocking it` + "\n",
		"a-text":      `redisson unlock: "a-text" holds a Redis string that is not an integer, not a plain lock: not force-unlocking it` + "\n",
		"a-list":      `redisson unlock: "a-list" holds a Redis list, not a plain lock: not force-unlocking it` + "\n",
	} {
		switch name {
		case "a-text":
			mustOK(t, rdb.Set(ctx, name, "hello", 0).Err())
		case "a-list":
			mustOK(t, rdb.RPush(ctx, name, "x").Err())
		}
		if r := cli(t, 30*time.Second, "unlock", "--force", "--redis", url, name); r.code != cliflag.ExitError || r.stderr != want {
			t.Errorf("unlock --force %s: want exit 1 and %q:\n%v", name, want, r)
		}
		if n, _ := rdb.Exists(ctx, name).Result(); n != 1 {
			t.Errorf("unlock --force %s deleted it", name)
		}
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
