package vectors

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
)

// Quiet scenarios (testdata/README.md §11): an object that waits for as
// many answers as PUBLISH counted receivers (the adders' sum and reset)
// would wait for ever on the capture's PSUBSCRIBE *, a receiver that never
// answers. In a quiet replay (Actions.Quiet) the capture's connection
// subscribes to its marker channel only, and a step's messages are the
// PUBLISH and SPUBLISH commands MONITOR saw C1 and C2 send, themselves or
// inside their scripts, in the order Redis ran them: what the recorder
// did. A quiet scenario needs the command log (its config names the
// clients).

// newCapture returns the capture of a replay's published messages: every
// channel (PSUBSCRIBE *), or, quiet, the marker channel alone.
func newCapture(ctx context.Context, rdb *redis.Client, quiet bool) (*Messages, error) {
	if !quiet {
		return NewMessages(ctx, rdb)
	}
	ps := rdb.Subscribe(ctx, markerChannel)
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, err
	}
	return &Messages{rdb: rdb, ps: ps, marker: markerChannel}, nil
}

// logLine is one MONITOR line of a step, with its time in ms.
type logLine struct {
	ms int64
	l  redistest.MonitorLine
}

// quietLines is what a quiet replay's command log does with a step's
// lines, in execution order, before it groups them by client: it keeps
// the messages C1 and C2 published as the step's messages (published)
// and, with Actions.SemaphoreFilter, leaves out the lines the recorder
// left out (semaphoreFiltered). Other replays' lines pass unchanged.
func (l *commandLog) quietLines(lines []logLine, names map[string]string, n *Normalizer) []logLine {
	if !l.quiet {
		return lines
	}
	l.published = publishedIn(lines, names, n)
	if l.semaphoreFilter {
		lines = semaphoreFiltered(lines)
	}
	return lines
}

// publishedIn returns the messages C1 and C2 published in lines, as
// [channel, payload] pairs, normalized: a script's PUBLISH counts for the
// client that sent the script (the line before it).
func publishedIn(lines []logLine, names map[string]string, n *Normalizer) []any {
	out := []any{}
	client := ""
	for _, ln := range lines {
		if ln.l.TopLevel() {
			client = names[ln.l.Client]
		}
		if client != "C1" && client != "C2" {
			continue
		}
		if (ln.l.Command == "publish" || ln.l.Command == "spublish") && len(ln.l.Args) == 2 && ln.l.Args[0] != markerChannel {
			ch, payload := ln.l.Args[0], ln.l.Args[1]
			out = append(out, []any{n.Text(ch), n.Payload(ch, payload)})
		}
	}
	return out
}

// semaphoreFiltered returns lines without what the adders' records leave
// out because it depends on timing (the recorder's rules, one by one):
//   - an acquire attempt of a request's semaphore: EVAL or EVALSHA with
//     the one key "…:semaphore" and one argument, and the lines of its
//     script (how many attempts the asker makes depends on when the
//     answers come; EVAL too, which go-redis sends after NOSCRIPT);
//   - SUBSCRIBE and UNSUBSCRIBE of a redisson_sc:* channel (the asker
//     subscribes only when the permits are not there yet);
//   - the permit count a release PUBLISHes to redisson_sc:* becomes
//     "<permits>" (which client releases first varies; the messages keep
//     the counts in order).
func semaphoreFiltered(lines []logLine) []logLine {
	out := make([]logLine, 0, len(lines))
	dropping := false
	for _, ln := range lines {
		ml := ln.l
		if ml.TopLevel() {
			dropping = false
		}
		switch {
		case dropping:
			continue
		case (ml.Command == "evalsha" || ml.Command == "eval") && len(ml.Args) == 4 && ml.Args[1] == "1" &&
			strings.HasSuffix(ml.Args[2], ":semaphore"):
			dropping = true
			continue
		case (ml.Command == "subscribe" || ml.Command == "unsubscribe") && len(ml.Args) > 0 &&
			strings.HasPrefix(ml.Args[0], "redisson_sc:"):
			continue
		case ml.Command == "publish" && len(ml.Args) == 2 && strings.HasPrefix(ml.Args[0], "redisson_sc:"):
			ml.Args = []string{ml.Args[0], "<permits>"}
			ln.l = ml
		}
		out = append(out, ln)
	}
	return out
}
