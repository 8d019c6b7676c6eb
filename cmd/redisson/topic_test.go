package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/redis/go-redis/v9"
)

// startSubscribe starts "redisson topic ... subscribe" and waits until Redis
// counts its subscription with count (NUMSUB, SHARDNUMSUB or NUMPAT).
func startSubscribe(t *testing.T, count func() int64, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, time.Time) {
	t.Helper()
	cmd, stdout, stderr := cliCommand(t, append([]string{"topic"}, args...)...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A no-op once the test has waited for it.
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	waitFor(t, 30*time.Second, "subscribe to register", func() (bool, string) {
		n := count()
		return n > 0, fmt.Sprintf("%d subscribers", n)
	})
	return cmd, stdout, stderr, start
}

// TestTopicPublish: publish sends the codec's bytes, as a raw subscriber
// sees them, and prints the receiver count.
func TestTopicPublish(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	ps := rdb.Subscribe(ctx, "news")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"publish", `{"a":1}`}, `{"@class":"java.util.HashMap","a":1}`},
		{[]string{"publish", `"hello"`}, `"hello"`},
		{[]string{"publish", "--codec", "typedjson", `{"a":[1,"x"]}`}, `{"a":[1,"x"]}`},
		{[]string{"publish", "--codec", "string", "héllo world"}, "héllo world"},
		{[]string{"publish", "--codec", "long", "-5"}, "-5"},
		{[]string{"publish", "--codec", "msgpack", `"hi"`}, "\xa2hi"},
		{[]string{"publish", "--codec", "bytes", "\x01\xff"}, "\x01\xff"},
	} {
		r := cli(t, 30*time.Second, append([]string{"topic", "--redis", url, "news"}, tc.args...)...)
		if r.code != 0 || r.stdout != "1\n" || r.stderr != "" {
			t.Fatalf("%q: want exit 0 and receiver count 1:\n%v", tc.args, r)
		}
		m, err := ps.ReceiveTimeout(ctx, 10*time.Second)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if msg, ok := m.(*redis.Message); !ok || msg.Channel != "news" || msg.Payload != tc.want {
			t.Errorf("%q: raw subscriber got %#v, want payload %q", tc.args, m, tc.want)
		}
	}
	if r := cli(t, 30*time.Second, "topic", "--redis", url, "nobody", "publish", "1"); r.code != 0 || r.stdout != "0\n" {
		t.Errorf("publish without subscribers: want 0:\n%v", r)
	}
}

// TestTopicSubscribe: subscribe --count 2 prints the two messages published
// after it subscribed, decoded, one line each, and exits 0.
func TestTopicSubscribe(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	cmd, stdout, stderr, start := startSubscribe(t, func() int64 { return numSub(t, rdb, "news") },
		"--redis", url, "news", "subscribe", "--count", "2", "--wait", "60s")
	if r := cli(t, 30*time.Second, "topic", "--redis", url, "news", "publish", `{"a":[1,"x"]}`); r.code != 0 || r.stdout != "1\n" {
		t.Fatalf("publish:\n%v", r)
	}
	// A Java service's message: JsonJacksonCodec's bytes, sent raw.
	if err := rdb.Publish(ctx, "news", `["java.lang.Long",42]`).Err(); err != nil {
		t.Fatal(err)
	}
	r := wait(t, cmd, stdout, stderr, start, 30*time.Second)
	if want := "{\"a\":[1,\"x\"]}\n42\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("subscribe --count 2: want exit 0 and %q:\n%v", want, r)
	}
}

// TestTopicSubscribeCodecs: --codec decodes; a payload it cannot decode is
// an "# error:" line that counts as a message.
func TestTopicSubscribeCodecs(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	cmd, stdout, stderr, start := startSubscribe(t, func() int64 { return numSub(t, rdb, "n") },
		"--redis", url, "--codec", "long", "n", "subscribe", "--count", "2")
	for _, p := range []string{"17", "x"} {
		if err := rdb.Publish(ctx, "n", p).Err(); err != nil {
			t.Fatal(err)
		}
	}
	r := wait(t, cmd, stdout, stderr, start, 30*time.Second)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 || lines[0] != "17" || !strings.HasPrefix(lines[1], "# error: ") ||
		!strings.Contains(lines[1], `topic "n"`) {
		t.Fatalf("want 17, then an # error: line:\n%v", r)
	}
}

// TestTopicPattern: --pattern PSUBSCRIBEs and prints each message's channel.
func TestTopicPattern(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	cmd, stdout, stderr, start := startSubscribe(t, func() int64 {
		n, err := rdb.PubSubNumPat(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}, "--redis", url, "--codec", "string", "--pattern", "ev.*", "subscribe", "--count", "2")
	for _, c := range []string{"ev.a", "other", "ev.b"} {
		if err := rdb.Publish(ctx, c, "to "+c).Err(); err != nil {
			t.Fatal(err)
		}
	}
	r := wait(t, cmd, stdout, stderr, start, 30*time.Second)
	if want := "ev.a\t\"to ev.a\"\nev.b\t\"to ev.b\"\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("subscribe --pattern: want %q:\n%v", want, r)
	}
}

