package value_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/source"
)

// commands records, through MONITOR, what one operation sends: the window
// between two ECHO markers sent by a separate connection before and after
// it. Top-level EVAL/EVALSHA lines (go-redis retries EVALSHA with EVAL on
// NOSCRIPT) become one "script" entry; the calls a script makes are listed
// as "lua <command> <args>".
type commands struct {
	mon    *redistest.Monitor
	marker *redis.Client
	seq    int
}

func monitor(t *testing.T, srv *redistest.Server) *commands {
	t.Helper()
	mon, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = mon.Close() })
	return &commands{mon: mon, marker: redistest.Client(t, srv)}
}

// of runs op and returns the commands it sent.
func (c *commands) of(t *testing.T, op func()) []string {
	t.Helper()
	ctx := context.Background()
	c.seq++
	begin, end := fmt.Sprintf("begin-%d", c.seq), fmt.Sprintf("end-%d", c.seq)
	require.NoError(t, c.marker.Echo(ctx, begin).Err())
	op()
	require.NoError(t, c.marker.Echo(ctx, end).Err())
	var out []string
	in := false
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line, ok := <-c.mon.Lines():
			require.True(t, ok, "monitor closed")
			l, ok := redistest.ParseMonitorLine(line)
			if !ok {
				continue
			}
			if l.Command == "echo" && len(l.Args) == 1 {
				switch l.Args[0] {
				case begin:
					in = true
					continue
				case end:
					return out
				}
			}
			if !in || l.Command == "hello" || l.Command == "client" {
				continue // a new connection's handshake
			}
			if l.Registration() {
				continue // a client's registration record, written in the background
			}
			switch {
			case !l.TopLevel():
				out = append(out, "lua "+strings.Join(append([]string{l.Command}, l.Args...), " "))
			case l.Command == "eval" || l.Command == "evalsha":
				if len(out) == 0 || out[len(out)-1] != "script" {
					out = append(out, "script")
				}
			default:
				out = append(out, strings.Join(append([]string{l.Command}, l.Args...), " "))
			}
		case <-timeout:
			t.Fatalf("no monitor line for marker %s", end)
		}
	}
}

// rawState is a key's stored bytes and PTTL as read over a raw connection.
type rawState struct {
	exists bool
	value  string
	pttl   time.Duration
}

func readRaw(t *testing.T, raw *redis.Client, key string) rawState {
	t.Helper()
	ctx := context.Background()
	v, err := raw.Get(ctx, key).Result()
	if err == redis.Nil {
		return rawState{pttl: -2}
	}
	require.NoError(t, err)
	pttl, err := raw.PTTL(ctx, key).Result()
	require.NoError(t, err)
	return rawState{exists: true, value: v, pttl: pttl}
}

// ttl describes an expected PTTL: none (-1), absent (-2) or about d.
type ttl time.Duration

const (
	noTTL  ttl = -1
	noKey  ttl = -2
	ttlGap     = 250 * time.Millisecond // bound of a step's own latency
)

func requireTTL(t *testing.T, want ttl, got time.Duration, msg string) {
	t.Helper()
	if want < 0 {
		require.Equal(t, time.Duration(want), got, "%s: PTTL", msg)
		return
	}
	require.True(t, got <= time.Duration(want) && got > time.Duration(want)-ttlGap,
		"%s: PTTL %v, want (%v, %v]", msg, got, time.Duration(want)-ttlGap, time.Duration(want))
}

// sourceOf returns the source of a new Client on a connection of its own to
// srv, closed when the test ends; its registration is off, so that it
// writes nothing the test did not ask for.
func sourceOf(t *testing.T, srv *redistest.Server) *source.Source {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c.Source()
}
