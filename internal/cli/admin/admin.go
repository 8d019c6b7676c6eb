package admin

import (
	"context"

	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/ratelimit"
)

// The admin commands drive one object through the library's own objects
// (Client.Semaphore, Client.PermitExpirableSemaphore, Client.RateLimiter),
// so what they leave in Redis is what Redisson would, and their errors are
// the library's ("semaphore "x": set permits: ...").

const semaphoreDescription = `
Shows or changes the semaphore NAME, Redisson's RSemaphore (the same key and
channel as redisson.getSemaphore(NAME) in Java):

  show     prints the available permits (0 when it does not exist; may be
           negative after add with a negative N)
  set N    sets the available permits to N (N >= 0) whatever they were,
           and wakes the waiters; permits held now are not counted: their
           release adds to N
  add N    adds N permits (N < 0 takes them away; the count may go below
           zero) and wakes the waiters, as addPermits
  drain    takes every available permit (drainPermits) and prints how many

set, add and drain print the permits available afterwards. A semaphore's
key holding something else (a lock's hash, a bucket) is an error (exit 1),
and nothing is changed.`

const semaphoreExamples = `  redisson semaphore encoders show
  redisson semaphore encoders set 4
  redisson semaphore encoders add -1
  redisson semaphore encoders drain`

const permitsDescription = `
Shows the permit-expirable semaphore NAME (Redisson's
RPermitExpirableSemaphore) or releases one of its permits:

  show        prints the available and acquired permits, then each acquired
              permit's id with its expiry. Expired permits go back to the
              pool first, as any Redisson call on the semaphore does.
  release ID  gives the permit ID (32 hex characters, as "show" and Java's
              acquire() print it) back, as release(ID); exit 1 when ID is
              not held (never acquired, released, or expired)`

const permitsExamples = `  redisson permits licenses show
  redisson permits licenses release 0f1e2d3c4b5a69788796a5b4c3d2e1f0`

const rateLimitDescription = `
Shows or changes the rate limiter NAME, Redisson's RRateLimiter:

  show                     prints the config: rate, interval, type and
                           keep-alive; for an OVERALL limiter also the
                           permits available now
  set RATE INTERVAL        sets the config (setRate): RATE permits per
                           INTERVAL (a duration: 1s, 500ms, 1m), OVERALL, or
                           PER_CLIENT with --per-client; --keep-alive D makes
                           the keys expire D after their last use. It starts
                           a fresh window, as setRate does
  acquire N [--wait D]     takes N permits if they are available now, or
                           within --wait; exit 75 when they are not. (For a
                           PER_CLIENT limiter each run of the tool is a new
                           client, with a window of its own.)`

const rateLimitExamples = `  redisson ratelimit api show
  redisson ratelimit api set 100 1s
  redisson ratelimit api set 10 1m --per-client --keep-alive 1h
  redisson ratelimit api acquire 5 --wait 2s`

// negNumber is an argument that is a negative number, not a flag.
var negNumber = regexp.MustCompile(`^-[0-9]+$`)

// keepNegatives moves negative numbers (add -2) after a "--", so that the
// flag parser takes them as arguments; they are always the last argument.
func keepNegatives(args []string) []string {
	var rest, neg []string
	for _, a := range args {
		if a == "--" {
			return args
		}
		if negNumber.MatchString(a) {
			neg = append(neg, a)
			continue
		}
		rest = append(rest, a)
	}
	if len(neg) == 0 {
		return args
	}
	return append(append(rest, "--"), neg...)
}

