// Command redisson is the command-line tool of github.com/goredisson/redisson,
// Redisson-compatible distributed locks for Go.
//
//	redisson run --lock NAME [--fair | --read | --write] [--wait D] [--lease D] -- CMD [ARGS...]
//	redisson run --semaphore NAME --permits N [--wait D] -- CMD [ARGS...]
//	redisson latch NAME set N | down | await [--wait D] | count
//	redisson topic NAME publish MSG | subscribe [--pattern | --sharded | --reliable] [--codec C] [--count N] [--wait D]
//	redisson ls [PATTERN] [--kind K] [--held] [--json] [--max-keys N] [--watch]
//	redisson inspect NAME [--json] [--watch]
//	redisson dashboard [--listen ADDR] [--token T] [--allow-writes]
//	redisson semaphore NAME show | set N | add N | drain
//	redisson permits NAME show | release ID
//	redisson ratelimit NAME show | set RATE INTERVAL [--per-client] | acquire N [--wait D]
//	redisson unlock --force NAME
//	redisson demo [--procs P] [--workers N] [--ops K] [--lease D]
//	redisson version (or --version)
//
// Every command that talks to Redis takes --redis URL (or $REDIS_URL),
// --cluster, --timeout and the TLS flags --tls-ca, --tls-cert, --tls-key,
// --tls-server-name and --tls-insecure (rediss:// URLs speak TLS too). Run "redisson --help" or "redisson <command>
// --help" for the details, the exit codes and examples.
//
// Install it with
//
//	go install github.com/goredisson/redisson/cmd/redisson@latest
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goredisson/redisson/internal/cli/admin"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/dashboard"
	"github.com/goredisson/redisson/internal/cli/demo"
	"github.com/goredisson/redisson/internal/cli/get"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/run"
	"github.com/redis/go-redis/v9"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string) int
	hidden  bool
}

// commands are the subcommands, in the order the usage lists them.
func commands() []command {
	return []command{
		{name: "run", summary: "run a command while holding a lock", run: run.Command},
		{name: "ls", summary: "list the Redisson objects (SCAN): kind, state, holders, TTL, waiters", run: ls.Command},
		{name: "inspect", summary: "show what is stored under a lock's or synchronizer's name", run: inspect.Command},
		{name: "dashboard", summary: "serve a live web page of every lock and synchronizer, and /metrics", run: dashboard.Command},
		{name: "get", summary: "print a bucket's value, decoded with a Redisson codec", run: get.Command},
		{name: "topic", summary: "publish to or subscribe to a topic: topic NAME publish MSG|subscribe", run: admin.Topic},
		{name: "latch", summary: "set, count down or await a count-down latch: latch NAME set N|down|await", run: admin.Latch},
		{name: "semaphore", summary: "show or change a semaphore's permits: semaphore NAME show|set N|add N|drain", run: admin.Semaphore},
		{name: "permits", summary: "a permit-expirable semaphore: permits NAME show|release ID", run: admin.Permits},
		{name: "ratelimit", summary: "a rate limiter: ratelimit NAME show|set RATE INTERVAL [--per-client]|acquire N", run: admin.RateLimit},
		{name: "unlock", summary: "force-unlock a lock whoever holds it (unlock --force NAME)", run: admin.Unlock},
		{name: "demo", summary: "processes contend on one lock; prints throughput, hand-off latency, round trips", run: demo.Command},
		{name: "version", summary: "print the module version the tool was built from", run: admin.Version},
		{name: "help", summary: "show the help of a command: redisson help run", run: cmdHelp},
		{name: demo.WorkerName, run: demo.WorkerCommand, hidden: true},
	}
}

func main() {
	// go-redis logs failed dials ("pool.go:...: failed to dial after 5
	// attempts") and Sentinel events to stderr; the commands report every
	// failure themselves, in one line.
	redis.SetLogger(discardLogger{})
	os.Exit(realMain(os.Args[1:]))
}

// discardLogger is a go-redis logger (internal.Logging) that prints nothing.
type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

func realMain(args []string) int {
	if len(args) == 0 {
		toolUsage(os.Stderr)
		return cliflag.ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		toolUsage(os.Stdout)
		return cliflag.ExitOK
	case "-version", "--version":
		return admin.Version(args[1:])
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:])
		}
	}
	fmt.Fprintf(os.Stderr, "redisson: %s\n", unknownCommand(args[0]))
	return cliflag.ExitUsage
}

