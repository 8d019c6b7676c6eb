package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rlock"
)

const runDescription = `
Acquires the lock NAME, runs CMD with stdin, stdout and stderr passed through,
releases the lock when CMD ends and exits with CMD's exit code (128+n when CMD
was killed by signal n). The lock is a Redisson RLock: a Java service calling
redisson.getLock(NAME) contends on the same lock.

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
lease ran out - run sends CMD SIGTERM, waits for it to exit and exits 76. A
watchdog lock notices a deletion at its next renewal (within --watchdog/3).

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

func cmdRun(args []string) int {
	fs := newFlagSet("run", "redisson run --lock NAME [--wait D] [--lease D] [connection flags] -- CMD [ARGS...]",
		runDescription, runExamples)
	var cf connFlags
	cf.register(fs)
	name := fs.String("lock", "", "`NAME` of the lock (required)")
	var wait waitFlag
	fs.Var(&wait, "wait", "how long to wait for the lock: a `duration`, 0 = try once, forever = wait forever")
	lease := fs.Duration("lease", 0, "hold the lock for at most this `duration` (at least 1ms), without watchdog;\n"+
		"leave it out for the watchdog")
	watchdog := fs.Duration("watchdog", 30*time.Second, "advanced: the watchdog's lease `duration`, renewed every third of it\n"+
		"(Redisson's lockWatchdogTimeout; at least 30ms; short values notice a lost lock sooner)")
	rest, code, done := parseFlags(fs, args, false)
	if done {
		return code
	}
	switch {
	case *name == "":
		return usageError(fs, "%s", errNoName)
	case len(rest) == 0:
		return usageError(fs, "no command given: redisson run --lock NAME -- CMD [ARGS...]")
	case *watchdog < 30*time.Millisecond:
		return usageError(fs, "--watchdog must be at least 30ms")
	}
	if code, ok := checkLease(fs, *lease); !ok {
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

	cn, code := connectOrExit(context.Background(), fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()
	client, err := redisson.New(cn.rdb, redisson.WithTimeout(cf.timeout), redisson.WithWatchdogTimeout(*watchdog))
	if err != nil {
		return errorf(fs.Name(), "%v", err)
	}
	defer client.Close()
	lock := client.Lock(*name)

	// Wait for the lock in a goroutine, so that a signal can stop the wait.
	waitCtx, cancelWait := context.WithCancelCause(context.Background())
	defer cancelWait(nil)
	type acquired struct {
		hold *rlock.Hold
		ok   bool
		err  error
	}
	res := make(chan acquired, 1)
	go func() {
		var opts []rlock.Option
		if *lease > 0 {
			opts = append(opts, rlock.WithLease(*lease))
		}
		var a acquired
		if wait.set {
			if wait.d > 0 {
				opts = append(opts, rlock.WithWait(wait.d))
			}
			a.hold, a.ok, a.err = lock.TryLock(waitCtx, opts...)
		} else {
			a.hold, a.err = lock.Lock(waitCtx, opts...)
			a.ok = a.err == nil
		}
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
			fmt.Fprintf(os.Stderr, "%s: %s\n", fs.Name(), aboutLock(*name, err))
		}
	}
	if interrupted != nil {
		fmt.Fprintf(os.Stderr, "%s: interrupted (%v) while waiting for lock %q\n", fs.Name(), interrupted, *name)
		return exitSignalBase + signalNumber(interrupted)
	}
	if a.err != nil {
		msg := aboutLock(*name, a.err)
		if errors.Is(a.err, redisson.ErrWrongType) {
			msg += fmt.Sprintf(` ("redisson inspect %s" shows what it is)`, shellQuote(*name))
		}
		return errorf(fs.Name(), "%s", msg)
	}
	if !a.ok {
		if wait.d == 0 {
			fmt.Fprintf(os.Stderr, "%s: lock %q is held by another owner (--wait 0: tried once)\n", fs.Name(), *name)
		} else {
			fmt.Fprintf(os.Stderr, "%s: lock %q not acquired within %v\n", fs.Name(), *name, wait.d)
		}
		return exitNotAcq
	}
	hold := a.hold

	cmd := exec.Command(rest[0], rest[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		if uerr := hold.Unlock(context.Background()); uerr != nil {
			fmt.Fprintf(os.Stderr, "%s: %s\n", fs.Name(), aboutLock(*name, uerr))
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", fs.Name(), err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return exitNotFound
		}
		return exitCannotExec
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
			fmt.Fprintf(os.Stderr, "%s: lock %q lost while the command was running: %s; sending the command SIGTERM\n",
				fs.Name(), *name, lostReason(*name, hold.Err()))
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-exited:
			break running
		}
	}
	if lost {
		return exitLockLost
	}
	if err := hold.Unlock(context.Background()); err != nil {
		if errors.Is(err, redisson.ErrNotOwner) || errors.Is(err, redisson.ErrLockLost) {
			fmt.Fprintf(os.Stderr, "%s: lock %q was lost before the command finished (the unlock found another owner or none)\n",
				fs.Name(), *name)
			return exitLockLost
		}
		return errorf(fs.Name(), "after the command: %s (the lease expires by itself)", aboutLock(*name, err))
	}
	return exitCode(cmd.ProcessState)
}

// aboutLock is the message of a lock error: the library's errors already
// name the lock (lock "X": try lock: ...); others get the name added.
func aboutLock(name string, err error) string {
	msg := err.Error()
	if !strings.Contains(msg, strconv.Quote(name)) {
		msg = fmt.Sprintf("lock %q: %s", name, msg)
	}
	return msg
}

// lostReason is why a hold ended, without what the message around it says
// already (redisson: lock ownership lost: "X": ...).
func lostReason(name string, err error) string {
	if err == nil {
		return "no reason given"
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, redisson.ErrLockLost.Error()+": ")
	msg = strings.TrimPrefix(msg, strconv.Quote(name)+": ")
	return msg
}

// shellQuote quotes s for a shell command line when it needs it.
func shellQuote(s string) string {
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
		return exitSignalBase + int(ws.Signal())
	}
	if c := ps.ExitCode(); c >= 0 {
		return c
	}
	return exitError
}

func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return int(syscall.SIGINT)
}