// adminArgs checks NAME ACTION [ARGS]: the action must be one of actions,
// with its number of arguments.
func adminArgs(fs *flag.FlagSet, what string, pos []string, actions map[string]int, list string) (name, action string, rest []string, code int, ok bool) {
	switch {
	case len(pos) == 0 || pos[0] == "":
		return "", "", nil, cliflag.UsageError(fs, "a %s name is required and must not be empty", what), false
	case len(pos) < 2:
		return "", "", nil, cliflag.UsageError(fs, "no action given: %s", list), false
	}
	name, action = pos[0], pos[1]
	n, known := actions[action]
	switch {
	case !known:
		return "", "", nil, cliflag.UsageError(fs, "unknown action %q: %s", action, list), false
	case len(pos)-2 < n:
		return "", "", nil, cliflag.UsageError(fs, "%s needs %d argument(s): %s", action, n, list), false
	case len(pos)-2 > n:
		return "", "", nil, cliflag.UsageError(fs, "unexpected arguments after %q: %q", action, pos[2+n:]), false
	}
	return name, action, pos[2:], cliflag.ExitOK, true
}

// adminClient connects and returns a library client.
func adminClient(ctx context.Context, fs *flag.FlagSet, cf *conn.Flags) (*conn.Conn, *redisson.Client, int) {
	cn, code := conn.ConnectOrExit(ctx, fs, cf, nil)
	if cn == nil {
		return nil, nil, code
	}
	client, err := redisson.New(cn.RDB, redisson.WithTimeout(cf.Timeout))
	if err != nil {
		cn.Close()
		return nil, nil, cliflag.Errorf(fs.Name(), "%v", err)
	}
	return cn, client, cliflag.ExitOK
}

// intArg parses a count argument of a Java int.
func intArg(fs *flag.FlagSet, action, s string, negative bool) (int, int, bool) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 && !negative {
		want := "a whole number of at least 0"
		if negative {
			want = "a whole number"
		}
		return 0, cliflag.UsageError(fs, "%s: N must be %s, got %q", action, want, s), false
	}
	return int(n), cliflag.ExitOK, true
}

func Semaphore(args []string) int {
	fs := cliflag.NewFlagSet("semaphore", "redisson semaphore [connection flags] NAME show | set N | add N | drain",
		semaphoreDescription, semaphoreExamples)
	var cf conn.Flags
	cf.Register(fs)
	pos, code, done := cliflag.ParseFlags(fs, keepNegatives(args), true)
	if done {
		return code
	}
	const list = "show, set N, add N or drain"
	name, action, rest, code, ok := adminArgs(fs, "semaphore", pos, map[string]int{"show": 0, "set": 1, "add": 1, "drain": 0}, list)
	if !ok {
		return code
	}
	var n int
	if action == "set" || action == "add" {
		if n, code, ok = intArg(fs, action, rest[0], action == "add"); !ok {
			return code
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout)
	defer cancel()
	cn, client, code := adminClient(ctx, fs, &cf)
	if cn == nil {
		return code
	}
	defer cn.Close()
	defer client.Close()
	s := client.Semaphore(name)
	var err error
	switch action {
	case "set":
		err = s.SetPermits(ctx, n)
	case "add":
		err = s.AddPermits(ctx, n)
	case "drain":
		var drained int
		if drained, err = s.DrainPermits(ctx); err == nil {
			fmt.Printf("semaphore %q: drained %d permits\n", name, drained)
		}
	}
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	avail, err := s.AvailablePermits(ctx)
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	if action == "show" {
		fmt.Println(avail)
	} else {
		fmt.Printf("semaphore %q: %d permits available\n", name, avail)
	}
	return cliflag.ExitOK
}

func Permits(args []string) int {
	fs := cliflag.NewFlagSet("permits", "redisson permits [connection flags] NAME show | release ID",
		permitsDescription, permitsExamples)
	var cf conn.Flags
	cf.Register(fs)
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	name, action, rest, code, ok := adminArgs(fs, "permit-expirable semaphore", pos, map[string]int{"show": 0, "release": 1}, "show or release ID")
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout)
	defer cancel()
	cn, client, code := adminClient(ctx, fs, &cf)
	if cn == nil {
		return code
	}
	defer cn.Close()
	defer client.Close()
	s := client.PermitExpirableSemaphore(name)
	if action == "release" {
		if err := s.Release(ctx, rest[0]); err != nil {
			return cliflag.Errorf(fs.Name(), "%v", err)
		}
	}
	avail, err := s.AvailablePermits(ctx)
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	if action == "release" {
		fmt.Printf("permit-expirable semaphore %q: permit %s released; %d permits available\n", name, rest[0], avail)
		return cliflag.ExitOK
	}
	acquired, err := s.AcquiredPermits(ctx)
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	fmt.Printf("available  %d\nacquired   %d\n", avail, acquired)
	// The ids: the library has no call listing them; inspect's read-only
	// reader of the {NAME}:timeout zset does.
	ps, err := objinfo.Permits(ctx, cn.RDB, classify.Derive(name).PESTimeout)
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	for _, p := range ps {
		t := "no lease"
		if p.ExpiresMs != nil {
			at := time.UnixMilli(*p.ExpiresMs).UTC().Format("2006-01-02T15:04:05.000Z")
			if p.Expired {
				t = "expired " + objinfo.FmtMillis(-*p.ExpiresInMs) + " ago, at " + at
			} else {
				t = "expires in " + objinfo.FmtMillis(*p.ExpiresInMs) + ", at " + at
			}
		}
		fmt.Printf("  %s  %s\n", p.ID, t)
	}
	return cliflag.ExitOK
}

