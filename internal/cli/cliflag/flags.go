package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Exit codes shared by the commands; run also passes CMD's own code through.
const (
	ExitOK         = 0
	ExitError      = 1
	ExitUsage      = 2
	ExitNotAcq     = 75 // run: not acquired within --wait (EX_TEMPFAIL)
	ExitLockLost   = 76 // run: the lock was lost while CMD ran (EX_PROTOCOL)
	ExitCannotExec = 126
	ExitNotFound   = 127
	ExitSignalBase = 128 // 128+signo: CMD killed by a signal, or run/demo interrupted
)

// NewFlagSet returns a flag set whose --help prints usage (the command's
// description, its flags written --name, then examples) to stdout.
func NewFlagSet(name, synopsis, description, examples string) *flag.FlagSet {
	fs := flag.NewFlagSet("redisson "+name, flag.ContinueOnError)
	// The flag package calls Usage itself on errors and -help, into the
	// discarded output; ParseFlags prints instead: the full usage for
	// --help, one line for an error.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage:\n  %s\n\n%s\n\nFlags:\n", synopsis, strings.TrimSpace(description))
		printFlags(w, fs)
		if examples != "" {
			fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(examples, "\n"))
		}
	}
	return fs
}

// hiddenValue is the value of a flag kept for old scripts that --help does
// not list.
type hiddenValue struct{ flag.Value }

// HideFlag keeps the flag name out of fs's --help.
func HideFlag(fs *flag.FlagSet, name string) {
	if f := fs.Lookup(name); f != nil {
		f.Value = hiddenValue{f.Value}
	}
}

// printFlags prints the flags as --name, sorted, with their usage and default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	var all []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if _, hidden := f.Value.(hiddenValue); !hidden {
			all = append(all, f)
		}
	})
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	for _, f := range all {
		typ, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if typ != "" {
			head += " " + typ
		}
		fmt.Fprintln(w, head)
		usage = strings.ReplaceAll(usage, "\n", "\n        ")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" && f.DefValue != "[]" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "        %s\n", usage)
	}
}

// ParseFlags parses args with fs. It returns done=true and the exit code when
// the command must stop: after --help (0) or a bad flag (2).
func ParseFlags(fs *flag.FlagSet, args []string, interspersed bool) (positional []string, code int, done bool) {
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stdout)
			fs.Usage()
			fs.SetOutput(io.Discard)
			return nil, ExitOK, true
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\nRun \"%s --help\" for usage.\n", fs.Name(), err, fs.Name())
			return nil, ExitUsage, true
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if !interspersed || len(rest) == 0 || (consumed > 0 && args[consumed-1] == "--") {
			return append(positional, rest...), ExitOK, false
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// ErrNoName is the usage error of every command given no lock name, or an
// empty one.
const ErrNoName = "a lock name is required and must not be empty"

// OneName returns the one NAME argument of inspect and unlock, or prints a
// usage error and returns its exit code.
func OneName(fs *flag.FlagSet, pos []string) (string, int) {
	switch {
	case len(pos) == 0 || len(pos) == 1 && pos[0] == "":
		return "", UsageError(fs, "%s", ErrNoName)
	case len(pos) > 1:
		q := make([]string, len(pos))
		for i, p := range pos {
			q[i] = strconv.Quote(p)
		}
		return "", UsageError(fs, "one lock name at a time, got %d: %s", len(pos), strings.Join(q, " "))
	}
	return pos[0], ExitOK
}

// IsSet reports whether the flag name was given on the command line.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// CheckLease checks a --lease flag: left out, it means the watchdog; given,
// it must be at least 1ms, as rlock.WithLease wants.
func CheckLease(fs *flag.FlagSet, lease time.Duration) (int, bool) {
	if IsSet(fs, "lease") && lease < time.Millisecond {
		return UsageError(fs, "--lease must be at least 1ms (got %v); leave --lease out for the watchdog", lease), false
	}
	return ExitOK, true
}

// UsageError prints a usage error of the command and returns exit code 2.
func UsageError(fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "%s: %s\nRun \"%s --help\" for usage.\n", fs.Name(), fmt.Sprintf(format, a...), fs.Name())
	return ExitUsage
}

// Errorf prints an error of the command and returns exit code 1.
func Errorf(prefix, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "%s: %s\n", prefix, fmt.Sprintf(format, a...))
	return ExitError
}

// ShellQuote quotes s for a shell command line when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// AboutObject is the message of an error about an object: the library's
// errors already name it (lock "X": try lock: ...); others get what and
// the name added.
func AboutObject(what, name string, err error) string {
	msg := err.Error()
	if !strings.Contains(msg, strconv.Quote(name)) {
		msg = fmt.Sprintf("%s %q: %s", what, name, msg)
	}
	return msg
}

// SignalNumber is the number of signal s, for the exit code 128+n.
func SignalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return int(syscall.SIGINT)
}
