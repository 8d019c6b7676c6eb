package rlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
)

// commandsBetween returns the top-level commands the server executed
// between two ECHO markers sent on the raw connection.
func commandsBetween(t *testing.T, m *redistest.Monitor, begin, end string) []redistest.MonitorLine {
	t.Helper()
	var out []redistest.MonitorLine
	inside := false
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line := <-m.Lines():
			l, ok := redistest.ParseMonitorLine(line)
			if !ok || !l.TopLevel() {
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

// TestRoundTrips: an uncontended lock+unlock sends exactly two commands,
// the acquire and the unlock script (the unlock latch costs no third).
func TestRoundTrips(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := newClient(t, srv)
	ctx := context.Background()
	lock := c.Lock("rt")
	// Warm-up: the first use of a script answers NOSCRIPT once, and the
	// first lock write reads the master's replica count.
	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, lock.Unlock(h))

	m, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	defer m.Close()
	require.NoError(t, raw.Echo(ctx, "begin").Err())
	const pairs = 10
	for i := 0; i < pairs; i++ {
		h, err := lock.Lock(ctx)
		require.NoError(t, err)
		require.NoError(t, lock.Unlock(h))
	}
	require.NoError(t, raw.Echo(ctx, "end").Err())
	cmds := commandsBetween(t, m, "begin", "end")
	require.Len(t, cmds, 2*pairs, "commands: %v", cmds)
	for _, c := range cmds {
		require.Equal(t, "evalsha", c.Command)
	}
}
