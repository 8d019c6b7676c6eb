package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
)

// options are run's flags.
type options struct {
	cf                                 conn.Flags
	names                              nameList
	fenced, redlock, fair, read, write *bool
	semName                            *string
	permits                            *int
	wait                               waitFlag
	lease, watchdog                    *time.Duration
}

// register defines run's flags on fs.
func (o *options) register(fs *flag.FlagSet) {
	o.cf.Register(fs)
	fs.Var(&o.names, "lock", "`NAME` of the lock (this or --semaphore is required); repeat it to take several\n"+
		"locks, all or none (a multi-lock)")
	o.fenced = fs.Bool("fenced", false, "with one --lock: a fenced lock (Redisson's RFencedLock); CMD gets the fencing token\n"+
		"in $"+FencingTokenEnv)
	o.redlock = fs.Bool("redlock", false, "with one --lock and several --redis servers: a RedLock, the lock NAME on every\n"+
		"server, held once a majority of them granted it")
	o.fair = fs.Bool("fair", false, "with --lock: a fair lock (Redisson's RFairLock: waiters acquire in the order they asked)")
	o.read = fs.Bool("read", false, "with --lock: the read lock of a read-write lock (RReadWriteLock; shared with other readers)")
	o.write = fs.Bool("write", false, "with --lock: the write lock of a read-write lock (RReadWriteLock; exclusive)")
	o.semName = fs.String("semaphore", "", "`NAME` of a semaphore (RSemaphore) to take one permit of, instead of --lock")
	o.permits = fs.Int("permits", 0, "with --semaphore (required): the semaphore's `N` permits, set when it does not exist yet")
	fs.Var(&o.wait, "wait", "how long to wait for the lock: a `duration`, 0 = try once, forever = wait forever")
	o.lease = fs.Duration("lease", 0, "hold the lock for at most this `duration` (at least 1ms), without watchdog;\n"+
		"leave it out for the watchdog")
	o.watchdog = fs.Duration("watchdog", redisson.DefaultWatchdogTimeout, "advanced: the watchdog's lease `duration`, renewed every third of it\n"+
		"(Redisson's lockWatchdogTimeout; at least 30ms; short values notice a lost lock sooner)")
}

// kind is the lock kind the flags ask for, and how many of --fair, --read
// and --write were given.
func (o *options) kind() (lockKind, int) {
	kind := lockPlain
	nKinds := 0
	for _, k := range []struct {
		set  bool
		kind lockKind
	}{{*o.fair, lockFair}, {*o.read, lockRead}, {*o.write, lockWrite}} {
		if k.set {
			kind = k.kind
			nKinds++
		}
	}
	if *o.fenced {
		kind = lockFenced
	}
	return kind, nKinds
}

// check refuses flags that do not go together; ok false with the exit code.
func (o *options) check(fs *flag.FlagSet, rest []string) (int, bool) {
	_, nKinds := o.kind()
	names, sem := o.names, *o.semName
	redisItems, _ := o.cf.Items()
	switch {
	case len(names) > 0 && sem != "":
		return cliflag.UsageError(fs, "--lock and --semaphore are mutually exclusive"), false
	case nKinds > 1:
		return cliflag.UsageError(fs, "--fair, --read and --write are mutually exclusive"), false
	case *o.fenced && nKinds > 0:
		return cliflag.UsageError(fs, "--fenced and --fair, --read or --write are mutually exclusive"), false
	case sem != "" && (nKinds > 0 || *o.fenced || *o.redlock):
		return cliflag.UsageError(fs, "--fair, --read, --write, --fenced and --redlock go with --lock, not --semaphore"), false
	case names.hasEmpty():
		return cliflag.UsageError(fs, "%s (--lock NAME)", cliflag.ErrNoName), false
	case names.duplicate() != "":
		return cliflag.UsageError(fs, "lock %q given twice: a multi-lock takes each lock once", names.duplicate()), false
	case *o.fenced && len(names) > 1:
		return cliflag.UsageError(fs, "--fenced takes one --lock: a set of locks has no single fencing token"), false
	case *o.fenced && *o.redlock:
		return cliflag.UsageError(fs, "--fenced and --redlock are mutually exclusive: a RedLock's servers have unrelated tokens"), false
	case *o.redlock && len(names) > 1:
		return cliflag.UsageError(fs, "--redlock takes one --lock NAME: the lock NAME is taken on every --redis server"), false
	case *o.redlock && o.cf.Cluster:
		return cliflag.UsageError(fs, "--redlock needs independent servers, not a --cluster"), false
	case *o.redlock && len(redisItems) < 2:
		return cliflag.UsageError(fs, "--redlock needs at least 2 --redis servers (3 or 5 recommended), got %d", len(redisItems)), false
	case sem != "" && cliflag.IsSet(fs, "lease"):
		return cliflag.UsageError(fs, "--lease goes with --lock: semaphore permits have no lease"), false
	case sem != "" && *o.permits < 1:
		return cliflag.UsageError(fs, "--semaphore needs --permits N, at least 1"), false
	case sem == "" && cliflag.IsSet(fs, "permits"):
		return cliflag.UsageError(fs, "--permits goes with --semaphore"), false
	case len(names) == 0 && sem == "":
		return cliflag.UsageError(fs, "%s (--lock NAME or --semaphore NAME)", cliflag.ErrNoName), false
	case len(rest) == 0:
		return cliflag.UsageError(fs, "no command given: redisson run --lock NAME -- CMD [ARGS...]"), false
	case *o.watchdog < 30*time.Millisecond:
		return cliflag.UsageError(fs, "--watchdog must be at least 30ms"), false
	}
	return cliflag.CheckLease(fs, *o.lease)
}

