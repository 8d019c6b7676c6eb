package redistest

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Monitor reads a server's MONITOR stream over a raw connection, so tests
// and benchmarks can count the commands clients really send (round trips),
// which INFO commandstats cannot: it also counts calls made inside scripts.
type Monitor struct {
	conn  net.Conn
	lines chan string
	done  chan struct{}
}

// StartMonitor opens a MONITOR connection to addr and returns once the
// server has confirmed it.
func StartMonitor(addr string) (*Monitor, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		conn.Close()
		return nil, err
	}
	rd := bufio.NewReaderSize(conn, 64<<10)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	first, err := rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "+OK") {
		conn.Close()
		return nil, fmt.Errorf("MONITOR: %q %v", first, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	m := &Monitor{conn: conn, lines: make(chan string, 1<<16), done: make(chan struct{})}
	go func() {
		defer close(m.lines)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case m.lines <- strings.TrimRight(line, "\r\n"):
			case <-m.done:
				return
			}
		}
	}()
	return m, nil
}

// Lines delivers the monitor lines ("+<time> [<db> <client>] \"cmd\" ...").
func (m *Monitor) Lines() <-chan string { return m.lines }

// Close ends the stream.
func (m *Monitor) Close() error {
	select {
	case <-m.done:
	default:
		close(m.done)
	}
	return m.conn.Close()
}

// MonitorLine is one parsed MONITOR line.
type MonitorLine struct {
	Client  string   // "127.0.0.1:port", or "lua" for a call made by a script
	Command string   // lower-case command name
	Args    []string // the arguments after the name, unquoted
	// Sent is the command name as it was sent: a script's redis.call
	// keeps the case its text (or its argument) gave it.
	Sent string
}

// TopLevel reports whether the command came from a client, not a script.
func (l MonitorLine) TopLevel() bool { return l.Client != "lua" }

// ParseMonitorLine parses one MONITOR line.
func ParseMonitorLine(line string) (MonitorLine, bool) {
	open := strings.IndexByte(line, '[')
	end := strings.IndexByte(line, ']')
	if open < 0 || end < open {
		return MonitorLine{}, false
	}
	head := strings.Fields(line[open+1 : end])
	if len(head) != 2 {
		return MonitorLine{}, false
	}
	words := splitQuoted(line[end+1:])
	if len(words) == 0 {
		return MonitorLine{}, false
	}
	return MonitorLine{Client: head[1], Command: strings.ToLower(words[0]), Args: words[1:], Sent: words[0]}, true
}

// splitQuoted splits MONITOR's `"a" "b\"c"` argument list, undoing the
// escapes Redis writes there (sdscatrepr: \xHH for other bytes, \n \r \t
// \a \b, and \" \\), so that a binary argument reads back as its bytes.
func splitQuoted(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		var b strings.Builder
		for i++; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				i += unescape(&b, s[i:]) - 1
				continue
			}
			b.WriteByte(s[i])
		}
		out = append(out, b.String())
	}
	return out
}

// unescape writes the byte of the escape sequence at the start of s (what
// follows a backslash in MONITOR's sdscatrepr quoting: \xHH, \n, \r, \t,
// \a, \b, or a character standing for itself) and returns its length.
func unescape(b *strings.Builder, s string) int {
	switch s[0] {
	case 'x':
		if len(s) >= 3 {
			if v, err := strconv.ParseUint(s[1:3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				return 3
			}
		}
	case 'n':
		b.WriteByte('\n')
		return 1
	case 'r':
		b.WriteByte('\r')
		return 1
	case 't':
		b.WriteByte('\t')
		return 1
	case 'a':
		b.WriteByte('\a')
		return 1
	case 'b':
		b.WriteByte('\b')
		return 1
	}
	b.WriteByte(s[0])
	return 1
}
