package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/semaphore"
)

const runDescription = `
Acquires the lock NAME, runs CMD with stdin, stdout and stderr passed through,
releases the lock when CMD ends and exits with CMD's exit code (128+n when CMD
was killed by signal n). The lock is a Redisson RLock: a Java service calling
redisson.getLock(NAME) contends on the same lock.

--fair takes Redisson's RFairLock of NAME instead (getFairLock: waiters get the
lock in the order they asked), --read and --write the read or the write lock of
the RReadWriteLock NAME (getReadWriteLock: many readers or one writer). Waiting,
leases, signals and exit codes are the same for all.

--lock given several times takes all the locks or none (Redisson's
RedissonMultiLock, getMultiLock): they are taken one after another in the
order given, and if one cannot be taken within its share of the wait, those
already taken are released and, while --wait lasts, run starts over. With
--fair, --read or --write every lock of the set is of that kind. The lost-lock
signal below fires when any one of them is lost.

--redlock with several --redis servers takes the lock NAME on every server, as
Redisson's RedissonRedLock does: it is held once a majority (n/2+1) of the
servers granted it, so it survives a minority of servers being down. Each
server gets at most --wait/n of the wait; a server that does not answer at the
start is warned about (exit 1 when fewer than a majority answer). With --lease
the RedLock counts as lost when its validity ends: the lease less the time the
acquisition took and a clock-drift allowance. A RedLock does not make a stale
holder harmless (a paused process may still act after its lease ran out):
where that matters, use --fenced and have the resource check the token.

--fenced takes Redisson's RFencedLock NAME (getFencedLock) and passes CMD the
fencing token of this acquisition in $REDISSON_FENCING_TOKEN: a number larger
than any token handed out before for NAME. A resource that remembers the
largest token it has seen and refuses smaller ones refuses a holder whose lock
was lost meanwhile.

--semaphore NAME --permits N takes one permit of the RSemaphore NAME instead of
a lock, first setting it to N permits if it does not exist yet (trySetPermits:
an existing semaphore keeps its count), and releases the permit when CMD exits,
however it ends: this caps how many CMDs run at once across machines. A permit
has no lease; exit 75 when no permit came within --wait.

Without --lease the watchdog keeps the lock as long as CMD runs (the lease,
--watchdog, is renewed every third of it). With --lease D the lock is held for
at most D: if CMD still runs when the lease ends, the lock is lost.

Waiting: by default run waits for the lock forever; --wait 0 tries once;
--wait D gives up after D with exit code 75 and a one-line message on stderr.
SIGINT (Ctrl-C) while waiting stops waiting and exits 130 (SIGTERM: 143).

While CMD runs, SIGINT, SIGTERM and SIGHUP received by run are forwarded to
CMD (to its process, not its children), and run keeps waiting for CMD to exit
before it unlocks. If the lock is lost while CMD runs - its key was deleted
or force-unlocked, the fixed --lease ran out, or a renewal failed until the
lease ran out - run sends CMD SIGTERM, waits for it to exit and exits 76 (a
multi-lock or RedLock then releases the members it still holds). A watchdog
lock notices a deletion at its next renewal (within --watchdog/3).

Exit codes:
  CMD's    CMD ran; its exit code (0 included), or 128+n if killed by signal n
  1        error: bad Redis connection or reply, or the unlock after CMD failed
           (the lease then expires by itself)
  2        usage error
  75       not acquired within --wait (--wait 0: held by someone else)
  76       the lock was lost while CMD ran; CMD got SIGTERM
  126/127  CMD could not be executed / was not found (the lock is released)
  130/143  SIGINT/SIGTERM while waiting for the lock`

const runExamples = `  redisson run --lock nightly-report -- ./report.sh --full
  redisson run --lock deploy --wait 0 -- make deploy       # exit 75 if busy
  redisson run --lock db-migrate --wait 2m -- ./migrate up
  redisson run --lock cache-warmup --lease 30s -- ./warm.sh # at most 30 s
  redisson run --redis redis://:secret@redis:6379/0 --lock job -- sh -c 'step1 && step2'
  redisson run --lock reports --fair -- ./report.sh        # first come, first served
  redisson run --lock catalog --read -- ./export.sh         # many readers at once
  redisson run --lock catalog --write -- ./import.sh        # one writer, no readers
  redisson run --semaphore encoders --permits 4 -- ./encode.sh in.mov  # at most 4 at once
  redisson run --lock account:1 --lock account:2 -- ./transfer.sh 1 2  # both or none
  redisson run --redlock --redis r1:6379 --redis r2:6379 --redis r3:6379 --lock job -- ./job
  redisson run --fenced --lock ledger -- sh -c './append.sh --token "$REDISSON_FENCING_TOKEN"'
  redisson run --cluster --redis redis://10.0.0.1:7000,10.0.0.2:7000 --lock job -- ./job`