// Command is "redisson run".
func Command(args []string) int {
	fs := cliflag.NewFlagSet("run", "redisson run --lock NAME [--lock NAME...] [--fair | --read | --write] [--wait D] [--lease D] [connection flags] -- CMD [ARGS...]\n"+
		"  redisson run --redlock --redis URL --redis URL... --lock NAME [--fair | --read | --write] [--wait D] [--lease D] -- CMD [ARGS...]\n"+
		"  redisson run --fenced --lock NAME [--wait D] [--lease D] [connection flags] -- CMD [ARGS...]\n"+
		"  redisson run --semaphore NAME --permits N [--wait D] [connection flags] -- CMD [ARGS...]",
		runDescription, runExamples)
	var o options
	o.register(fs)
	rest, code, done := cliflag.ParseFlags(fs, args, false)
	if done {
		return code
	}
	if code, ok := o.check(fs, rest); !ok {
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

	clients, closeAll, code := o.clients(fs)
	if clients == nil {
		return code
	}
	defer closeAll()
	j := o.job(fs.Name(), clients)
	hold, code, ok := j.take(sigs)
	if !ok {
		return code
	}
	return j.run(sigs, hold, rest)
}

// clients connects: to every --redis server for a RedLock, else to the
// one deployment. closeAll closes Redisson's clients, then go-redis'.
func (o *options) clients(fs *flag.FlagSet) (clients []*redisson.Client, closeAll func(), code int) {
	clientOpts := []redisson.Option{redisson.WithTimeout(o.cf.Timeout), redisson.WithWatchdogTimeout(*o.watchdog)}
	closeConns := func() {}
	if *o.redlock {
		cs, closeRed, code := redLockClients(fs, &o.cf, clientOpts)
		if cs == nil {
			return nil, nil, code
		}
		clients, closeConns = cs, closeRed
	} else {
		cn, code := conn.ConnectOrExit(context.Background(), fs, &o.cf, nil)
		if cn == nil {
			return nil, nil, code
		}
		client, err := redisson.New(cn.RDB, clientOpts...)
		if err != nil {
			cn.Close()
			return nil, nil, cliflag.Errorf(fs.Name(), "%v", err)
		}
		clients, closeConns = []*redisson.Client{client}, func() { cn.Close() }
	}
	return clients, func() {
		for _, c := range clients {
			c.Close()
		}
		closeConns()
	}, cliflag.ExitOK
}

// job is what run holds while CMD runs, and how it tells about it.
type job struct {
	prog                string
	what, target, label string
	acquire             func(ctx context.Context) (heldLock, bool, error)
	multi, sem, redlock bool
	wait                waitFlag
}

// job is the lock, multi-lock or semaphore permit the flags name.
func (o *options) job(prog string, clients []*redisson.Client) *job {
	kind, _ := o.kind()
	j := &job{prog: prog, multi: *o.redlock || len(o.names) > 1, sem: *o.semName != "", redlock: *o.redlock, wait: o.wait}
	switch {
	case j.sem:
		j.what, j.target = "semaphore", *o.semName
		j.label = fmt.Sprintf("%s %q", j.what, j.target)
		j.acquire = acquirer(clients[0], kind, j.target, *o.permits, *o.lease, o.wait)
	case j.multi:
		m := newMultiLock(clients, kind, o.names, *o.redlock)
		j.what, j.target, j.label = m.what, m.lock.Name(), m.label
		j.acquire = m.acquirer(*o.lease, o.wait)
	default:
		j.what, j.target = kind.what(), o.names[0]
		j.label = fmt.Sprintf("%s %q", j.what, j.target)
		j.acquire = acquirer(clients[0], kind, j.target, *o.permits, *o.lease, o.wait)
	}
	return j
}

// take waits for the lock in a goroutine, so that a signal can stop the
// wait; ok false with the exit code when it is not held.
func (j *job) take(sigs <-chan os.Signal) (heldLock, int, bool) {
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
		a.hold, a.ok, a.err = j.acquire(waitCtx)
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
			fmt.Fprintf(os.Stderr, "%s: %s\n", j.prog, cliflag.AboutObject(j.what, j.target, err))
		}
	}
	if interrupted != nil {
		fmt.Fprintf(os.Stderr, "%s: interrupted (%v) while waiting for %s\n", j.prog, interrupted, j.label)
		return nil, cliflag.ExitSignalBase + cliflag.SignalNumber(interrupted), false
	}
	if a.err != nil {
		msg := cliflag.AboutObject(j.what, j.target, a.err)
		if errors.Is(a.err, redisson.ErrWrongType) && !j.multi {
			msg += fmt.Sprintf(` ("redisson inspect %s" shows what it is)`, cliflag.ShellQuote(j.target))
		}
		return nil, cliflag.Errorf(j.prog, "%s", msg), false
	}
	if !a.ok {
		j.notAcquired()
		return nil, cliflag.ExitNotAcq, false
	}
	return a.hold, cliflag.ExitOK, true
}

