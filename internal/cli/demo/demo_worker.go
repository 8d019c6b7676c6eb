package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/rlock"
)

// demoWorkerCommand is the hidden command demo re-runs its own binary with.
const WorkerName = "__demo-worker"

// workerMsg is one JSON line a worker writes on its stdout:
//
//	{"conn":"127.0.0.1:50123"}  a connection to Redis was made from this address
//	{"ready":true}              connected, waiting for "go" on stdin
//	{"a":<ns>,"r":<ns>}         one critical section: the wall-clock time
//	                            (Unix ns) Lock returned and Unlock was called
//	{"a":<ns>,"r":<ns>,"h":1}   the same, for a lock a local hand-off gave
//	{"done":true,"n":<count>}   all acquisitions made
//	{"error":"..."}             the worker failed (it exits 1)
type workerMsg struct {
	Conn  string `json:"conn,omitempty"`
	Ready bool   `json:"ready,omitempty"`
	A     int64  `json:"a,omitempty"`
	R     int64  `json:"r,omitempty"`
	Done  bool   `json:"done,omitempty"`
	N     int64  `json:"n,omitempty"`
	Error string `json:"error,omitempty"`
}

// Worker exit codes besides 0, 1 and 2.
const exitWorkerAborted = 4

// cmdDemoWorker is one demo process: --workers goroutines share --ops
// acquisitions of one lock; each increments the counter with GET then SET
// inside the lock. The parent sends "go" on stdin to start; stdin's end
// stops the worker (parent interrupted or gone).
func WorkerCommand(args []string) int {
	fs := flag.NewFlagSet("redisson "+WorkerName, flag.ContinueOnError)
	var cf conn.Flags
	cf.Register(fs)
	name := fs.String("lock", "", "lock name")
	counter := fs.String("counter", "", "counter key")
	workers := fs.Int("workers", 1, "goroutines")
	ops := fs.Int("ops", 0, "acquisitions of this process")
	lease := fs.Duration("lease", 0, "fixed lease (0: watchdog)")
	if err := fs.Parse(args); err != nil {
		return cliflag.ExitUsage
	}
	if *name == "" || *counter == "" || *workers < 1 || *ops < 0 || *lease < 0 {
		fmt.Fprintln(os.Stderr, "redisson "+WorkerName+": bad arguments (this command is run by redisson demo)")
		return cliflag.ExitUsage
	}
	// A terminal's Ctrl-C reaches the whole process group; the parent
	// decides, and stops us by closing stdin.
	signal.Ignore(os.Interrupt)

	out := newLineOut(os.Stdout)
	defer out.Close()
	fail := func(format string, a ...any) int {
		out.msg(workerMsg{Error: fmt.Sprintf(format, a...)})
		return cliflag.ExitError
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cn, err := cf.Connect(ctx, func(a net.Addr) { out.msg(workerMsg{Conn: a.String()}) })
	if err != nil {
		return fail("%v", err)
	}
	defer cn.Close()
	client, err := redisson.New(cn.RDB, redisson.WithTimeout(cf.Timeout), redisson.WithObserver(handOffObserver()))
	if err != nil {
		return fail("%v", err)
	}
	defer client.Close()

	// Open the pool's connections now, outside the measured window.
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() { _ = cn.RDB.Ping(ctx).Err() })
	}
	wg.Wait()

	out.msg(workerMsg{Ready: true})
	out.Flush()
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "go" {
		return exitWorkerAborted
	}
	go func() {
		_, _ = io.Copy(io.Discard, in)
		cancel(errors.New("stopped by redisson demo"))
	}()

	var opts []rlock.Option
	if *lease > 0 {
		opts = append(opts, rlock.WithLease(*lease))
	}
	c := contention{client: client, rdb: cn.RDB, name: *name, counter: *counter, opts: opts, out: out, cancel: cancel}
	made, failure := c.run(ctx, *workers, *ops)
	if failure != "" {
		return fail("%s", failure)
	}
	if ctx.Err() != nil {
		return exitWorkerAborted
	}
	out.msg(workerMsg{Done: true, N: made})
	return cliflag.ExitOK
}