// unknownCommand is the one-line answer to an unknown command: the closest
// command when one is close enough to be a typo.
func unknownCommand(name string) string {
	best, bestD := "", 0
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		d := editDistance(strings.ToLower(name), c.name)
		if strings.HasPrefix(c.name, strings.ToLower(name)) && name != "" {
			d = min(d, 1)
		}
		if best == "" || d < bestD {
			best, bestD = c.name, d
		}
	}
	if best != "" && bestD <= max(1, min(3, len(best)/3+1)) {
		return fmt.Sprintf("unknown command %q: did you mean %q? (\"redisson help\" lists the commands)", name, best)
	}
	return fmt.Sprintf("unknown command %q (\"redisson help\" lists the commands)", name)
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance of a and b, in runes.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

func cmdHelp(args []string) int {
	if len(args) == 0 {
		toolUsage(os.Stdout)
		return cliflag.ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] && !c.hidden && c.name != "help" {
			return c.run([]string{"--help"})
		}
	}
	fmt.Fprintf(os.Stderr, "redisson help: %s\n", unknownCommand(args[0]))
	return cliflag.ExitUsage
}

func toolUsage(w io.Writer) {
	fmt.Fprint(w, `redisson: Redisson-compatible distributed locks from the command line
(github.com/goredisson/redisson; the keys, hash fields and pub/sub channels are
Redisson's, so Java services using Redisson see the same locks).

Usage:
  redisson <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintf(w, "  %-9s  %s\n", c.name, c.summary)
		}
	}
	fmt.Fprint(w, `
Connection flags, accepted by every command that talks to Redis:
`+conn.FlagsHelp+`
Exit codes:
  0        success (run: CMD exited 0; CMD's own exit code is passed through)
  1        error: Redis unreachable or failing, a failed unlock, a worker failure
           or lost update in demo, unlock --force refused on a non-lock object,
           an admin command the object refused (wrong kind, unknown permit id)
  2        usage error (bad flag or --redis address, missing argument, unlock
           without --force)
  75       run: the lock (or semaphore permit) was not acquired within --wait;
           latch await: --wait passed first; ratelimit acquire: the permits
           were not due within --wait; topic subscribe: fewer than --count
           messages (or none) within --wait
  76       run: the lock was lost while CMD ran (CMD got SIGTERM)
  126/127  run: CMD could not be executed / was not found
  128+n    run: CMD was killed by signal n; run or demo interrupted by signal n
           while waiting (130 = SIGINT, 143 = SIGTERM)

Examples:
  redisson run --lock nightly-report -- ./report.sh --full
  redisson run --lock deploy --wait 0 -- make deploy      # skip if someone else deploys
  redisson run --semaphore encoders --permits 4 -- ./encode.sh # at most 4 at once
  redisson run --lock account:1 --lock account:2 -- ./transfer.sh # both locks or none
  redisson run --fenced --lock ledger -- ./append.sh      # token in $REDISSON_FENCING_TOKEN
  redisson latch deploy-ready await --wait 5m             # 0 once counted down to zero
  redisson topic 'events.*' subscribe --pattern           # until Ctrl-C (exit 0)
  redisson topic events publish '{"type":"deploy"}'       # prints the receiver count
  redisson ls 'orders:*' --held                           # the held locks among orders:*
  redisson ls --watch                                     # redraw every second
  redisson inspect nightly-report
  redisson dashboard                                      # http://127.0.0.1:8080/
  redisson inspect --json --redis redis://:secret@10.0.0.5:6379/0 orders:42
  redisson ls --redis rediss://redis.internal:6380 --tls-ca ca.pem --tls-cert me.pem --tls-key me.key
  redisson semaphore encoders set 4
  redisson ratelimit api set 100 1s && redisson ratelimit api acquire 5
  redisson permits licenses release 0f1e2d3c4b5a69788796a5b4c3d2e1f0
  redisson unlock --force nightly-report
  redisson demo                                           # private redis-server, ~10 s
  REDIS_URL=redis://localhost:6379 redisson demo --procs 4 --workers 4 --ops 20000

Run "redisson <command> --help" for the flags and examples of a command.
`)
}
