package admin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/latch"
)

const latchDescription = `
Works the count-down latch NAME, Redisson's RCountDownLatch (a Java service
calling redisson.getCountDownLatch(NAME) uses the same latch):

  set N    arms the latch with count N (at least 1) if it is open
           (trySetCount); exit 1 when it is already armed, changing nothing
  down     counts down by one (countDown); the count-down that reaches zero
           opens the latch and wakes every waiter; on an open latch it does
           nothing
  await    waits until the count reaches zero (await): exit 0 then, at once
           when the latch is open or was never set; with --wait D, exit 75
           when D passes first; SIGINT/SIGTERM stop the wait (130/143)
  count    prints the count (0: open)

--timeout is the connection timeout, as for every command (--conn-timeout,
its old name here, still works). Before, await's timeout was --timeout: so
that old scripts keep working, "await --timeout D" without --wait still
waits at most D (with a warning on stderr); write --wait D.`

const latchExamples = `  redisson latch deploy-ready set 3
  redisson latch deploy-ready down                  # each of 3 services, when ready
  redisson latch deploy-ready await --wait 5m && ./deploy.sh
  redisson latch deploy-ready count`

// Latch is "redisson latch".
func Latch(args []string) int {
	fs := cliflag.NewFlagSet("latch", "redisson latch [connection flags] NAME set N | down | await [--wait D] | count",
		latchDescription, latchExamples)
	var cf conn.Flags
	cf.Register(fs)
	// --conn-timeout: the connection timeout's old name here.
	fs.Var(durationAlias{&cf.Timeout}, "conn-timeout", "the same as --timeout")
	cliflag.HideFlag(fs, "conn-timeout")
	timeout := fs.Duration("wait", 0, "await: give up after this `duration` with exit code 75 (default: wait forever)")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	if cliflag.IsSet(fs, "timeout") && !cliflag.IsSet(fs, "wait") && !cliflag.IsSet(fs, "conn-timeout") && len(pos) > 1 && pos[1] == "await" {
		// The old form "await --timeout D": D was await's timeout.
		fmt.Fprintf(os.Stderr, "%s: warning: \"await --timeout D\" is read as before, \"await --wait D\"; write --wait (--timeout is the connection timeout)\n", fs.Name())
		def, _ := time.ParseDuration(fs.Lookup("timeout").DefValue)
		wait := cf.Timeout
		cf.Timeout = def
		if err := fs.Set("wait", wait.String()); err != nil {
			return cliflag.UsageError(fs, "%v", err)
		}
	}
	name, action, count, code, ok := latchArgs(fs, pos, *timeout)
	if !ok {
		return code
	}

	sigs := make(chan os.Signal, 2)
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
	defer signal.Stop(sigs)

	cn, code := conn.ConnectOrExit(context.Background(), fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()
	client, err := redisson.New(cn.RDB, redisson.WithTimeout(cf.Timeout))
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	defer client.Close()
	l := client.CountDownLatch(name)
	if action == "await" {
		return latchAwait(fs.Name(), l, name, *timeout, sigs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout)
	defer cancel()
	return latchOnce(ctx, fs.Name(), l, name, action, count)
}

// latchArgs checks latch's NAME, action and its argument; ok false with
// the exit code of a usage error.
func latchArgs(fs *flag.FlagSet, pos []string, timeout time.Duration) (name, action string, count int64, code int, ok bool) {
	if len(pos) == 0 || pos[0] == "" {
		return "", "", 0, cliflag.UsageError(fs, "a latch name is required and must not be empty"), false
	}
	if len(pos) < 2 {
		return "", "", 0, cliflag.UsageError(fs, "no action given: set N, down, await or count"), false
	}
	name, action = pos[0], pos[1]
	wantArgs := 2
	switch action {
	case "set":
		wantArgs = 3
		if len(pos) < 3 {
			return "", "", 0, cliflag.UsageError(fs, "set needs the count: redisson latch NAME set N"), false
		}
		n, err := strconv.ParseInt(pos[2], 10, 64)
		if err != nil || n < 1 {
			return "", "", 0, cliflag.UsageError(fs, "set: the count must be a whole number of at least 1, got %q", pos[2]), false
		}
		count = n
	case "down", "await", "count":
	default:
		return "", "", 0, cliflag.UsageError(fs, "unknown action %q: set N, down, await or count", action), false
	}
	if len(pos) > wantArgs {
		return "", "", 0, cliflag.UsageError(fs, "unexpected arguments after %q: %q", action, pos[wantArgs:]), false
	}
	if cliflag.IsSet(fs, "wait") && (action != "await" || timeout <= 0) {
		if action != "await" {
			return "", "", 0, cliflag.UsageError(fs, "--wait goes with await"), false
		}
		return "", "", 0, cliflag.UsageError(fs, "--wait must be positive (got %v); leave it out to wait forever", timeout), false
	}
	return name, action, count, cliflag.ExitOK, true
}

// latchOnce runs set, down or count.
func latchOnce(ctx context.Context, prog string, l *latch.Latch, name, action string, count int64) int {
	about := func(err error) string { return cliflag.AboutObject("latch", name, err) }
	switch action {
	case "set":
		ok, err := l.TrySetCount(ctx, count)
		if err != nil {
			return cliflag.Errorf(prog, "%s", about(err))
		}
		if !ok {
			n, err := l.Count(ctx)
			if err != nil {
				return cliflag.Errorf(prog, "latch %q is already set; nothing changed", name)
			}
			return cliflag.Errorf(prog, "latch %q is already set (count %d); nothing changed", name, n)
		}
	case "down":
		if err := l.CountDown(ctx); err != nil {
			return cliflag.Errorf(prog, "%s", about(err))
		}
	case "count":
		n, err := l.Count(ctx)
		if err != nil {
			return cliflag.Errorf(prog, "%s", about(err))
		}
		fmt.Println(n)
	}
	return cliflag.ExitOK
}

// latchAwait awaits zero in a goroutine, so that a signal can stop it.
func latchAwait(prog string, l *latch.Latch, name string, timeout time.Duration, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		ok  bool
		err error
	}
	res := make(chan result, 1)
	go func() {
		var opts []latch.Option
		if timeout > 0 {
			opts = append(opts, latch.WithTimeout(timeout))
		}
		ok, err := l.Await(ctx, opts...)
		res <- result{ok, err}
	}()
	select {
	case s := <-sigs:
		cancel()
		<-res
		fmt.Fprintf(os.Stderr, "%s: interrupted (%v) while waiting for latch %q\n", prog, s, name)
		return cliflag.ExitSignalBase + cliflag.SignalNumber(s)
	case r := <-res:
		switch {
		case r.err != nil && !errors.Is(r.err, context.Canceled):
			return cliflag.Errorf(prog, "%s", cliflag.AboutObject("latch", name, r.err))
		case !r.ok:
			fmt.Fprintf(os.Stderr, "%s: latch %q did not reach zero within %v\n", prog, name, timeout)
			return cliflag.ExitNotAcq
		}
		return cliflag.ExitOK
	}
}

// durationAlias is a second flag name setting the same duration.
type durationAlias struct{ d *time.Duration }

func (a durationAlias) String() string {
	if a.d == nil {
		return ""
	}
	return a.d.String()
}

func (a durationAlias) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("parse error")
	}
	*a.d = d
	return nil
}
