package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
)

// monitor counts the top-level commands one server executes, per client
// address and command, between two ECHO markers, from a raw MONITOR
// connection. Commands run by scripts (shown as "[db lua]") are not counted:
// they are no round trips. INFO commandstats cannot tell them apart.
type monitor struct {
	addr    string
	conn    net.Conn
	markers [2]string // start and end marker

	mu           sync.Mutex
	state        int                         // 0 before the start marker, 1 counting, 2 after the end marker
	counts       map[string]map[string]int64 // client address -> command -> count
	scripted     int64                       // commands run by scripts while counting
	registration int64                       // commands on clients' registration records
	seen         [2]chan struct{}            // closed when the marker is seen
	err          error
	done         chan struct{}
}

// startMonitor dials o (its address, TLS and credentials) and sends MONITOR.
func startMonitor(ctx context.Context, addr string, o *redis.Options, startMarker, endMarker string) (*monitor, error) {
	dial := redis.NewDialer(&redis.Options{DialTimeout: o.DialTimeout, TLSConfig: o.TLSConfig})
	network := o.Network
	if network == "" {
		network = "tcp"
	}
	nc, err := dial(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("MONITOR connection to %s: %w", addr, err)
	}
	rd := bufio.NewReaderSize(nc, 256<<10)
	_ = nc.SetDeadline(time.Now().Add(max(o.DialTimeout, 5*time.Second)))
	if o.Password != "" {
		args := []string{"AUTH", o.Password}
		if o.Username != "" {
			args = []string{"AUTH", o.Username, o.Password}
		}
		if err := respCommand(nc, rd, args...); err != nil {
			nc.Close()
			return nil, fmt.Errorf("MONITOR connection to %s: AUTH: %w", addr, err)
		}
	}
	if err := respCommand(nc, rd, "MONITOR"); err != nil {
		nc.Close()
		return nil, fmt.Errorf("MONITOR on %s: %w", addr, err)
	}
	_ = nc.SetDeadline(time.Time{})
	m := &monitor{
		addr:    addr,
		conn:    nc,
		markers: [2]string{startMarker, endMarker},
		counts:  map[string]map[string]int64{},
		seen:    [2]chan struct{}{make(chan struct{}), make(chan struct{})},
		done:    make(chan struct{}),
	}
	go m.read(rd)
	return m, nil
}

// respCommand sends one command and expects a +status reply.
func respCommand(w io.Writer, rd *bufio.Reader, args ...string) error {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	line, err := rd.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+") {
		return errors.New(strings.TrimSpace(strings.TrimPrefix(line, "-")))
	}
	return nil
}

func (m *monitor) read(rd *bufio.Reader) {
	defer close(m.done)
	for {
		line, err := rd.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A huge command: its head is all that matters.
			head := string(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = rd.ReadSlice('\n')
			}
			if err == nil {
				m.line(head)
			}
		} else if err == nil {
			m.line(string(line))
		}
		if err != nil {
			m.mu.Lock()
			if m.state < 2 {
				m.err = err
			}
			m.mu.Unlock()
			return
		}
	}
}

// line handles one MONITOR line: +<time> [<db> <client>] "<cmd>" "<arg>"...
func (m *monitor) line(line string) {
	l, ok := redistest.ParseMonitorLine(line)
	if !ok {
		return
	}
	client, cmd := l.Client, l.Command
	m.mu.Lock()
	defer m.mu.Unlock()
	if cmd == "echo" && m.state < 2 && len(l.Args) == 1 && l.Args[0] == m.markers[m.state] {
		close(m.seen[m.state])
		m.state++
		return
	}
	if m.state != 1 {
		return
	}
	if client == "lua" {
		m.scripted++
		return
	}
	if len(l.Args) > 0 && registry.IsKey(l.Args[0]) {
		// A client's registration record: background writes, not the
		// lock's round trips.
		m.registration++
		return
	}
	byCmd := m.counts[client]
	if byCmd == nil {
		byCmd = map[string]int64{}
		m.counts[client] = byCmd
	}
	byCmd[cmd]++
}

// waitMarker waits until the MONITOR stream shows marker i (0 start, 1 end):
// every command the server ran before it has then been seen.
func (m *monitor) waitMarker(ctx context.Context, i int) error {
	select {
	case <-m.seen[i]:
		return nil
	case <-m.done:
		m.mu.Lock()
		defer m.mu.Unlock()
		return fmt.Errorf("MONITOR on %s ended: %v", m.addr, m.err)
	case <-ctx.Done():
		return fmt.Errorf("MONITOR on %s: marker not seen: %w", m.addr, context.Cause(ctx))
	}
}

// Close ends the MONITOR connection.
func (m *monitor) Close() {
	m.mu.Lock()
	m.state = max(m.state, 2)
	m.mu.Unlock()
	m.conn.Close()
	<-m.done
}

// registrations returns the commands on clients' registration records
// seen while counting.
func (m *monitor) registrations() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.registration
}

// result returns the counts of the commands seen while counting.
func (m *monitor) result() (map[string]map[string]int64, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts, m.scripted
}
