package run

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
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
