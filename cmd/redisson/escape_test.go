package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
)

// TestNamesEscaped: names with control characters reach the terminal
// escaped, in ls and inspect: no escape sequence, no bell, and a newline
// in a name forges no row of the listing.
func TestNamesEscaped(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	names := map[string]string{ // name -> as printed
		"orders:99 lock held spoofed-row\nx": `"orders:99 lock held spoofed-row\nx"`,
		"t:\x1b]0;owned\a":                   `"t:\x1b]0;owned\a"`,
		"c:\x1b[31mred\x1b[0m":               `"c:\x1b[31mred\x1b[0m"`,
		"plain:name":                         "plain:name",
	}
	for n := range names {
		if _, err := client.Lock(n).Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r := cli(t, 30*time.Second, "ls", "--redis", url)
	if r.code != 0 {
		t.Fatalf("ls: %v", r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	// The header, one row per lock, the count.
	if len(lines) != len(names)+2 || !strings.HasPrefix(lines[len(lines)-1], "4 objects, ") {
		t.Errorf("ls: %d lines, want %d:\n%s", len(lines), len(names)+2, r.stdout)
	}
	for n, shown := range names {
		if !strings.Contains(r.stdout, "\n"+shown+"  ") {
			t.Errorf("ls does not show %q as %s:\n%s", n, shown, r.stdout)
		}
		ri := cli(t, 30*time.Second, "inspect", "--redis", url, n)
		if ri.code != 0 || !strings.HasPrefix(ri.stdout, shown+"\n") || strings.ContainsAny(ri.stdout, "\x1b\a") {
			t.Errorf("inspect %q: want it shown as %s:\n%v", n, shown, ri)
		}
	}
	if strings.ContainsAny(r.stdout, "\x1b\a") {
		t.Errorf("ls printed a control character:\n%q", r.stdout)
	}
}
