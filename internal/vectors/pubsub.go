package vectors

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
)

// PubSubState is a step's "pubsub" record (testdata/README.md §8.1): the
// sorted channels with a subscriber (the marker left out), the pattern
// count without the capture's own PSUBSCRIBE *, the sorted shard channels.
func PubSubState(ctx context.Context, rdb *redis.Client, n *Normalizer) (map[string]any, error) {
	var ps pubsubCmds
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		ps = queuePubSub(ctx, p)
		return nil
	}); err != nil {
		return nil, err
	}
	return ps.state(n), nil
}

// pubsubCmds are the reads of a "pubsub" record, queued in a pipeline.
type pubsubCmds struct {
	chans, shards *redis.StringSliceCmd
	pats          *redis.IntCmd
}

func queuePubSub(ctx context.Context, p redis.Pipeliner) pubsubCmds {
	return pubsubCmds{chans: p.PubSubChannels(ctx, "*"), pats: p.PubSubNumPat(ctx), shards: p.PubSubShardChannels(ctx, "*")}
}

// state records the replies once the pipeline ran without error.
func (c pubsubCmds) state(n *Normalizer) map[string]any {
	shard := c.shards.Val()
	sort.Strings(shard)
	shards := make([]any, len(shard))
	for i, ch := range shard {
		shards[i] = n.Text(ch)
	}
	return map[string]any{"channels": channels(c.chans.Val(), n), "patterns": c.pats.Val() - 1, "shard_channels": shards}
}

// pubsubCommands are the commands a "pubsub" command log keeps (§8.1).
var pubsubCommands = map[string]bool{
	"subscribe": true, "ssubscribe": true, "psubscribe": true,
	"unsubscribe": true, "sunsubscribe": true, "punsubscribe": true,
	"publish": true, "spublish": true,
}

// commandLog is a step's "commands" record: what the clients C1 and C2
// (their connections named so) sent, from MONITOR between two ECHO markers.
type commandLog struct {
	t   testing.TB
	m   *redistest.Monitor
	raw *redis.Client
	all bool // every command (Actions.AllCommands), not only pub/sub ones
	// quiet and semaphoreFilter are Actions.Quiet and SemaphoreFilter;
	// published is a quiet step's messages (quietLines).
	quiet, semaphoreFilter bool
	published              []any
}

func startCommandLog(t testing.TB, srv *redistest.Server, raw *redis.Client) *commandLog {
	m, err := redistest.StartMonitor(srv.Addr())
	if err != nil {
		t.Fatalf("MONITOR: %v", err)
	}
	return &commandLog{t: t, m: m, raw: raw}
}

func (l *commandLog) close() { _ = l.m.Close() }

func marker(step int, what string) string { return fmt.Sprintf("__vectorreplay_%s_%d__", what, step) }

func (l *commandLog) begin(step int) {
	if err := l.raw.Echo(context.Background(), marker(step, "begin")).Err(); err != nil {
		l.t.Fatalf("echo: %v", err)
	}
}

// end returns the pub/sub commands of C1, then of C2 (all commands with
// l.all), each in the order Redis executed them, as [client, COMMAND,
// args...], with the pub/sub commands their scripts made as ["lua",
// COMMAND, args...] after the script (§8.1: Redisson's scripts publish with
// the command named in their arguments, PUBLISH or SPUBLISH), once the
// step's end marker was sent (replay.endStep); names maps connection
// addresses to client names.
func (l *commandLog) end(step int, names map[string]string, n *Normalizer) []any {
	if l.all {
		return l.endAll(step, names, n, nil)
	}
	return l.endAll(step, names, n, func(ml redistest.MonitorLine) bool { return pubsubCommands[ml.Command] })
}

// clientNames maps each connection's address in a CLIENT LIST reply to
// its client name.
func clientNames(list string) map[string]string {
	names := map[string]string{}
	for _, line := range strings.Split(list, "\n") {
		var addr, name string
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "addr="); ok {
				addr = v
			}
			if v, ok := strings.CutPrefix(f, "name="); ok {
				name = v
			}
		}
		names[addr] = name
	}
	return names
}

// skippedCommands are left out of a full command log (§8.1), and so are the
// script commands themselves (Actions.AllCommands).
var skippedCommands = map[string]bool{
	"ping": true, "client": true, "hello": true, "select": true, "info": true, "command": true,
	"readonly": true, "echo": true, "auth": true, "config": true,
	"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true, "script": true,
}

