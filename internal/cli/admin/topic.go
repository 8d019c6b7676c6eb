package admin

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/get"
	"github.com/goredisson/redisson/pubsub"
)

const topicDescription = `
Publishes to or subscribes to the topic NAME, Redisson's RTopic: the same
channel and payload bytes as redisson.getTopic(NAME, codec) in Java.

  publish MSG   encodes MSG with --codec, publishes it and prints the
                receiver count Redis answers (for --reliable: the
                subscribers registered)
  subscribe     prints each message as it comes, one line each, until
                SIGINT/SIGTERM (exit 0), --count N messages (exit 0) or
                --wait D (exit 75 when fewer than --count messages came, or
                none at all without --count)

MSG is read per --codec (as "redisson get" names them):
  json, msgpack, typedjson   MSG is JSON text: '"text"', 42, '{"a":1}'; an
                             object is a java.util.HashMap, an array an
                             ArrayList, an integer beyond an int a Long
  string                     MSG as it is
  long                       a whole number (a negative one works: -5)
  bytes                      MSG's bytes as they are

A subscribe line is the message decoded with --codec, printed as one line of
JSON as "redisson get" prints a value (bytes as base64); with --pattern, the
channel and a tab come first. A line starting with "#" is no message:
  # gap: N messages dropped       the subscriber fell behind
  # gap: resubscribed             after a reconnect; what was published
                                  meanwhile is lost
  # error: ...                    a payload --codec cannot decode (counts
                                  towards --count)

--pattern   NAME is a glob pattern (PSUBSCRIBE; Java's getPatternTopic);
            subscribe only
--sharded   SPUBLISH / SSUBSCRIBE, Java's getShardedTopic (Redis 7+)
--reliable  Java's getReliableTopic: a stream NAME; subscribe is a new
            subscriber that first gets the messages still in the stream

Exit codes: 0 done (also on SIGINT/SIGTERM), 1 Redis failing or the
subscription ended by an error, 2 usage, 75 subscribe: --wait passed first.`

const topicExamples = `  redisson topic events publish '{"type":"deploy","version":"1.2"}'
  redisson topic greetings publish --codec string 'hello'
  redisson topic events subscribe                         # until Ctrl-C
  redisson topic 'events.*' subscribe --pattern --codec string
  redisson topic jobs subscribe --count 1 --wait 30s      # one message, or 75
  redisson topic orders publish --reliable '{"id":42}'`

// topicPublisher is what publish needs of Topic, ShardedTopic and
// ReliableTopic.
type topicPublisher interface {
	Publish(ctx context.Context, msg any) (int64, error)
}

// topicSubscription is what subscribe needs of Subscription and
// ReliableSubscription.
type topicSubscription interface {
	Messages() <-chan pubsub.Message[any]
	Close() error
	Err() error
}

// topicFlags are topic's own flags.
type topicFlags struct {
	codecName                  *string
	pattern, sharded, reliable *bool
	count                      *int
	waitFor                    *time.Duration
}