// contention is the worker's goroutines contending on the lock.
type contention struct {
	client        *redisson.Client
	rdb           redis.UniversalClient
	name, counter string
	opts          []rlock.Option
	out           *lineOut
	cancel        context.CancelCauseFunc
}

// run starts workers goroutines sharing ops acquisitions; each increments
// the counter inside the lock. failure is the first error, which stops
// the others.
func (c *contention) run(ctx context.Context, workers, ops int) (int64, string) {
	var failure string
	var (
		wg      sync.WaitGroup
		count   atomic.Int64
		errOnce sync.Once
	)
	for g := range workers {
		share := ops / workers
		if g < ops%workers {
			share++
		}
		wg.Go(func() {
			lock := c.client.Lock(c.name)
			var handedOver atomic.Bool
			lctx := context.WithValue(ctx, handOffKey{}, &handedOver)
			for range share {
				handedOver.Store(false)
				hold, err := lock.Lock(lctx, c.opts...)
				if err != nil {
					if ctx.Err() == nil {
						errOnce.Do(func() { failure = fmt.Sprintf("lock: %v", err); c.cancel(err) })
					}
					return
				}
				acq := time.Now().UnixNano()
				err = increment(hold.Context(), c.rdb, c.counter)
				rel := time.Now().UnixNano()
				uerr := hold.Unlock(ctx)
				if err == nil && uerr != nil {
					err = fmt.Errorf("unlock: %w", uerr)
				}
				if err != nil {
					if ctx.Err() == nil {
						errOnce.Do(func() {
							failure = fmt.Sprintf("critical section: %v (hold: %v)", err, hold.Err())
							c.cancel(err)
						})
					}
					return
				}
				c.out.section(acq, rel, handedOver.Load())
				count.Add(1)
			}
		})
	}
	wg.Wait()
	return count.Load(), failure
}

// handOffKey is the context key of the flag a goroutine's Lock sets when a
// local hand-off gave it the lock.
type handOffKey struct{}

// handOffObserver tells each acquisition's goroutine, through the flag in
// its context, whether a release of the same client handed it the lock:
// the figure the demo's reading of its hand-off latency rests on.
func handOffObserver() *redisson.Observer {
	return &redisson.Observer{
		AcquireEnd: func(ctx context.Context, e observe.AcquireEnd) {
			if f, ok := ctx.Value(handOffKey{}).(*atomic.Bool); ok && e.Outcome == observe.Acquired {
				f.Store(e.HandOff)
			}
		},
	}
}

// increment is the demo's non-atomic read-modify-write: only the lock keeps
// two of them from interleaving and losing an update.
func increment(ctx context.Context, rdb redis.UniversalClient, key string) error {
	v, err := rdb.Get(ctx, key).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("GET %s: %w", key, err)
	}
	if err := rdb.Set(ctx, key, v+1, 0).Err(); err != nil {
		return fmt.Errorf("SET %s: %w", key, err)
	}
	return nil
}

// lineOut writes JSON lines to the parent, buffered and flushed every 50 ms
// so that the writes cost the measured loop little.
type lineOut struct {
	mu   sync.Mutex
	w    *bufio.Writer
	buf  []byte
	stop chan struct{}
	done chan struct{}
}

func newLineOut(w io.Writer) *lineOut {
	o := &lineOut{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-o.stop:
				return
			case <-t.C:
				o.Flush()
			}
		}
	}()
	return o
}

func (o *lineOut) msg(m workerMsg) {
	b, _ := json.Marshal(m)
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.w.Write(append(b, '\n'))
}

func (o *lineOut) section(acq, rel int64, handedOver bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := append(o.buf[:0], `{"a":`...)
	b = strconv.AppendInt(b, acq, 10)
	b = append(b, `,"r":`...)
	b = strconv.AppendInt(b, rel, 10)
	if handedOver {
		b = append(b, `,"h":1`...)
	}
	b = append(b, "}\n"...)
	o.buf = b
	_, _ = o.w.Write(b)
}

// Flush writes out what is buffered.
func (o *lineOut) Flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.w.Flush()
}

// Close stops the flusher and flushes.
func (o *lineOut) Close() {
	close(o.stop)
	<-o.done
	o.Flush()
}