// endAll returns every command of C1, then of C2 (those keep keeps, when
// set), with their scripts' calls ("lua") after the script that made them;
// decimal arguments within 10¹⁰ ms of the line's own MONITOR time become
// {"rel": [lo, hi]} (§8.2).
func (l *commandLog) endAll(step int, names map[string]string, n *Normalizer, keep func(redistest.MonitorLine) bool) []any {
	begin, end := marker(step, "begin"), marker(step, "end")
	var lines []logLine
	inside := false
	timeout := time.After(10 * time.Second)
collect:
	for {
		select {
		case raw, ok := <-l.m.Lines():
			if !ok {
				l.t.Fatalf("MONITOR ended before the end marker")
			}
			ml, ok := redistest.ParseMonitorLine(raw)
			if !ok {
				continue
			}
			if ml.Command == "echo" && len(ml.Args) == 1 && ml.TopLevel() {
				switch ml.Args[0] {
				case begin:
					inside = true
					continue
				case end:
					break collect
				}
			}
			if !inside {
				continue
			}
			var ms int64
			if f := strings.Fields(raw); len(f) > 0 {
				if sec, err := strconv.ParseFloat(f[0], 64); err == nil {
					ms = int64(sec * 1000)
				}
			}
			lines = append(lines, logLine{ms, ml})
		case <-timeout:
			l.t.Fatalf("end marker not seen")
		}
	}
	lines = l.quietLines(lines, names, n)
	byClient := map[string][]any{}
	last := "" // the client of the script a "lua" line belongs to: the line before
	for _, ln := range lines {
		if !ln.l.TopLevel() {
			if last != "" && (keep == nil || keep(ln.l)) {
				e := l.entry("lua", ln.l, ln.ms, n)
				if keep != nil {
					e[1] = strings.ToUpper(ln.l.Command)
				}
				byClient[last] = append(byClient[last], e)
			}
			continue
		}
		last = names[ln.l.Client]
		if last != "C1" && last != "C2" {
			last = ""
			continue
		}
		if keep != nil && !keep(ln.l) {
			continue
		}
		if !skippedCommands[ln.l.Command] && !registration(ln.l) {
			byClient[last] = append(byClient[last], l.entry(last, ln.l, ln.ms, n))
		}
	}
	return append(append([]any{}, byClient["C1"]...), byClient["C2"]...)
}

// registration reports whether a command writes or removes the client's
// own record (Options.Registration), which is not part of Redisson's data.
func registration(ml redistest.MonitorLine) bool {
	return len(ml.Args) > 0 && strings.HasPrefix(ml.Args[0], registrationPrefix)
}

var decimalRE = regexp.MustCompile(`^-?[0-9]+$`)

func (l *commandLog) entry(source string, ml redistest.MonitorLine, ms int64, n *Normalizer) []any {
	// A script's call as its text (or an argument, Redisson's publish
	// command) spelled it; a client's command upper-case.
	cmd := []any{source, ml.Sent}
	if source != "lua" || ml.Sent == "" {
		cmd[1] = strings.ToUpper(ml.Command)
	}
	for i, a := range ml.Args {
		if latchTTLArg(ml, i) {
			// The record's random latch TTL is "<latch ttl>" (§11); so is
			// ours, whose length differs by design (docs/interop.md).
			cmd = append(cmd, "<latch ttl>")
			continue
		}
		if decimalRE.MatchString(a) {
			if v, err := strconv.ParseInt(a, 10, 64); err == nil && math.Abs(float64(v-ms)) < 1e10 {
				if past, ok := n.pastClock(v - ms); ok { // §10, lcm.reconnection_load_resubscribe
					cmd = append(cmd, past)
					continue
				}
				cmd = append(cmd, map[string]any{"rel": n.Bucket2(v - ms)})
				continue
			}
		}
		cmd = append(cmd, n.arg(a))
	}
	return cmd
}

// latchTTLArg reports whether argument i of ml is the TTL with which a
// script SETs an unlock latch: SET <latch> <value> px <ttl>.
func latchTTLArg(ml redistest.MonitorLine, i int) bool {
	return i == 3 && strings.EqualFold(ml.Command, "set") && len(ml.Args) == 4 &&
		strings.HasPrefix(ml.Args[0], "redisson_unlock_latch:") && strings.EqualFold(ml.Args[2], "px")
}

// withoutScriptCalls returns the record of a step without the EVAL and
// EVALSHA lines of its commands (Actions.AllCommands). The scripts' own
// calls keep the record's spelling: the replay's log spells them as sent
// (a name a script was passed, Redisson's "PUBLISH", as passed).
func withoutScriptCalls(st map[string]any) map[string]any {
	return withoutCommands(st, func(c []any) bool {
		return len(c) > 1 && skippedCommands[strings.ToLower(fmt.Sprint(c[1]))]
	})
}

// latchDEL reports whether c is a client's DEL of an unlock latch
// (Actions.KeptLatch).
func latchDEL(c []any) bool {
	return len(c) == 3 && c[0] != "lua" && c[1] == "DEL" && strings.HasPrefix(fmt.Sprint(c[2]), "redisson_unlock_latch:")
}

// withoutCommands returns the record of a step without the commands drop
// picks.
func withoutCommands(st map[string]any, drop func(c []any) bool) map[string]any {
	cmds, ok := st["commands"].([]any)
	if !ok {
		return st
	}
	out := make(map[string]any, len(st))
	for k, v := range st {
		out[k] = v
	}
	kept := []any{}
	for _, c := range cmds {
		if list, ok := c.([]any); ok && drop(list) {
			continue
		}
		kept = append(kept, c)
	}
	out["commands"] = kept
	return out
}

// withoutLatches returns a state without its unlock latch keys
// (Actions.UnlatchedStates).
func withoutLatches(state any) any {
	m, ok := state.(map[string]any)
	if !ok {
		return state
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !strings.HasPrefix(k, "redisson_unlock_latch:") {
			out[k] = v
		}
	}
	return out
}
