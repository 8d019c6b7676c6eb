// Package redistest starts real redis-server processes on free loopback ports:
// single servers, replicas and clusters. Tests use it through the helpers that
// take a testing.TB (StartServer, StartMasters, StartReplica, StartCluster),
// which stop and remove everything at cleanup and fail the test, never skip it,
// when redis-server is missing. Programs (a CLI demo, a benchmark runner) use
// Start and NewCluster and stop what they started themselves.
//
// Servers are bound to 127.0.0.1, keep no data on disk (no RDB snapshots, no
// AOF), work in a private temporary directory and write their log there.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// installHint is the error text of a missing redis-server.
const installHint = `redis-server not found: run "make test" (installs it), or install it yourself: ` +
	`sudo apt-get install -y redis-server (Debian/Ubuntu), brew install redis (macOS); ` +
	`or set REDIS_SERVER to its path`

const (
	// readyTimeout bounds the wait for a started server to answer PING.
	readyTimeout = 10 * time.Second
	// stopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	stopTimeout = 5 * time.Second
	// pollInterval is the pause between two readiness probes.
	pollInterval = 20 * time.Millisecond
	// probeTimeout bounds one readiness probe; a server that does not answer
	// within it is probed again.
	probeTimeout = 250 * time.Millisecond
	// startAttempts is how often a start is tried when the port turns out to
	// be taken by the time redis-server binds it.
	startAttempts = 5
	// logFileName is the server's log file inside its directory.
	logFileName = "redis.log"
	// clusterBusOffset is the distance between a cluster node's client port
	// and its cluster bus port when the bus port is not configured.
	clusterBusOffset = 10000
)

// Binary returns the redis-server executable to run: $REDIS_SERVER when it is
// set, else redis-server found on PATH. The error says how to install it.
func Binary() (string, error) {
	if p := os.Getenv("REDIS_SERVER"); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s (REDIS_SERVER=%q: %v)", installHint, p, err)
		}
		return path, nil
	}
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New(installHint)
	}
	return path, nil
}

// Options configures a server started by Start or StartServer.
type Options struct {
	// Port is the TCP port to listen on; 0 picks a free loopback port.
	Port int
	// Cluster starts the server with cluster mode enabled.
	Cluster bool
	// Args are extra redis-server arguments, appended after the defaults so
	// that they override them, e.g. []string{"--maxmemory", "10mb"}.
	Args []string
	// SentinelOf, when set to a master's "host:port", runs the process as a
	// Redis Sentinel monitoring that master under SentinelMasterName.
	SentinelOf string
	// TLS, when set, makes the server speak TLS only, with these files (see
	// NewTLS): its port is the TLS port and no plain port is open. NewClient
	// and Client then connect with TLS.ClientConfig.
	TLS *TLS
}

// SentinelMasterName is the name sentinels started here monitor their
// master under.
const SentinelMasterName = "redistest"

// Server is a redis-server process started by Start. Its methods are safe for
// concurrent use.
type Server struct {
	bin     string
	opts    Options
	port    int
	dir     string
	logPath string

	mu      sync.Mutex
	proc    *process // nil while not running
	stopped bool
}

// process is one run of redis-server.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited and been reaped
	err  error         // the result of cmd.Wait, valid once done is closed
}

// Start starts a redis-server with opts in a new temporary directory and
// waits until it answers PING. ctx bounds only the start, not the server's
// life: call Stop to end it. With opts.Port 0 a free loopback port is picked,
// and another one is tried when some other process takes it first.
func Start(ctx context.Context, opts Options) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	s := &Server{
		bin:     bin,
		opts:    opts,
		dir:     dir,
		logPath: filepath.Join(dir, logFileName),
	}
	s.opts.Args = append([]string(nil), opts.Args...)
	for attempt := 1; ; attempt++ {
		s.port = opts.Port
		if s.port == 0 {
			if s.port, err = freePort(opts.Cluster); err != nil {
				break
			}
		}
		var portTaken bool
		portTaken, err = s.launch(ctx)
		if err == nil {
			return s, nil
		}
		if !portTaken || opts.Port != 0 || attempt == startAttempts || ctx.Err() != nil {
			break
		}
	}
	if rmErr := os.RemoveAll(dir); rmErr != nil {
		err = errors.Join(err, rmErr)
	}
	return nil, err
}

// Addr returns the server's address, "127.0.0.1:PORT".
func (s *Server) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
}

// Port returns the server's TCP port.
func (s *Server) Port() int { return s.port }

