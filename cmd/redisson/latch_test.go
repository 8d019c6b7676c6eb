package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/keys"
)

// TestLatchAwait: await returns when other processes count the latch down
// to zero, and not before.
func TestLatchAwait(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	if r := cli(t, 30*time.Second, "latch", "--redis", url, "ready", "set", "2"); r.code != 0 {
		t.Fatalf("set:\n%v", r)
	}
	cmd, stdout, stderr := cliCommand(t, "latch", "--redis", url, "ready", "await", "--wait", "60s")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "await to subscribe", func() (bool, string) {
		n := numSub(t, rdb, keys.LatchChannel("ready"))
		return n > 0, fmt.Sprint(n)
	})
	if r := cli(t, 30*time.Second, "latch", "--redis", url, "ready", "down"); r.code != 0 {
		t.Fatalf("down:\n%v", r)
	}
	if r := cli(t, 30*time.Second, "latch", "--redis", url, "ready", "count"); r.code != 0 || r.stdout != "1\n" {
		t.Fatalf("count after one down: want 1:\n%v", r)
	}
	if cmd.ProcessState != nil {
		t.Fatal("await ended before the count reached zero")
	}
	if r := cli(t, 30*time.Second, "latch", "--redis", url, "ready", "down"); r.code != 0 {
		t.Fatalf("down:\n%v", r)
	}
	if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != 0 {
		t.Fatalf("await after the last down:\n%v", r)
	}
	if n, _ := rdb.Exists(ctx, "ready").Result(); n != 0 {
		t.Errorf("the latch is still there")
	}
}

func TestLatchCodes(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	if err := rdb.Set(ctx, "armed", "3", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		want   int
		stdout string
		stderr string
	}{
		{[]string{"never", "await"}, 0, "", ""},
		{[]string{"never", "await", "--wait", "100ms"}, 0, "", ""},
		{[]string{"never", "count"}, 0, "0\n", ""},
		{[]string{"never", "down"}, 0, "", ""},
		{[]string{"armed", "await", "--wait", "200ms"}, cliflag.ExitNotAcq, "", "did not reach zero within 200ms"},
		{[]string{"armed", "set", "5"}, cliflag.ExitError, "", "already set (count 3)"},
		{[]string{"armed", "count"}, 0, "3\n", ""},
		{[]string{"armed"}, cliflag.ExitUsage, "", "no action"},
		{[]string{"armed", "set"}, cliflag.ExitUsage, "", "set needs the count"},
		{[]string{"armed", "set", "0"}, cliflag.ExitUsage, "", "at least 1"},
		{[]string{"armed", "set", "x"}, cliflag.ExitUsage, "", "at least 1"},
		{[]string{"armed", "up"}, cliflag.ExitUsage, "", "unknown action"},
		{[]string{"armed", "down", "--wait", "1s"}, cliflag.ExitUsage, "", "--wait goes with await"},
		{[]string{"armed", "down", "extra"}, cliflag.ExitUsage, "", "unexpected arguments"},
		{[]string{"", "count"}, cliflag.ExitUsage, "", "name is required"},
	} {
		r := cli(t, 30*time.Second, append([]string{"latch", "--redis", url}, tc.args...)...)
		if r.code != tc.want || r.stdout != tc.stdout || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("latch %v: want exit %d, stdout %q, stderr with %q:\n%v", tc.args, tc.want, tc.stdout, tc.stderr, r)
		}
	}
	if v, _ := rdb.Get(ctx, "armed").Result(); v != "3" {
		t.Errorf("the armed latch changed to %q", v)
	}
	if n, _ := rdb.Exists(ctx, "never").Result(); n != 0 {
		t.Errorf("a latch was created by await/count/down")
	}
	if r := cli(t, 30*time.Second, "latch", "--redis", url, "--conn-timeout", "5s", "fresh", "set", "1"); r.code != 0 {
		t.Errorf("set with --conn-timeout:\n%v", r)
	}
	if v, _ := rdb.Get(ctx, "fresh").Result(); v != "1" {
		t.Errorf("set 1 stored %q", v)
	}
}