// RateLimit is "redisson ratelimit".
func RateLimit(args []string) int {
	fs := cliflag.NewFlagSet("ratelimit", "redisson ratelimit [connection flags] NAME show | set RATE INTERVAL [--per-client] [--keep-alive D] | acquire N [--wait D]",
		rateLimitDescription, rateLimitExamples)
	var cf conn.Flags
	cf.Register(fs)
	perClient := fs.Bool("per-client", false, "set: a window per client (PER_CLIENT) instead of one shared (OVERALL)")
	keepAlive := fs.Duration("keep-alive", 0, "set: the keys expire this `duration` after their last use (at least INTERVAL)")
	wait := fs.Duration("wait", 0, "acquire: wait up to this `duration` for the permits (default: try once)")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	const list = "show, set RATE INTERVAL or acquire N"
	name, action, rest, code, ok := adminArgs(fs, "rate limiter", pos, map[string]int{"show": 0, "set": 2, "acquire": 1}, list)
	if !ok {
		return code
	}
	if (cliflag.IsSet(fs, "per-client") || cliflag.IsSet(fs, "keep-alive")) && action != "set" {
		return cliflag.UsageError(fs, "--per-client and --keep-alive go with set")
	}
	if cliflag.IsSet(fs, "wait") && (action != "acquire" || *wait < 0) {
		return cliflag.UsageError(fs, "--wait goes with acquire and must not be negative")
	}
	rate, interval, n, code, ok := rateArgs(fs, action, rest)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout+*wait)
	defer cancel()
	cn, client, code := adminClient(ctx, fs, &cf)
	if cn == nil {
		return code
	}
	defer cn.Close()
	defer client.Close()
	l := client.RateLimiter(name)
	switch action {
	case "set":
		typ := ratelimit.Overall
		if *perClient {
			typ = ratelimit.PerClient
		}
		var opts []ratelimit.SetOption
		if *keepAlive > 0 {
			opts = append(opts, ratelimit.WithKeepAlive(*keepAlive))
		}
		if err := l.SetRate(ctx, typ, rate, interval, opts...); err != nil {
			return cliflag.Errorf(fs.Name(), "%v", err)
		}
	case "acquire":
		ok, err := l.TryAcquire(ctx, n, ratelimit.WithWait(*wait))
		if err != nil {
			return cliflag.Errorf(fs.Name(), "%v", err)
		}
		if !ok {
			fmt.Fprintf(os.Stderr, "%s: rate limiter %q: %d permits not available within %v\n", fs.Name(), name, n, *wait)
			return cliflag.ExitNotAcq
		}
	}
	return rateShow(ctx, fs.Name(), l, name, action, n)
}