// waitFlag is --wait: a duration, or forever when not set.
type waitFlag struct {
	d   time.Duration
	set bool
}

func (w *waitFlag) String() string {
	if w == nil || !w.set {
		return "forever"
	}
	return w.d.String()
}

func (w *waitFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "forever", "inf", "-1":
		w.set = false
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if d < 0 {
		return errors.New("must not be negative")
	}
	w.d, w.set = d, true
	return nil
}

func Command(args []string) int {
	fs := cliflag.NewFlagSet("run", "redisson run --lock NAME [--lock NAME...] [--fair | --read | --write] [--wait D] [--lease D] [connection flags] -- CMD [ARGS...]\n"+
		"  redisson run --redlock --redis URL --redis URL... --lock NAME [--fair | --read | --write] [--wait D] [--lease D] -- CMD [ARGS...]\n"+
		"  redisson run --fenced --lock NAME [--wait D] [--lease D] [connection flags] -- CMD [ARGS...]\n"+
		"  redisson run --semaphore NAME --permits N [--wait D] [connection flags] -- CMD [ARGS...]",
		runDescription, runExamples)
	var cf conn.Flags
	cf.Register(fs)
	var names nameList
	fs.Var(&names, "lock", "`NAME` of the lock (this or --semaphore is required); repeat it to take several\n"+
		"locks, all or none (a multi-lock)")
	fenced := fs.Bool("fenced", false, "with one --lock: a fenced lock (Redisson's RFencedLock); CMD gets the fencing token\n"+
		"in $"+FencingTokenEnv)
	redlock := fs.Bool("redlock", false, "with one --lock and several --redis servers: a RedLock, the lock NAME on every\n"+
		"server, held once a majority of them granted it")
	fair := fs.Bool("fair", false, "with --lock: a fair lock (Redisson's RFairLock: waiters acquire in the order they asked)")
	read := fs.Bool("read", false, "with --lock: the read lock of a read-write lock (RReadWriteLock; shared with other readers)")
	write := fs.Bool("write", false, "with --lock: the write lock of a read-write lock (RReadWriteLock; exclusive)")
	semName := fs.String("semaphore", "", "`NAME` of a semaphore (RSemaphore) to take one permit of, instead of --lock")
	permits := fs.Int("permits", 0, "with --semaphore (required): the semaphore's `N` permits, set when it does not exist yet")
	var wait waitFlag
	fs.Var(&wait, "wait", "how long to wait for the lock: a `duration`, 0 = try once, forever = wait forever")
	lease := fs.Duration("lease", 0, "hold the lock for at most this `duration` (at least 1ms), without watchdog;\n"+
		"leave it out for the watchdog")
	watchdog := fs.Duration("watchdog", 30*time.Second, "advanced: the watchdog's lease `duration`, renewed every third of it\n"+
		"(Redisson's lockWatchdogTimeout; at least 30ms; short values notice a lost lock sooner)")
	rest, code, done := cliflag.ParseFlags(fs, args, false)
	if done {
		return code
	}
	kind := lockPlain
	nKinds := 0
	for _, k := range []struct {
		set  bool
		kind lockKind
	}{{*fair, lockFair}, {*read, lockRead}, {*write, lockWrite}} {
		if k.set {
			kind = k.kind
			nKinds++
		}
	}
	if *fenced {
		kind = lockFenced
	}
	redisItems, _ := cf.Items()
	switch {
	case len(names) > 0 && *semName != "":
		return cliflag.UsageError(fs, "--lock and --semaphore are mutually exclusive")
	case nKinds > 1:
		return cliflag.UsageError(fs, "--fair, --read and --write are mutually exclusive")
	case *fenced && nKinds > 0:
		return cliflag.UsageError(fs, "--fenced and --fair, --read or --write are mutually exclusive")
	case *semName != "" && (nKinds > 0 || *fenced || *redlock):
		return cliflag.UsageError(fs, "--fair, --read, --write, --fenced and --redlock go with --lock, not --semaphore")
	case names.hasEmpty():
		return cliflag.UsageError(fs, "%s (--lock NAME)", cliflag.ErrNoName)
	case names.duplicate() != "":
		return cliflag.UsageError(fs, "lock %q given twice: a multi-lock takes each lock once", names.duplicate())
	case *fenced && len(names) > 1:
		return cliflag.UsageError(fs, "--fenced takes one --lock: a set of locks has no single fencing token")
	case *fenced && *redlock:
		return cliflag.UsageError(fs, "--fenced and --redlock are mutually exclusive: a RedLock's servers have unrelated tokens")
	case *redlock && len(names) > 1:
		return cliflag.UsageError(fs, "--redlock takes one --lock NAME: the lock NAME is taken on every --redis server")
	case *redlock && cf.Cluster:
		return cliflag.UsageError(fs, "--redlock needs independent servers, not a --cluster")
	case *redlock && len(redisItems) < 2:
		return cliflag.UsageError(fs, "--redlock needs at least 2 --redis servers (3 or 5 recommended), got %d", len(redisItems))
	case *semName != "" && cliflag.IsSet(fs, "lease"):
		return cliflag.UsageError(fs, "--lease goes with --lock: semaphore permits have no lease")
	case *semName != "" && *permits < 1:
		return cliflag.UsageError(fs, "--semaphore needs --permits N, at least 1")
	case *semName == "" && cliflag.IsSet(fs, "permits"):
		return cliflag.UsageError(fs, "--permits goes with --semaphore")
	case len(names) == 0 && *semName == "":
		return cliflag.UsageError(fs, "%s (--lock NAME or --semaphore NAME)", cliflag.ErrNoName)
	case len(rest) == 0:
		return cliflag.UsageError(fs, "no command given: redisson run --lock NAME -- CMD [ARGS...]")
	case *watchdog < 30*time.Millisecond:
		return cliflag.UsageError(fs, "--watchdog must be at least 30ms")
	}
	if code, ok := cliflag.CheckLease(fs, *lease); !ok {
		return code
	}

	// Catch the signals before anything can block, so that none is lost
	// between waiting and running.
	// A signal the shell made us ignore (SIGINT in a background job, SIGHUP
	// under nohup) stays ignored, for CMD too.
	sigs := make(chan os.Signal, 8)
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
	defer signal.Stop(sigs)

	var clients []*redisson.Client
	clientOpts := []redisson.Option{redisson.WithTimeout(cf.Timeout), redisson.WithWatchdogTimeout(*watchdog)}
	if *redlock {
		cs, closeAll, code := redLockClients(fs, &cf, clientOpts)
		if cs == nil {
			return code
		}
		defer closeAll()
		clients = cs
	} else {
		cn, code := conn.ConnectOrExit(context.Background(), fs, &cf, nil)
		if cn == nil {
			return code
		}
		defer cn.Close()
		client, err := redisson.New(cn.RDB, clientOpts...)
		if err != nil {
			return cliflag.Errorf(fs.Name(), "%v", err)
		}
		clients = []*redisson.Client{client}
	}
	// Before the go-redis clients (deferred above): Redisson's clients
	// close first.
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var (
		what, target, label string
		acquire             func(ctx context.Context) (heldLock, bool, error)
	)
	multi := *redlock || len(names) > 1
	switch {
	case *semName != "":
		what, target = "semaphore", *semName
		label = fmt.Sprintf("%s %q", what, target)
		acquire = acquirer(clients[0], kind, target, *permits, *lease, wait)
	case multi:
		m := newMultiLock(clients, kind, names, *redlock)
		what, target, label = m.what, m.lock.Name(), m.label
		acquire = m.acquirer(*lease, wait)
	default:
		what, target = kind.what(), names[0]
		label = fmt.Sprintf("%s %q", what, target)
		acquire = acquirer(clients[0], kind, target, *permits, *lease, wait)
	}

	// Wait for the lock in a goroutine, so that a signal can stop the wait.
	waitCtx, cancelWait := context.WithCancelCause(context.Background())
	defer cancelWait(nil)
	type acquired struct {
		hold heldLock
		ok   bool
		err  error
	}
	res := make(chan acquired, 1)
	go func() {
		var a acquired
		a.hold, a.ok, a.err = acquire(waitCtx)
		res <- a
	}()
	var (
		interrupted os.Signal
		a           acquired
	)
waiting:
	for {
		select {
		case s := <-sigs:
			if interrupted == nil {
				interrupted = s
				cancelWait(errors.New("interrupted by " + s.String()))
			}
		case a = <-res:
			break waiting
		}
	}
	if a.ok && interrupted != nil {
		// The lock came just as the signal did: give it back.
		if err := a.hold.Unlock(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s\n", fs.Name(), AboutObject(what, target, err))
		}
	}
	if interrupted != nil {
		fmt.Fprintf(os.Stderr, "%s: interrupted (%v) while waiting for %s\n", fs.Name(), interrupted, label)
		return cliflag.ExitSignalBase + SignalNumber(interrupted)
	}
	if a.err != nil {
		msg := AboutObject(what, target, a.err)
		if errors.Is(a.err, redisson.ErrWrongType) && !multi {
			msg += fmt.Sprintf(` ("redisson inspect %s" shows what it is)`, ShellQuote(target))
		}
		return cliflag.Errorf(fs.Name(), "%s", msg)
	}
	if !a.ok {
		switch {
		case *semName != "" && wait.d == 0:
			fmt.Fprintf(os.Stderr, "%s: semaphore %q has no permit available (--wait 0: tried once)\n", fs.Name(), target)
		case *semName != "":
			fmt.Fprintf(os.Stderr, "%s: semaphore %q: no permit acquired within %v\n", fs.Name(), target, wait.d)
		case *redlock && wait.d == 0:
			fmt.Fprintf(os.Stderr, "%s: %s not acquired: no majority of the servers granted it (--wait 0: tried once; none is kept)\n",
				fs.Name(), label)
		case multi && wait.d == 0:
			fmt.Fprintf(os.Stderr, "%s: %s not acquired: a lock of the set is held by another owner (--wait 0: tried once; none is kept)\n",
				fs.Name(), label)
		case multi:
			fmt.Fprintf(os.Stderr, "%s: %s not acquired within %v (none is kept)\n", fs.Name(), label, wait.d)
		case wait.d == 0:
			fmt.Fprintf(os.Stderr, "%s: %s is held by another owner (--wait 0: tried once)\n", fs.Name(), label)
		default:
			fmt.Fprintf(os.Stderr, "%s: %s not acquired within %v\n", fs.Name(), label, wait.d)
		}
		return cliflag.ExitNotAcq
	}
	hold := a.hold

	cmd := exec.Command(rest[0], rest[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if th, ok := hold.(interface{ Token() int64 }); ok {
		cmd.Env = withEnv(os.Environ(), FencingTokenEnv, strconv.FormatInt(th.Token(), 10))
	}
	if err := cmd.Start(); err != nil {
		if uerr := hold.Unlock(context.Background()); uerr != nil {
			fmt.Fprintf(os.Stderr, "%s: %s\n", fs.Name(), AboutObject(what, target, uerr))
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", fs.Name(), err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return cliflag.ExitNotFound
		}
		return cliflag.ExitCannotExec
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	lostC := hold.Done()
	lost := false
running:
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case <-lostC:
			lostC = nil
			lost = true
			fmt.Fprintf(os.Stderr, "%s: %s lost while the command was running: %s; sending the command SIGTERM\n",
				fs.Name(), label, lostReason(target, hold.Err()))
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-exited:
			break running
		}
	}
	if lost {
		if multi {
			// The members still held are released (Unlock returns the
			// loss already reported).
			_ = hold.Unlock(context.Background())
		}
		return cliflag.ExitLockLost
	}
	if err := hold.Unlock(context.Background()); err != nil {
		if errors.Is(err, redisson.ErrNotOwner) || errors.Is(err, redisson.ErrLockLost) || errors.Is(err, redisson.ErrLeaseExpired) {
			fmt.Fprintf(os.Stderr, "%s: %s was lost before the command finished (the unlock found another owner or none)\n",
				fs.Name(), label)
			return cliflag.ExitLockLost
		}
		if *semName != "" {
			return cliflag.Errorf(fs.Name(), "after the command: %s (the permit may not have been given back)", AboutObject(what, target, err))
		}
		return cliflag.Errorf(fs.Name(), "after the command: %s (the lease expires by itself)", AboutObject(what, target, err))
	}
	return exitCode(cmd.ProcessState)
}

// lostReason is why a hold ended, without what the message around it says
// already (`lock "X": ownership lost: ...`).
func lostReason(name string, err error) string {
	if err == nil {
		return "no reason given"
	}
	var oe *redisson.ObjectError
	if errors.As(err, &oe) && oe.Name == name {
		err = oe.Err
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, redisson.ErrLockLost.Error()+": ")
	msg = strings.TrimPrefix(msg, strconv.Quote(name)+": ")
	msg = strings.TrimPrefix(msg, name+": ") // a multi-lock's "[a,b]: member ..."
	return msg
}

// shellQuote quotes s for a shell command line when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// exitCode is the shell's view of how a process ended: its exit code, or
// 128+n when signal n killed it.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return cliflag.ExitSignalBase + int(ws.Signal())
	}
	if c := ps.ExitCode(); c >= 0 {
		return c
	}
	return cliflag.ExitError
}

func SignalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return int(syscall.SIGINT)
}

// lockKind is which lock run takes with --lock.
type lockKind int

const (
	lockPlain lockKind = iota
	lockFair
	lockRead
	lockWrite
	lockFenced
)

func (k lockKind) what() string {
	switch k {
	case lockFair:
		return "fair lock"
	case lockRead:
		return "read lock"
	case lockWrite:
		return "write lock"
	case lockFenced:
		return "fenced lock"
	}
	return "lock"
}

// heldLock is what run holds while CMD runs: a lock's hold or a
// semaphore's permit.
type heldLock interface {
	Done() <-chan struct{}
	Err() error
	Unlock(ctx context.Context) error
}

// permitHold is a semaphore permit as a heldLock: it has no lease, so it is
// never lost.
type permitHold struct{ p *semaphore.Permits }

func (permitHold) Done() <-chan struct{}              { return nil }
func (permitHold) Err() error                         { return nil }
func (h permitHold) Unlock(ctx context.Context) error { return h.p.Release(ctx) }

// acquirer returns the function that takes what run holds: ok is false
// when it was not acquired within wait.
func acquirer(client *redisson.Client, kind lockKind, name string, permits int, lease time.Duration,
	wait waitFlag) func(ctx context.Context) (heldLock, bool, error) {
	if permits > 0 {
		sem := client.Semaphore(name)
		return func(ctx context.Context) (heldLock, bool, error) {
			if _, err := sem.TrySetPermits(ctx, permits); err != nil {
				return nil, false, err
			}
			if !wait.set {
				p, err := sem.AcquirePermits(ctx, 1)
				if err != nil {
					return nil, false, err
				}
				return permitHold{p}, true, nil
			}
			p, ok, err := sem.TryAcquirePermits(ctx, 1, semaphore.WithWait(wait.d))
			if !ok || err != nil {
				return nil, false, err
			}
			return permitHold{p}, true, nil
		}
	}
	var opts []locks.Option
	if lease > 0 {
		opts = append(opts, locks.WithLease(lease))
	}
	switch kind {
	case lockFenced:
		l := client.FencedLock(name)
		return take(l.Lock, l.TryLock, opts, wait)
	case lockFair:
		l := client.FairLock(name)
		return take(l.Lock, l.TryLock, opts, wait)
	case lockRead, lockWrite:
		rw := client.ReadWriteLock(name)
		l := rw.WriteLock()
		if kind == lockRead {
			l = rw.ReadLock()
		}
		return take(l.Lock, l.TryLock, opts, wait)
	}
	l := client.Lock(name)
	return take(l.Lock, l.TryLock, opts, wait)
}

// take returns the function that takes a lock of any kind (or a
// multi-lock) with opts: Lock without --wait, else TryLock WithWait. A hold
// not taken is a nil heldLock, not a nil *Hold inside a non-nil one.
func take[H heldLock](lock func(context.Context, ...locks.Option) (H, error),
	try func(context.Context, ...locks.Option) (H, bool, error),
	opts []locks.Option, wait waitFlag) func(ctx context.Context) (heldLock, bool, error) {
	return func(ctx context.Context) (heldLock, bool, error) {
		if !wait.set {
			h, err := lock(ctx, opts...)
			if err != nil {
				return nil, false, err
			}
			return h, true, nil
		}
		h, ok, err := try(ctx, append(slices.Clip(opts), locks.WithWait(wait.d))...)
		if !ok {
			return nil, false, err
		}
		return h, true, nil
	}
}

// aboutObject is the message of an error about the lock or semaphore: the
// library's errors already name it (lock "X": try lock: ...); others get
// what and the name added.
func AboutObject(what, name string, err error) string {
	msg := err.Error()
	if !strings.Contains(msg, strconv.Quote(name)) {
		msg = fmt.Sprintf("%s %q: %s", what, name, msg)
	}
	return msg
}