// Topic is "redisson topic".
func Topic(args []string) int {
	fs := cliflag.NewFlagSet("topic", "redisson topic [--codec C] [--pattern | --sharded | --reliable] [connection flags] NAME publish MSG | subscribe [--count N] [--wait D]",
		topicDescription, topicExamples)
	var cf conn.Flags
	cf.Register(fs)
	var o topicFlags
	o.codecName = fs.String("codec", "json", "`codec` of the messages: json, msgpack, typedjson, string, long, bytes")
	o.pattern = fs.Bool("pattern", false, "subscribe: NAME is a glob pattern (PSUBSCRIBE)")
	o.sharded = fs.Bool("sharded", false, "a sharded topic: SPUBLISH / SSUBSCRIBE (Redis 7+)")
	o.reliable = fs.Bool("reliable", false, "a reliable topic (Redisson's RReliableTopic, a stream)")
	o.count = fs.Int("count", 0, "subscribe: exit 0 after `N` messages (default: no limit)")
	o.waitFor = fs.Duration("wait", 0, "subscribe: stop after this `duration`, exit 75 if fewer than --count\nmessages came (without --count: none) (default: no limit)")
	pos, code, done := cliflag.ParseFlags(fs, keepNegatives(args), true)
	if done {
		return code
	}
	name, action, rest, code, ok := adminArgs(fs, "topic", pos, map[string]int{"publish": 1, "subscribe": 0}, "publish MSG or subscribe")
	if !ok {
		return code
	}
	newCodec, code, ok := o.check(fs, action)
	if !ok {
		return code
	}
	cd := newCodec()
	var msg any
	if action == "publish" {
		if msg, code, ok = topicMessage(fs, *o.codecName, rest[0]); !ok {
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
	if action == "publish" {
		return o.publish(ctx, fs.Name(), client, name, cd, msg)
	}
	return o.subscribe(ctx, fs, client, name, cd)
}

// check checks the codec and the flags that do not go together, and
// returns the codec's constructor.
func (o topicFlags) check(fs *flag.FlagSet, action string) (func() codec.Codec, int, bool) {
	newCodec, ok := get.Codecs[*o.codecName]
	if !ok {
		names := make([]string, 0, len(get.Codecs))
		for n := range get.Codecs {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, cliflag.UsageError(fs, "unknown --codec %q (want one of %s)", *o.codecName, strings.Join(names, ", ")), false
	}
	var kinds []string
	for k, on := range map[string]bool{"--pattern": *o.pattern, "--sharded": *o.sharded, "--reliable": *o.reliable} {
		if on {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	switch {
	case len(kinds) > 1:
		return nil, cliflag.UsageError(fs, "%s: choose one", strings.Join(kinds, " and ")), false
	case *o.pattern && action == "publish":
		return nil, cliflag.UsageError(fs, "--pattern goes with subscribe: publish to a channel, not a pattern"), false
	case action == "publish" && (cliflag.IsSet(fs, "count") || cliflag.IsSet(fs, "wait")):
		return nil, cliflag.UsageError(fs, "--count and --wait go with subscribe"), false
	case cliflag.IsSet(fs, "count") && *o.count < 1:
		return nil, cliflag.UsageError(fs, "--count must be at least 1 (got %d); leave it out for no limit", *o.count), false
	case cliflag.IsSet(fs, "wait") && *o.waitFor <= 0:
		return nil, cliflag.UsageError(fs, "--wait must be positive (got %v); leave it out to wait forever", *o.waitFor), false
	}
	return newCodec, cliflag.ExitOK, true
}

// publish publishes msg and prints how many received it.
func (o topicFlags) publish(ctx context.Context, prog string, client *redisson.Client, name string, cd codec.Codec, msg any) int {
	var p topicPublisher
	switch {
	case *o.sharded:
		p = redisson.NewShardedTopic[any](client, name, cd)
	case *o.reliable:
		p = redisson.NewReliableTopic[any](client, name, cd)
	default:
		p = redisson.NewTopic[any](client, name, cd)
	}
	n, err := p.Publish(ctx, msg)
	if err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	fmt.Println(n)
	return cliflag.ExitOK
}

// subscribe prints the messages until --count, --wait or a signal.
func (o topicFlags) subscribe(ctx context.Context, fs *flag.FlagSet, client *redisson.Client, name string, cd codec.Codec) int {
	// From here SIGINT and SIGTERM end the subscription, with exit 0.
	sigs := make(chan os.Signal, 2)
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
	defer signal.Stop(sigs)

	var sub topicSubscription
	var err error
	switch {
	case *o.pattern:
		sub, err = redisson.NewPatternTopic[any](client, name, cd).Subscribe(ctx)
	case *o.sharded:
		sub, err = redisson.NewShardedTopic[any](client, name, cd).Subscribe(ctx)
	case *o.reliable:
		sub, err = redisson.NewReliableTopic[any](client, name, cd).Subscribe(ctx)
	default:
		sub, err = redisson.NewTopic[any](client, name, cd).Subscribe(ctx)
	}
	if err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	defer sub.Close()
	return topicReceive(fs, sub, sigs, *o.pattern, *o.count, *o.waitFor)
}

// topicMessage turns publish's MSG into the value to encode with the codec
// called codecName.
func topicMessage(fs *flag.FlagSet, codecName, arg string) (any, int, bool) {
	switch codecName {
	case "string":
		return arg, cliflag.ExitOK, true
	case "bytes":
		return []byte(arg), cliflag.ExitOK, true
	case "long":
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return nil, cliflag.UsageError(fs, "publish: --codec long wants a whole number, got %q", arg), false
		}
		return n, cliflag.ExitOK, true
	}
	if !json.Valid([]byte(arg)) {
		return nil, cliflag.UsageError(fs, "publish: --codec %s wants MSG as JSON, got %q (quote a text: '\"hello\"', or use --codec string)", codecName, arg), false
	}
	// The codecs write a json.RawMessage as Jackson reads its JSON.
	return json.RawMessage(arg), cliflag.ExitOK, true
}

// topicReceive prints sub's messages until a signal, count messages or the
// wait.
func topicReceive(fs *flag.FlagSet, sub topicSubscription, sigs <-chan os.Signal, withChannel bool, count int, wait time.Duration) int {
	var deadline <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		deadline = t.C
	}
	got := 0
	for {
		select {
		case <-sigs:
			return cliflag.ExitOK
		case <-deadline:
			if count > 0 {
				fmt.Fprintf(os.Stderr, "%s: %d of %d messages within %v\n", fs.Name(), got, count, wait)
				return cliflag.ExitNotAcq
			}
			if got == 0 {
				fmt.Fprintf(os.Stderr, "%s: no message within %v\n", fs.Name(), wait)
				return cliflag.ExitNotAcq
			}
			return cliflag.ExitOK
		case m, ok := <-sub.Messages():
			if !ok {
				if err := sub.Err(); err != nil {
					return cliflag.Errorf(fs.Name(), "%v", err)
				}
				return cliflag.Errorf(fs.Name(), "the subscription ended")
			}
			line, isMsg := topicLine(m, withChannel)
			fmt.Println(line)
			if isMsg {
				got++
				if count > 0 && got >= count {
					return cliflag.ExitOK
				}
			}
		}
	}
}

// topicLine is subscribe's line for m, and whether m is a message (not a
// gap marker).
func topicLine(m pubsub.Message[any], withChannel bool) (string, bool) {
	if m.Gap != nil {
		switch {
		case m.Gap.Resubscribed && m.Gap.Dropped > 0:
			return fmt.Sprintf("# gap: resubscribed, %d messages dropped; more may be lost", m.Gap.Dropped), false
		case m.Gap.Resubscribed:
			return "# gap: resubscribed; messages published meanwhile are lost", false
		}
		return fmt.Sprintf("# gap: %d messages dropped", m.Gap.Dropped), false
	}
	var text string
	if m.Err != nil {
		text = "# error: " + strings.ReplaceAll(m.Err.Error(), "\n", " ")
	} else if out, err := json.Marshal(get.Printable(m.Value)); err != nil {
		text = "# error: " + err.Error()
	} else {
		text = string(out)
	}
	if withChannel {
		if m.Err != nil {
			return text + " (channel " + strconv.Quote(m.Channel) + ")", true
		}
		return cliflag.Visible(m.Channel) + "\t" + text, true
	}
	return text, true
}
