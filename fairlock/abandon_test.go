package fairlock_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// A waiter whose deadline ends while its try is still on its way (here
// held back 200 ms by a go-redis hook before it is written) leaves the
// queue only after that try ran: sent at once, the leave-queue script would
// run first and the try would then queue the waiter that had left, holding
// everyone behind it back for minutes.
func TestLeaveQueueAfterAbandonedTry(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := context.Background()
	a := redissontest.ClientAt(t, srv.Addr())
	brdb := redistest.Client(t, srv)
	owner := redisson.NewOwnerID()
	brdb.AddHook(delayTry{field: strconv.FormatInt(owner, 10)})
	b, err := redisson.New(brdb)
	require.NoError(t, err)
	h, err := a.FairLock("f").Lock(ctx)
	require.NoError(t, err)
	defer func() { require.NoError(t, h.Unlock(ctx)) }()

	mon, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	defer mon.Close()

	field := b.ID() + ":" + strconv.FormatInt(owner, 10)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	_, err = b.FairLock("f").Lock(wctx, fairlock.WithOwner(owner))
	cancel()
	require.True(t, errors.Is(err, context.DeadlineExceeded), "got %v", err)
	// Close waits for what the call left to settle.
	require.NoError(t, b.Close())

	// The order Redis ran B's scripts in: its try (3 keys: the lock, the
	// queue, the timeouts) and its leave-queue (2 keys: the queue and the
	// timeouts). An EVALSHA answered NOSCRIPT and the EVAL that follows
	// count once.
	var order []string
	deadline := time.After(5 * time.Second)
	for !slices.Contains(order, "try") || !slices.Contains(order, "leave") {
		select {
		case line := <-mon.Lines():
			l, ok := redistest.ParseMonitorLine(line)
			if !ok || !l.TopLevel() || l.Command != "evalsha" && l.Command != "eval" || len(l.Args) < 2 {
				continue
			}
			var s string
			switch {
			case l.Args[1] == "3" && len(l.Args) > 6 && l.Args[6] == field:
				s = "try"
			case l.Args[1] == "2" && len(l.Args) > 4 && l.Args[4] == field:
				s = "leave"
			default:
				continue
			}
			if len(order) == 0 || order[len(order)-1] != s {
				order = append(order, s)
			}
		case <-deadline:
			t.Fatalf("MONITOR did not show both scripts of %s; seen %v", field, order)
		}
	}
	t.Logf("MONITOR order of %s's scripts: %v", field, order)
	require.Equal(t, []string{"try", "leave"}, order)
	n, err := rdb.Exists(ctx, "redisson_lock_queue:{f}", "redisson_lock_timeout:{f}").Result()
	require.NoError(t, err)
	require.Zero(t, n, "queue or timeout entries left behind")
}

// delayTry holds back, on the socket, the write of a fair-lock try (3
// keys) for an owner field ending in field: the command is on its way.
type delayTry struct{ field string }

func (d delayTry) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return delayConn{Conn: c, field: []byte(":" + d.field + "\r\n")}, nil
	}
}
func (d delayTry) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (d delayTry) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

type delayConn struct {
	net.Conn
	field []byte
}

func (c delayConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("\r\n$1\r\n3\r\n")) && bytes.Contains(b, c.field) {
		time.Sleep(200 * time.Millisecond) // the command's delay on its way, not a wait for a result
	}
	return c.Conn.Write(b)
}