// Dir returns the server's working directory, which holds its log file and,
// for a cluster node, its nodes.conf. Stop removes it.
func (s *Server) Dir() string { return s.dir }

// NewClient returns a client of the server with opts applied to its options.
// The caller closes it.
//
// Maintenance notifications are off unless an opt turns them on: go-redis
// v9.23 writes its shared MaintNotificationsConfig without a lock when the
// first handshakes of two connections fail together (a redis-server without
// CLIENT MAINT_NOTIFICATIONS), a data race -race reports in whichever test
// happens to open two connections at once.
func (s *Server) NewClient(opts ...func(*redis.Options)) *redis.Client {
	o := &redis.Options{Addr: s.Addr(), MaintNotificationsConfig: maintOff()}
	if s.opts.TLS != nil {
		// NewTLS's files were readable when the server started with them.
		o.TLSConfig, _ = s.opts.TLS.ClientConfig()
	}
	for _, f := range opts {
		f(o)
	}
	return redis.NewClient(o)
}

// MaintOff is a fresh maintenance-notifications config that turns them off,
// for tests that make their go-redis client themselves (through a proxy, say):
// see NewClient for the data race it avoids.
func MaintOff() *maintnotifications.Config { return maintOff() }

// maintOff is a fresh maintenance-notifications config that turns them off.
func maintOff() *maintnotifications.Config {
	return &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
}

// Stop ends the server: SIGTERM, then SIGKILL if it has not exited within 5
// seconds. It then removes the server's directory. Calling Stop again does
// nothing and returns nil.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	if s.proc != nil {
		s.proc.terminate(stopTimeout)
		s.proc = nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	return nil
}

// Kill ends the server at once with SIGKILL, as a crash would, and waits for
// it to exit. The directory is kept so that Restart can start it again.
// Killing a server that is not running does nothing.
func (s *Server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return fmt.Errorf("redistest: kill %s: server was stopped", s.Addr())
	}
	if s.proc != nil {
		s.proc.kill()
		s.proc = nil
	}
	return nil
}

// Restart starts the server again on the same port, with the same options and
// directory, and waits until it answers PING. A server that is still running
// is killed first. The data set starts empty: nothing is persisted. A cluster
// node keeps its identity and slots from nodes.conf.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return fmt.Errorf("redistest: restart %s: server was stopped", s.Addr())
	}
	if s.proc != nil {
		s.proc.kill()
		s.proc = nil
	}
	for attempt := 1; ; attempt++ {
		portTaken, err := s.launchLocked(ctx)
		if err == nil || !portTaken || attempt == startAttempts {
			return err
		}
		// The port is held by someone else, maybe only for a moment.
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		}
	}
}

// LogTail returns the last n lines of the server's log file, for error
// messages. It returns "" when the log cannot be read.
func (s *Server) LogTail(n int) string {
	return logTail(s.logPath, n)
}

// String returns the server's address.
func (s *Server) String() string { return s.Addr() }

// args returns the command line arguments of the server.
func (s *Server) args() []string {
	if s.opts.SentinelOf != "" {
		return s.sentinelArgs()
	}
	args := []string{
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--protected-mode", "no",
		"--daemonize", "no",
		"--logfile", s.logPath,
		// Replicas get their first sync at once, not after 5 seconds.
		"--repl-diskless-sync-delay", "0",
	}
	if s.opts.TLS != nil {
		args = append(args, s.opts.TLS.serverArgs(strconv.Itoa(s.port))...)
	}
	if s.opts.Cluster {
		args = append(args,
			"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "2000",
			"--cluster-require-full-coverage", "no",
			"--cluster-allow-pubsubshard-when-down", "yes",
		)
	}
	return append(args, s.opts.Args...)
}

// launch starts a process on s.port and waits until it answers PING.
func (s *Server) launch(ctx context.Context) (portTaken bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.launchLocked(ctx)
}