// notAcquired says why the wait ended without the lock.
func (j *job) notAcquired() {
	prog, label, d := j.prog, j.label, j.wait.d
	switch {
	case j.sem && d == 0:
		fmt.Fprintf(os.Stderr, "%s: semaphore %q has no permit available (--wait 0: tried once)\n", prog, j.target)
	case j.sem:
		fmt.Fprintf(os.Stderr, "%s: semaphore %q: no permit acquired within %v\n", prog, j.target, d)
	case j.redlock && d == 0:
		fmt.Fprintf(os.Stderr, "%s: %s not acquired: no majority of the servers granted it (--wait 0: tried once; none is kept)\n",
			prog, label)
	case j.multi && d == 0:
		fmt.Fprintf(os.Stderr, "%s: %s not acquired: a lock of the set is held by another owner (--wait 0: tried once; none is kept)\n",
			prog, label)
	case j.multi:
		fmt.Fprintf(os.Stderr, "%s: %s not acquired within %v (none is kept)\n", prog, label, d)
	case d == 0:
		fmt.Fprintf(os.Stderr, "%s: %s is held by another owner (--wait 0: tried once)\n", prog, label)
	default:
		fmt.Fprintf(os.Stderr, "%s: %s not acquired within %v\n", prog, label, d)
	}
}

// run runs CMD while hold is held, passing signals on; CMD gets SIGTERM
// when the hold is lost.
func (j *job) run(sigs <-chan os.Signal, hold heldLock, rest []string) int {
	cmd := exec.Command(rest[0], rest[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if th, ok := hold.(interface{ Token() int64 }); ok {
		cmd.Env = withEnv(os.Environ(), FencingTokenEnv, strconv.FormatInt(th.Token(), 10))
	}
	if err := cmd.Start(); err != nil {
		if uerr := hold.Unlock(context.Background()); uerr != nil {
			fmt.Fprintf(os.Stderr, "%s: %s\n", j.prog, cliflag.AboutObject(j.what, j.target, uerr))
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", j.prog, err)
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
				j.prog, j.label, lostReason(j.target, hold.Err()))
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-exited:
			break running
		}
	}
	if lost {
		return j.afterLoss(hold)
	}
	if code, ok := j.release(hold); !ok {
		return code
	}
	return exitCode(cmd.ProcessState)
}

// afterLoss releases the members of a multi-lock still held (Unlock
// returns the loss already reported).
func (j *job) afterLoss(hold heldLock) int {
	if j.multi {
		_ = hold.Unlock(context.Background())
	}
	return cliflag.ExitLockLost
}

// release gives the hold back after CMD; ok false with the exit code when
// that failed.
func (j *job) release(hold heldLock) (int, bool) {
	err := hold.Unlock(context.Background())
	switch {
	case err == nil:
		return cliflag.ExitOK, true
	case errors.Is(err, redisson.ErrNotOwner) || errors.Is(err, redisson.ErrLockLost) || errors.Is(err, redisson.ErrLeaseExpired):
		fmt.Fprintf(os.Stderr, "%s: %s was lost before the command finished (the unlock found another owner or none)\n",
			j.prog, j.label)
		return cliflag.ExitLockLost, false
	case j.sem:
		return cliflag.Errorf(j.prog, "after the command: %s (the permit may not have been given back)", cliflag.AboutObject(j.what, j.target, err)), false
	}
	return cliflag.Errorf(j.prog, "after the command: %s (the lease expires by itself)", cliflag.AboutObject(j.what, j.target, err)), false
}
