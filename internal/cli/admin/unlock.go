package admin

import (
	"context"
	"fmt"
	"os"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/inspect"
)

const unlockDescription = `
Force-unlocks the lock NAME whoever holds it: Redisson's forceUnlock, which
deletes the lock's key and publishes "0" on redisson_lock__channel:{NAME} so
that one waiter wakes up. The holder is not told at once: a Go holder notices
at its next watchdog renewal (its Hold's Done closes, Err wraps
ErrLockLost), a Java holder's next unlock fails; "redisson run" then stops
its command (exit 76).

Only force-unlock is possible from the command line: a lock belongs to an
owner (a Java thread, or the Hold a Go process got from Lock) inside the
process that took it, and only that owner can release one hold. Without
--force nothing is done and the exit code is 2.

Only plain locks (Redisson RLock, the "lock" kind of "redisson inspect", and
the "spin lock" and "non-reentrant lock" on the same hash) are
force-unlocked; anything else under NAME (a read-write lock, fair lock,
semaphore, latch, rate limiter, an integer string that may be one of those
or an atomic long, ...) is left alone (exit 1), since deleting it would not
wake its waiters or would destroy its state.

Prints whether a lock was deleted. Exit codes: 0 = deleted, or there was no
lock (nothing to do); 1 = error or NAME is not a plain lock; 2 = usage.`

const unlockExamples = `  redisson unlock --force nightly-report
  redisson unlock --force --redis redis://:secret@10.0.0.5:6379 orders:42
  redisson inspect orders:42 && redisson unlock --force orders:42`

func Unlock(args []string) int {
	fs := cliflag.NewFlagSet("unlock", "redisson unlock --force [connection flags] NAME", unlockDescription, unlockExamples)
	var cf conn.Flags
	cf.Register(fs)
	force := fs.Bool("force", false, "delete the lock whoever holds it (required)")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	if !*force {
		fmt.Fprintf(os.Stderr, `%s: only "redisson unlock --force NAME" is possible from the command line.
A lock is released by its owner, which lives in the process that took it (a
Java thread, or the Hold a Go process got from Lock); the CLI is not that owner.
--force deletes the lock whoever holds it, as Redisson's forceUnlock does.
`, fs.Name())
		return cliflag.ExitUsage
	}
	name, code := cliflag.OneName(fs, pos)
	if name == "" {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout)
	defer cancel()
	cn, code := conn.ConnectOrExit(ctx, fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()

	// Refuse to delete what is not a plain lock: forceUnlock's DEL would
	// remove a semaphore, latch or rate limiter, and a read-write or fair
	// lock's waiters listen elsewhere.
	rep, err := inspect.Inspect(ctx, cn.RDB, name)
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	if classify.Base(rep.Kind) != classify.Lock && rep.Kind != classify.None {
		return cliflag.Errorf(fs.Name(), "%q holds %s, not a plain lock: not force-unlocking it", name, inspect.DescribeKind(rep))
	}
	client, err := redisson.New(cn.RDB, redisson.WithTimeout(cf.Timeout))
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	defer client.Close()
	deleted, err := client.Lock(name).ForceUnlock(ctx)
	if err != nil {
		return cliflag.Errorf(fs.Name(), "force-unlock of %q: %v", name, err)
	}
	if deleted {
		holders := ""
		if len(rep.Holders) > 0 {
			holders = " (held by " + inspect.HolderText(rep.Holders[0])
			if len(rep.Holders) > 1 {
				holders += fmt.Sprintf(" and %d more", len(rep.Holders)-1)
			}
			holders += ")"
		}
		fmt.Printf("lock %q force-unlocked: deleted%s, waiters notified\n", name, holders)
	} else {
		fmt.Printf("lock %q was not locked: nothing deleted\n", name)
	}
	return cliflag.ExitOK
}
