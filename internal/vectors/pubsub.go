package vectors

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
)

// PubSubState is a step's "pubsub" record (testdata/README.md §8.1): the
// sorted channels with a subscriber (the marker left out), the pattern
// count without the capture's own PSUBSCRIBE *, the sorted shard channels.
func PubSubState(ctx context.Context, rdb *redis.Client, n *Normalizer) (map[string]any, error) {
	chans, err := Channels(ctx, rdb, n)
	if err != nil {
		return nil, err
	}
	pats, err := rdb.PubSubNumPat(ctx).Result()
	if err != nil {
		return nil, err
	}
	shard, err := rdb.PubSubShardChannels(ctx, "*").Result()
	if err != nil {
		return nil, err
	}
	sort.Strings(shard)
	shards := make([]any, len(shard))
	for i, c := range shard {
		shards[i] = n.Text(c)
	}
	return map[string]any{"channels": chans, "patterns": pats - 1, "shard_channels": shards}, nil
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

// end returns the pub/sub commands of C1, then of C2, each in the order
// Redis executed them, as [client, COMMAND, args...].
func (l *commandLog) end(step int, n *Normalizer) []any {
	ctx := context.Background()
	if err := l.raw.Echo(ctx, marker(step, "end")).Err(); err != nil {
		l.t.Fatalf("echo: %v", err)
	}
	lines := redistest.CommandsBetween(l.t, l.m, marker(step, "begin"), marker(step, "end"))
	list, err := l.raw.ClientList(ctx).Result()
	if err != nil {
		l.t.Fatalf("CLIENT LIST: %v", err)
	}
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
	byClient := map[string][]any{}
	for _, c := range lines {
		name := names[c.Client]
		if (name != "C1" && name != "C2") || !pubsubCommands[c.Command] {
			continue
		}
		cmd := []any{name, strings.ToUpper(c.Command)}
		for _, a := range c.Args {
			cmd = append(cmd, n.Text(a))
		}
		byClient[name] = append(byClient[name], cmd)
	}
	return append(append([]any{}, byClient["C1"]...), byClient["C2"]...)
}