// launchLocked is launch with s.mu held. portTaken reports that the process
// failed because its port was already in use.
func (s *Server) launchLocked(ctx context.Context) (portTaken bool, err error) {
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return false, fmt.Errorf("redistest: %w", err)
	}
	logStart, err := logFile.Seek(0, io.SeekEnd)
	if err != nil {
		logFile.Close()
		return false, fmt.Errorf("redistest: %w", err)
	}
	cmd := exec.Command(s.bin, s.args()...)
	cmd.Dir = s.dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	setParentDeathSignal(cmd)
	err = cmd.Start()
	logFile.Close() // the child has its own copy
	if err != nil {
		return false, fmt.Errorf("redistest: start %s: %w", s.bin, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := s.waitReady(ctx, p); err != nil {
		p.kill()
		return portInUse(s.logPath, logStart), err
	}
	s.proc = p
	return false, nil
}

// waitReady waits until the process p answers PING on s.Addr(). It checks the
// pid the server reports, so a server of somebody else on the same port is
// not taken for p.
func (s *Server) waitReady(ctx context.Context, p *process) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	want := strconv.Itoa(p.cmd.Process.Pid)
	var tlsConfig *tls.Config
	if s.opts.TLS != nil {
		var err error
		if tlsConfig, err = s.opts.TLS.ClientConfig(); err != nil {
			return err
		}
	}
	var lastErr error
	for {
		pid, err := probe(ctx, s.Addr(), tlsConfig)
		if err == nil && pid == want {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("process %s answers on the port, not %s", pid, want)
		}
		lastErr = err
		select {
		case <-p.done:
			return fmt.Errorf("redistest: redis-server on %s exited before answering PING (%v); log:\n%s",
				s.Addr(), p.err, s.LogTail(20))
		case <-ctx.Done():
			return fmt.Errorf("redistest: redis-server on %s did not answer PING: %w (last error: %v); log:\n%s",
				s.Addr(), context.Cause(ctx), lastErr, s.LogTail(20))
		case <-time.After(pollInterval):
		}
	}
}

// probe sends PING and INFO server to addr on a new connection and returns
// the process_id the server reports. It speaks RESP itself rather than using
// a go-redis client, whose pool keeps a goroutine redialing for up to a
// second after failed dials, even once closed. A non-nil tlsConfig speaks
// TLS.
func probe(ctx context.Context, addr string, tlsConfig *tls.Config) (pid string, err error) {
	d := net.Dialer{Timeout: probeTimeout}
	var conn net.Conn
	conn, err = d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer func() { conn.Close() }()
	deadline := time.Now().Add(probeTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	if err := conn.SetDeadline(deadline); err != nil {
		return "", err
	}
	if tlsConfig != nil {
		c := tlsConfig.Clone()
		c.ServerName, _, _ = net.SplitHostPort(addr)
		conn = tls.Client(conn, c)
	}
	if _, err := io.WriteString(conn, "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n"); err != nil {
		return "", err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("PING: %w", err)
	}
	if line != "+PONG\r\n" {
		return "", fmt.Errorf("PING: %q", strings.TrimSpace(line))
	}
	line, err = r.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("INFO: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
	if !strings.HasPrefix(line, "$") || err != nil || n < 0 {
		return "", fmt.Errorf("INFO: %q", strings.TrimSpace(line))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return "", fmt.Errorf("INFO: %w", err)
	}
	return ParseInfo(string(body))["process_id"], nil
}

// terminate sends SIGTERM and waits up to timeout for the process to exit,
// then kills it.
func (p *process) terminate(timeout time.Duration) {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.kill()
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.kill()
	}
}

// kill sends SIGKILL and waits until the process has exited.
func (p *process) kill() {
	_ = p.cmd.Process.Kill() // fails only when it has exited already
	<-p.done
}

// freePort returns a loopback port nobody listens on right now. For a cluster
// node the cluster bus port, 10000 above it, must be free too.
func freePort(cluster bool) (int, error) {
	var lastErr error
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("redistest: pick a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if !cluster {
			l.Close()
			return port, nil
		}
		if port+clusterBusOffset > 65535 {
			l.Close()
			continue
		}
		bus, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+clusterBusOffset)))
		l.Close()
		if err != nil {
			lastErr = err
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, fmt.Errorf("redistest: no free port with a free cluster bus port: %v", lastErr)
}

// portInUse reports whether the log, from offset on, says that a port was in
// use.
func portInUse(logPath string, offset int64) bool {
	b, err := os.ReadFile(logPath)
	if err != nil || offset > int64(len(b)) {
		return false
	}
	return bytes.Contains(b[offset:], []byte("Address already in use"))
}

// logTail returns the last n lines of the file at path.
func logTail(path string, n int) string {
	const maxRead = 64 << 10
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxRead {
		if _, err := f.Seek(-maxRead, io.SeekEnd); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if n < len(lines) {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ParseInfo parses the reply of INFO or CLUSTER INFO into its fields.
func ParseInfo(info string) map[string]string {
	fields := make(map[string]string)
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = v
		}
	}
	return fields
}
