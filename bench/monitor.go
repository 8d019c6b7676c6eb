package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
)

// markPrefix starts the ECHO arguments the runner uses to delimit a counting
// window in the MONITOR stream.
const markPrefix = "redisson-bench-mark:"

// Monitor counts the top-level commands every client sends, read from a
// MONITOR connection. Commands run by scripts (the "[0 lua]" lines) are
// not round trips: they are counted apart, under the client "lua", which
// no worker's address matches. INFO commandstats cannot tell the two
// apart, which is why the runner counts here.
type Monitor struct {
	rm *redistest.Monitor

	mu       sync.Mutex
	counting bool
	// counts[client addr][command] within the open window.
	counts map[string]map[string]int
	marks  map[string]chan struct{}
	done   chan struct{}
}

// StartMonitor opens MONITOR on addr.
func StartMonitor(addr string) (*Monitor, error) {
	rm, err := redistest.StartMonitor(addr)
	if err != nil {
		return nil, err
	}
	m := &Monitor{rm: rm, marks: make(map[string]chan struct{}), done: make(chan struct{})}
	go m.read()
	return m, nil
}

// Close ends the stream.
func (m *Monitor) Close() error {
	err := m.rm.Close()
	<-m.done
	return err
}

// luaClient is the client the calls scripts make are counted under.
const luaClient = "lua"

// expect registers a marker before it is sent; the channel is closed when
// the stream reaches it.
func (m *Monitor) expect(mark string) <-chan struct{} {
	ch := make(chan struct{})
	m.mu.Lock()
	m.marks[mark] = ch
	m.mu.Unlock()
	return ch
}

// window returns the counts of the last closed window.
func (m *Monitor) window() map[string]map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts
}

func (m *Monitor) read() {
	defer close(m.done)
	for line := range m.rm.Lines() {
		l, ok := redistest.ParseMonitorLine(line)
		if !ok {
			continue
		}
		client, cmd, args := l.Client, l.Command, l.Args
		if !l.TopLevel() {
			client = luaClient
		}
		if cmd == "echo" && len(args) == 1 && strings.HasPrefix(args[0], markPrefix) {
			mark := args[0]
			m.mu.Lock()
			switch {
			case strings.HasPrefix(mark, markPrefix+"start:"):
				m.counting = true
				m.counts = make(map[string]map[string]int)
			case strings.HasPrefix(mark, markPrefix+"stop:"):
				m.counting = false
			}
			if ch := m.marks[mark]; ch != nil {
				delete(m.marks, mark)
				close(ch)
			}
			m.mu.Unlock()
			continue
		}
		m.mu.Lock()
		if m.counting {
			byCmd := m.counts[client]
			if byCmd == nil {
				byCmd = make(map[string]int)
				m.counts[client] = byCmd
			}
			byCmd[commandLabel(cmd, args)]++
		}
		m.mu.Unlock()
	}
}

// registrationLabel starts the label of a command on a client's
// registration record (redisson-go:client:<id>).
const registrationLabel = "registration "

// commandLabel names a command for the breakdown: scripts by SHA prefix and
// key count, container commands with their subcommand, and the writes of a
// client's registration record apart from everything else.
func commandLabel(cmd string, args []string) string {
	if len(args) >= 1 && registry.IsKey(args[0]) {
		return registrationLabel + cmd
	}
	switch cmd {
	case "evalsha", "eval", "evalsha_ro", "eval_ro", "fcall":
		if len(args) >= 2 {
			body := args[0]
			if cmd == "eval" || cmd == "eval_ro" {
				body = "<script text>"
			} else if len(body) > 8 {
				body = body[:8]
			}
			nkeys, err := strconv.Atoi(args[1])
			if err != nil || nkeys < 0 || 2+nkeys > len(args) {
				return fmt.Sprintf("%s %s (%s keys)", cmd, body, args[1])
			}
			return fmt.Sprintf("%s %s (%d keys, %d args)", cmd, body, nkeys, len(args)-2-nkeys)
		}
	case "echo":
		if len(args) == 1 && strings.HasPrefix(args[0], "redisson-go-claim:") {
			// A client learning which socket a connection it takes aside
			// runs on: once per such connection, like a handshake.
			return "echo claim"
		}
	case "client", "script", "config", "cluster", "command", "object", "memory":
		if len(args) >= 1 {
			return cmd + " " + strings.ToLower(args[0])
		}
	}
	return cmd
}

// isRegistration reports whether a label is a command on a client's
// registration record: written in the background (at start, after holds
// change, periodically), not by the operation measured.
func isRegistration(label string) bool { return strings.HasPrefix(label, registrationLabel) }

// isHandshake reports whether a label is a command clients send while
// setting up a new connection.
func isHandshake(label string) bool {
	switch label {
	case "hello", "auth", "select", "client setinfo", "client setname", "client tracking", "echo claim":
		return true
	}
	return false
}

// isPubSubCommand reports whether a label is a subscription command.
func isPubSubCommand(label string) bool {
	switch strings.Fields(label)[0] {
	case "subscribe", "unsubscribe", "ssubscribe", "sunsubscribe", "psubscribe", "punsubscribe":
		return true
	}
	return false
}
