package redistest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The helpers below serve the tests of every package that talks to Redis.
// They need nothing but a go-redis client: the library's own Client comes
// from package redissontest, which wraps this one (redistest must not import
// the root package, whose dependencies' in-package tests import redistest).

// Eventually waits for cond, polling every few milliseconds, and fails the
// test when it does not hold within within: wait on a condition with a
// deadline, never sleep a fixed time and hope.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for: %s", within, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// NumSub returns the number of subscribers of channel (PUBSUB NUMSUB).
func NumSub(t testing.TB, rdb *redis.Client, channel string) int64 {
	t.Helper()
	m, err := rdb.PubSubNumSub(context.Background(), channel).Result()
	if err != nil {
		t.Fatalf("PUBSUB NUMSUB %s: %v", channel, err)
	}
	return m[channel]
}

// Published captures every message published on a server from a raw
// PSUBSCRIBE * connection. Marker messages on its own channel separate what
// was published before a point from what comes after.
type Published struct {
	rdb *redis.Client
	ps  *redis.PubSub
	seq int
}

// Message is one captured message.
type Message struct{ Channel, Payload string }

const capturedMarker = "__redistest_marker__"

// Capture subscribes to every channel of rdb's server and returns once the
// subscription is confirmed; it is closed at cleanup.
func Capture(t testing.TB, rdb *redis.Client) *Published {
	t.Helper()
	ps := rdb.PSubscribe(context.Background(), "*")
	if _, err := ps.Receive(context.Background()); err != nil {
		_ = ps.Close()
		t.Fatalf("PSUBSCRIBE *: %v", err)
	}
	t.Cleanup(func() { _ = ps.Close() })
	return &Published{rdb: rdb, ps: ps}
}

// Next returns the next message, waiting at most 5 s for it.
func (p *Published) Next(t testing.TB) (channel, payload string) {
	t.Helper()
	msg, err := p.ps.ReceiveTimeout(context.Background(), 5*time.Second)
	if err != nil {
		t.Fatalf("no message within 5s: %v", err)
	}
	m, ok := msg.(*redis.Message)
	if !ok {
		t.Fatalf("unexpected %T %v", msg, msg)
	}
	return m.Channel, m.Payload
}

// Drain publishes a marker and returns every message published before it,
// in order.
func (p *Published) Drain(t testing.TB) []Message {
	t.Helper()
	p.seq++
	mark := strconv.Itoa(p.seq)
	if err := p.rdb.Publish(context.Background(), capturedMarker, mark).Err(); err != nil {
		t.Fatalf("publish marker: %v", err)
	}
	var out []Message
	for {
		ch, payload := p.Next(t)
		if ch == capturedMarker {
			if payload == mark {
				return out
			}
			continue
		}
		out = append(out, Message{ch, payload})
	}
}

// None fails the test when anything was published since the last message
// read.
func (p *Published) None(t testing.TB) {
	t.Helper()
	if got := p.Drain(t); len(got) > 0 {
		t.Fatalf("unexpected messages: %v", got)
	}
}

// CommandsBetween returns the top-level commands the server executed between
// the ECHO markers begin and end (sent by the test on its own connection), in
// the order MONITOR saw them, leaving out the commands on clients'
// registration records (see RegistrationPrefix), which clients send in the
// background whatever the test does, and connection handshakes (Handshake),
// which such a write may cause.
func CommandsBetween(t testing.TB, m *Monitor, begin, end string) []MonitorLine {
	t.Helper()
	return commandsBetween(t, m, begin, end, false)
}

func commandsBetween(t testing.TB, m *Monitor, begin, end string, records bool) []MonitorLine {
	t.Helper()
	var out []MonitorLine
	inside := false
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-m.Lines():
			if !ok {
				t.Fatalf("MONITOR ended before the end marker; got %v", out)
			}
			l, ok := ParseMonitorLine(line)
			if !ok || !l.TopLevel() || ((l.Registration() || l.Handshake()) && !records) {
				continue
			}
			if l.Command == "echo" && len(l.Args) == 1 {
				switch l.Args[0] {
				case begin:
					inside = true
					continue
				case end:
					return out
				}
			}
			if inside {
				out = append(out, l)
			}
		case <-timeout:
			t.Fatalf("end marker not seen; got %v", out)
		}
	}
}

// Sent runs fn and returns the top-level commands any client sent while it
// ran (MONITOR between two ECHO markers sent on rdb), leaving out those on
// registration records as CommandsBetween does. srv is rdb's server.
func Sent(t testing.TB, srv *Server, rdb *redis.Client, fn func()) []MonitorLine {
	t.Helper()
	return sent(t, srv, rdb, fn, false)
}

// SentAll is Sent with the commands on registration records kept, for the
// tests of the registration itself.
func SentAll(t testing.TB, srv *Server, rdb *redis.Client, fn func()) []MonitorLine {
	t.Helper()
	return sent(t, srv, rdb, fn, true)
}

func sent(t testing.TB, srv *Server, rdb *redis.Client, fn func(), records bool) []MonitorLine {
	t.Helper()
	m, err := StartMonitor(srv.Addr())
	if err != nil {
		t.Fatalf("MONITOR: %v", err)
	}
	defer m.Close()
	ctx := context.Background()
	begin, end := "begin-"+strconv.FormatInt(time.Now().UnixNano(), 36), "end-"+strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := rdb.Echo(ctx, begin).Err(); err != nil {
		t.Fatalf("echo: %v", err)
	}
	fn()
	if err := rdb.Echo(ctx, end).Err(); err != nil {
		t.Fatalf("echo: %v", err)
	}
	return commandsBetween(t, m, begin, end, records)
}

// Mentioning returns the commands of cmds that name s as one of their
// arguments (a key, a channel) or as part of one.
func Mentioning(cmds []MonitorLine, s string) []MonitorLine {
	var out []MonitorLine
	for _, c := range cmds {
		for _, a := range c.Args {
			if strings.Contains(a, s) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// MovedReplies reads how many MOVED replies the node raw talks to has sent
// (INFO errorstats).
func MovedReplies(t testing.TB, raw *redis.Client) int64 {
	t.Helper()
	info, err := raw.Info(context.Background(), "errorstats").Result()
	if err != nil {
		t.Fatalf("INFO errorstats: %v", err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "errorstat_MOVED:count="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("errorstat_MOVED: %v", err)
			}
			return n
		}
	}
	return 0
}