// TestTopicSharded: --sharded publishes with SPUBLISH (a raw SSUBSCRIBE
// gets it) and subscribes with SSUBSCRIBE (SHARDNUMSUB counts it, and
// SPUBLISH reaches it).
func TestTopicSharded(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	ps := rdb.SSubscribe(ctx, "shard")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	r := cli(t, 30*time.Second, "topic", "--redis", url, "--sharded", "--codec", "string", "shard", "publish", "hi")
	if r.code != 0 || r.stdout != "1\n" {
		t.Fatalf("publish --sharded:\n%v", r)
	}
	m, err := ps.ReceiveTimeout(ctx, 10*time.Second)
	if msg, ok := m.(*redis.Message); err != nil || !ok || msg.Payload != "hi" {
		t.Fatalf("raw SSUBSCRIBE got %#v, %v", m, err)
	}
	if n := numSub(t, rdb, "shard"); n != 0 {
		t.Errorf("a plain subscriber of %q: %d", "shard", n)
	}

	cmd, stdout, stderr, start := startSubscribe(t, func() int64 {
		m, err := rdb.PubSubShardNumSub(ctx, "s2").Result()
		if err != nil {
			t.Fatal(err)
		}
		return m["s2"]
	}, "--redis", url, "--sharded", "--codec", "string", "s2", "subscribe", "--count", "1")
	if n, err := rdb.SPublish(ctx, "s2", "sharded hello").Result(); err != nil || n != 1 {
		t.Fatalf("SPUBLISH: %d receivers, %v", n, err)
	}
	r = wait(t, cmd, stdout, stderr, start, 30*time.Second)
	if r.code != 0 || r.stdout != "\"sharded hello\"\n" {
		t.Fatalf("subscribe --sharded:\n%v", r)
	}
}

// TestTopicReliable: --reliable publishes to the stream; a subscriber gets
// what is still in it.
func TestTopicReliable(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	cmd, stdout, stderr, start := startSubscribe(t, func() int64 {
		n, err := rdb.ZCard(ctx, "{jobs}:timeout").Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}, "--redis", url, "--reliable", "jobs", "subscribe", "--count", "2")
	for _, m := range []string{`{"id":1}`, `"two"`} {
		if r := cli(t, 30*time.Second, "topic", "--redis", url, "--reliable", "jobs", "publish", m); r.code != 0 || r.stdout != "1\n" {
			t.Fatalf("publish --reliable %s: want 1 subscriber:\n%v", m, r)
		}
	}
	r := wait(t, cmd, stdout, stderr, start, 30*time.Second)
	if want := "{\"id\":1}\n\"two\"\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("subscribe --reliable: want %q:\n%v", want, r)
	}
}

// TestTopicEnd: --wait without a message exits 75; SIGTERM and SIGINT exit 0.
func TestTopicEnd(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	r := cli(t, 30*time.Second, "topic", "--redis", url, "quiet", "subscribe", "--wait", "200ms")
	if r.code != cliflag.ExitNotAcq || r.stdout != "" || !strings.Contains(r.stderr, "no message within 200ms") {
		t.Errorf("--wait without a message: want exit 75:\n%v", r)
	}
	r = cli(t, 30*time.Second, "topic", "--redis", url, "quiet", "subscribe", "--wait", "200ms", "--count", "3")
	if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, "0 of 3 messages within 200ms") {
		t.Errorf("--wait with --count: want exit 75:\n%v", r)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd, stdout, stderr, start := startSubscribe(t, func() int64 { return numSub(t, rdb, "quiet") },
			"--redis", url, "quiet", "subscribe")
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != 0 || r.stderr != "" {
			t.Errorf("%v: want exit 0:\n%v", sig, r)
		}
		waitFor(t, 30*time.Second, "the subscription to go", func() (bool, string) {
			n := numSub(t, rdb, "quiet")
			return n == 0, fmt.Sprint(n)
		})
	}
}

// TestTopicUsage: usage errors are exit 2 before any connection (the
// address is unreachable).
func TestTopicUsage(t *testing.T) {
	t.Parallel()
	const dead = "redis://127.0.0.1:1"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "a topic name is required"},
		{[]string{""}, "a topic name is required"},
		{[]string{"t"}, "no action given"},
		{[]string{"t", "shout"}, `unknown action "shout"`},
		{[]string{"t", "publish"}, "publish needs 1 argument"},
		{[]string{"t", "publish", "1", "2"}, "unexpected arguments"},
		{[]string{"t", "subscribe", "x"}, "unexpected arguments"},
		{[]string{"t", "publish", "hello"}, "publish: --codec json wants MSG as JSON, got \"hello\""},
		{[]string{"t", "publish", "--codec", "long", "1.5"}, "publish: --codec long wants a whole number"},
		{[]string{"t", "publish", "--codec", "yaml", "1"}, `unknown --codec "yaml"`},
		{[]string{"t.*", "publish", "--pattern", "1"}, "--pattern goes with subscribe"},
		{[]string{"t", "subscribe", "--pattern", "--sharded"}, "--pattern and --sharded: choose one"},
		{[]string{"t", "subscribe", "--sharded", "--reliable"}, "--reliable and --sharded: choose one"},
		{[]string{"t", "publish", "1", "--count", "1"}, "--count and --wait go with subscribe"},
		{[]string{"t", "subscribe", "--count", "0"}, "--count must be at least 1"},
		{[]string{"t", "subscribe", "--wait", "0s"}, "--wait must be positive"},
		{[]string{"t", "subscribe", "--bogus"}, "flag provided but not defined"},
	} {
		r := cli(t, 30*time.Second, append([]string{"topic", "--redis", dead}, tc.args...)...)
		checkUsage(t, fmt.Sprintf("topic %q", tc.args), r, "redisson topic: "+tc.want)
	}
	if r := cli(t, 30*time.Second, "topic", "--redis", dead, "t", "publish", "1"); r.code != cliflag.ExitError ||
		!strings.Contains(r.stderr, "cannot reach Redis") {
		t.Errorf("unreachable Redis: want exit 1:\n%v", r)
	}
	r := cli(t, 30*time.Second, "topic", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--sharded") || !strings.Contains(r.stdout, "--timeout") ||
		!strings.Contains(r.stdout, "Examples:") {
		t.Errorf("topic --help:\n%v", r)
	}
}