const versionDescription = `
Prints the release version of github.com/goredisson/redisson the tool was
built from (redisson.Version, e.g. v0.1.0), then the module version from the
build info when it says more ("(devel)" for a build in the repository, a
pseudo-version for an untagged commit, with the VCS revision when known)
and the Go version. "redisson --version" prints the same line.`

// Version is the version command.
func Version(args []string) int {
	fs := cliflag.NewFlagSet("version", "redisson version", versionDescription, "  redisson version")
	pos, code, done := cliflag.ParseFlags(fs, args, false)
	if done {
		return code
	}
	if len(pos) > 0 {
		return cliflag.UsageError(fs, "no arguments expected, got %q", pos)
	}
	fmt.Println(VersionLine())
	return cliflag.ExitOK
}

// VersionLine describes the build: "redisson v0.1.0 (github.com/goredisson/redisson
// (devel), revision 0123456789ab, go1.26.0)"; the module version is left out
// when it is the release version itself.
func VersionLine() string {
	release := "v" + redisson.Version
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "redisson " + release + " (no build info)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	var extra []string
	if rev != "" && (v == "(devel)" || strings.Contains(v, "+dirty") || strings.Count(v, "-") >= 2) {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified == "true" {
			rev += ", modified"
		}
		extra = append(extra, "revision "+rev)
	}
	extra = append(extra, bi.GoVersion)
	path := bi.Main.Path
	if path == "" {
		path = "github.com/goredisson/redisson"
	}
	if v != release {
		path += " " + v
	}
	return fmt.Sprintf("redisson %s (%s, %s)", release, path, strings.Join(extra, ", "))
}

// rateArgs parses set's RATE and INTERVAL and acquire's N.
func rateArgs(fs *flag.FlagSet, action string, rest []string) (rate int64, interval time.Duration, n int64, code int, ok bool) {
	switch action {
	case "set":
		var err error
		if rate, err = strconv.ParseInt(rest[0], 10, 64); err != nil || rate < 1 {
			return 0, 0, 0, cliflag.UsageError(fs, "set: RATE must be a whole number of at least 1, got %q", rest[0]), false
		}
		if interval, err = time.ParseDuration(rest[1]); err != nil || interval < time.Millisecond {
			return 0, 0, 0, cliflag.UsageError(fs, "set: INTERVAL must be a duration of at least 1ms (1s, 500ms, 1m), got %q", rest[1]), false
		}
	case "acquire":
		var err error
		if n, err = strconv.ParseInt(rest[0], 10, 64); err != nil || n < 1 {
			return 0, 0, 0, cliflag.UsageError(fs, "acquire: N must be a whole number of at least 1, got %q", rest[0]), false
		}
	}
	return rate, interval, n, cliflag.ExitOK, true
}

// rateShow prints the limiter's configuration and, where one window is
// this run's, the permits available in it.
func rateShow(ctx context.Context, prog string, l *ratelimit.Limiter, name, action string, n int64) int {
	c, err := l.Config(ctx)
	if err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	line := fmt.Sprintf("rate limiter %q: %d permits per %v (%s)", name, c.Rate, c.Interval, c.Type)
	if c.KeepAlive > 0 {
		line += fmt.Sprintf(", keys kept %v after the last use", c.KeepAlive)
	}
	if c.Type == ratelimit.Overall || action == "acquire" {
		avail, err := l.AvailablePermits(ctx)
		if err != nil {
			return cliflag.Errorf(prog, "%v", err)
		}
		if c.Type == ratelimit.PerClient {
			line += fmt.Sprintf("; %d available in this run's window", avail)
		} else {
			line += fmt.Sprintf("; %d available", avail)
		}
	} else {
		line += "; each client has its own window (redisson inspect " + cliflag.ShellQuote(name) + " lists them)"
	}
	if action == "acquire" {
		line = fmt.Sprintf("acquired %d; %s", n, line)
	}
	fmt.Println(line)
	return cliflag.ExitOK
}
