// Package watch is --watch of ls and inspect: it redraws a command's
// output every --interval, marking the lines that changed.
package watch

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
)

// MinInterval bounds --interval from below.
const MinInterval = 100 * time.Millisecond

// CheckInterval checks --interval: only with --watch, at least MinInterval.
func CheckInterval(fs *flag.FlagSet, watch bool, interval time.Duration) (int, bool) {
	switch {
	case cliflag.IsSet(fs, "interval") && !watch:
		return cliflag.UsageError(fs, "--interval goes with --watch"), false
	case interval < MinInterval:
		return cliflag.UsageError(fs, "--interval must be at least %v (got %v)", MinInterval, interval), false
	}
	return cliflag.ExitOK, true
}

// DurationRe matches what objinfo.FmtMillis and time.Duration.String print, and
// the UTC times inspect prints: they change at every drawing, so changes
// are looked for with them masked.
var DurationRe = regexp.MustCompile(`-?([0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m|h))+|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`)

// markChanges prefixes each line of frame with "* " when it (durations
// masked) was not in the previous frame, "  " otherwise; prev nil marks
// nothing. It returns the marked frame and the masked lines for the next
// call.
func markChanges(frame string, prev map[string]int) (string, map[string]int) {
	lines := strings.Split(strings.TrimRight(frame, "\n"), "\n")
	masked := make(map[string]int, len(lines))
	var b strings.Builder
	for _, l := range lines {
		m := DurationRe.ReplaceAllString(l, "~")
		masked[m]++
		mark := "  "
		if prev != nil {
			if prev[m] > 0 {
				prev[m]--
			} else {
				mark = "* "
			}
		}
		b.WriteString(mark + l + "\n")
	}
	return b.String(), masked
}

// Loop draws render's output every interval until SIGINT or SIGTERM
// (exit 0), marking changed lines. Each drawing gets budget to finish. On
// a terminal the screen is cleared before each drawing; otherwise drawings
// follow each other, each after its header line. A failing drawing shows
// the error and the loop goes on.
func Loop(prog, title string, interval, budget time.Duration, render func(ctx context.Context, w io.Writer) error) int {
	sigs := make(chan os.Signal, 2)
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
	defer signal.Stop(sigs)
	tty := false
	if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		tty = true
	}
	var prev map[string]int
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		var buf bytes.Buffer
		err := render(ctx, &buf)
		cancel()
		frame := buf.String()
		if err != nil {
			frame = fmt.Sprintf("%s: %v\n", prog, err)
		}
		var marked string
		marked, prev = markChanges(frame, prev)
		header := fmt.Sprintf("Every %v: %s    %s    (* changed since the last drawing)\n", interval, title,
			time.Now().Format("15:04:05"))
		if tty {
			header = "\x1b[H\x1b[2J" + header
		} else {
			header = "\n" + header
		}
		_, _ = io.WriteString(os.Stdout, header+marked)
		select {
		case <-sigs:
			return cliflag.ExitOK
		case <-tick.C:
		}
	}
}
