package main

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
           when the latch is open or was never set; with --timeout D, exit 75
           when D passes first; SIGINT/SIGTERM stop the wait (130/143)
  count    prints the count (0: open)

Here --timeout is await's timeout; the connection timeout is --conn-timeout.`

const latchExamples = `  redisson latch deploy-ready set 3
  redisson latch deploy-ready down                  # each of 3 services, when ready
  redisson latch deploy-ready await --timeout 5m && ./deploy.sh
  redisson latch deploy-ready count`

func cmdLatch(args []string) int {
	fs := newFlagSet("latch", "redisson latch [connection flags] NAME set N | down | await [--timeout D] | count",
		latchDescription, latchExamples)
	// The connection flags, with --timeout renamed --conn-timeout: --timeout is await's.
	var cf connFlags
	conn := flag.NewFlagSet("", flag.ContinueOnError)
	cf.register(conn)
	conn.VisitAll(func(f *flag.Flag) {
		if f.Name == "timeout" {
			fs.Var(f.Value, "conn-timeout", f.Usage)
			return
		}
		fs.Var(f.Value, f.Name, f.Usage)
	})
	timeout := fs.Duration("timeout", 0, "await: give up after this `duration` with exit code 75 (default: wait forever)")
	pos, code, done := parseFlags(fs, args, true)
	if done {
		return code
	}
	if len(pos) == 0 || pos[0] == "" {
		return usageError(fs, "a latch name is required and must not be empty")
	}
	if len(pos) < 2 {
		return usageError(fs, "no action given: set N, down, await or count")
	}
	name, action := pos[0], pos[1]
	var count int64
	wantArgs := 2
	switch action {
	case "set":
		wantArgs = 3
		if len(pos) < 3 {
			return usageError(fs, "set needs the count: redisson latch NAME set N")
		}
		n, err := strconv.ParseInt(pos[2], 10, 64)
		if err != nil || n < 1 {
			return usageError(fs, "set: the count must be a whole number of at least 1, got %q", pos[2])
		}
		count = n
	case "down", "await", "count":
	default:
		return usageError(fs, "unknown action %q: set N, down, await or count", action)
	}
	if len(pos) > wantArgs {
		return usageError(fs, "unexpected arguments after %q: %q", action, pos[wantArgs:])
	}
	if isSet(fs, "timeout") && (action != "await" || *timeout <= 0) {
		if action != "await" {
			return usageError(fs, "--timeout goes with await (the connection timeout is --conn-timeout)")
		}
		return usageError(fs, "--timeout must be positive (got %v); leave it out to wait forever", *timeout)
	}

	sigs := make(chan os.Signal, 2)
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
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
	client, err := redisson.New(cn.rdb, redisson.WithTimeout(cf.timeout))
	if err != nil {
		return errorf(fs.Name(), "%v", err)
	}
	defer client.Close()
	l := client.CountDownLatch(name)
	about := func(err error) string { return aboutObject("latch", name, err) }

	switch action {
	case "set":
		ctx, cancel := context.WithTimeout(context.Background(), 4*cf.timeout)
		defer cancel()
		ok, err := l.TrySetCount(ctx, count)
		if err != nil {
			return errorf(fs.Name(), "%s", about(err))
		}
		if !ok {
			n, err := l.Count(ctx)
			if err != nil {
				return errorf(fs.Name(), "latch %q is already set; nothing changed", name)
			}
			return errorf(fs.Name(), "latch %q is already set (count %d); nothing changed", name, n)
		}
		return exitOK
	case "down":
		ctx, cancel := context.WithTimeout(context.Background(), 4*cf.timeout)
		defer cancel()
		if err := l.CountDown(ctx); err != nil {
			return errorf(fs.Name(), "%s", about(err))
		}
		return exitOK
	case "count":
		ctx, cancel := context.WithTimeout(context.Background(), 4*cf.timeout)
		defer cancel()
		n, err := l.Count(ctx)
		if err != nil {
			return errorf(fs.Name(), "%s", about(err))
		}
		fmt.Println(n)
		return exitOK
	}

	// await, in a goroutine so that a signal can stop it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		ok  bool
		err error
	}
	res := make(chan result, 1)
	go func() {
		var opts []latch.Option
		if *timeout > 0 {
			opts = append(opts, latch.WithTimeout(*timeout))
		}
		ok, err := l.Await(ctx, opts...)
		res <- result{ok, err}
	}()
	select {
	case s := <-sigs:
		cancel()
		<-res
		fmt.Fprintf(os.Stderr, "%s: interrupted (%v) while waiting for latch %q\n", fs.Name(), s, name)
		return exitSignalBase + signalNumber(s)
	case r := <-res:
		switch {
		case r.err != nil && !errors.Is(r.err, context.Canceled):
			return errorf(fs.Name(), "%s", about(r.err))
		case !r.ok:
			fmt.Fprintf(os.Stderr, "%s: latch %q did not reach zero within %v\n", fs.Name(), name, time.Duration(*timeout))
			return exitNotAcq
		}
		return exitOK
	}
}
