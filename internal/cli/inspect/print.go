package inspect

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/get"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

func printReport(w io.Writer, r *Report) {
	fmt.Fprintf(w, "%s\n", cliflag.Visible(r.Name))
	row := func(k, format string, a ...any) { fmt.Fprintf(w, "  %-12s %s\n", k, fmt.Sprintf(format, a...)) }
	kind := r.Kind
	switch {
	case classify.IsUnknown(r.Kind):
		kind = "unknown (" + unknownText(r) + ")"
	case r.Kind == classify.AtomicLong:
		kind = "integer string: an atomic long, or a semaphore/latch with no waiters (Redis " + r.Type + ")"
	case r.Type != "none":
		kind += " (Redis " + r.Type + ")"
	}
	row("kind", "%s", kind)
	if r.Type != "none" {
		row("ttl", "%s", ttlText(r.TTLms))
	}
	if r.Mode != nil {
		row("mode", "%s", *r.Mode)
	}
	if r.Value != nil {
		label := "value"
		switch r.Kind {
		case classify.Semaphore:
			label = "permits"
		case classify.Expirable:
			label = "available"
		case classify.Latch:
			label = "count"
		case classify.SemOrLatch:
			label = "value"
		}
		row(label, "%d", *r.Value)
	}
	if r.Kind == classify.Bucket {
		printBucket(w, r, row)
	}
	if r.Cache != nil {
		row("state", "%s", objinfo.CacheState(r.Kind, r.Cache))
		for _, l := range r.Listeners {
			row("listeners", "%s: %d", cliflag.Visible(l.Channel), objinfo.ChannelWaiters([]objinfo.ChannelSub{l}, l.Channel))
		}
	}
	if r.RateLimiter != nil {
		printRateLimiter(w, r.RateLimiter, row)
	}
	if r.FencingToken != nil {
		row("token", "%d (fenced lock's last token)", *r.FencingToken)
	}
	if r.Kind == classify.Group {
		printGroup(w, r, row)
	}
	printHolders(w, r, row)
	printQueue(w, r, row)
	printPermits(w, r, row)
	printWaitersAndKeys(w, r, row)
}

// printHolders prints a lock's holders with their clients.
func printHolders(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	if strings.HasSuffix(r.Kind, "lock") && r.Kind != classify.Group {
		if len(r.Holders) == 0 {
			row("holders", "none")
		} else {
			row("holders", "%d", len(r.Holders))
		}
		for _, h := range r.Holders {
			fmt.Fprintf(w, "    %s\n", HolderText(h))
			if h.ClientID != nil {
				fmt.Fprintf(w, "      %s\n", identityText(h))
			}
		}
	}
}

// printQueue prints a fair lock's queue, head first.
func printQueue(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	if len(r.Queue) > 0 {
		row("queue", "%d waiting, head first", len(r.Queue))
		now := time.Now().UnixMilli()
		for _, q := range r.Queue {
			t := "no timeout"
			if q.TimeoutMs != nil {
				if q.Stale {
					t = fmt.Sprintf("stale for %s: dropped at the head, re-queued at the tail if still waiting", objinfo.FmtMillis(now-*q.TimeoutMs))
				} else {
					t = fmt.Sprintf("stale in %s, then re-queued at the tail if still waiting", objinfo.FmtMillis(*q.TimeoutMs-now))
				}
			}
			fmt.Fprintf(w, "    %s  %s\n", ownerText(q.Field, q.ClientID, q.OwnerID), t)
			if q.ClientID != nil {
				fmt.Fprintf(w, "      %s\n", objinfo.ClientText(q.Client))
			}
		}
	}
}

// printPermits prints a permit-expirable semaphore's acquired permits.
func printPermits(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	if r.Kind == classify.Expirable {
		expired := 0
		for _, p := range r.Permits {
			if p.Expired {
				expired++
			}
		}
		if expired > 0 {
			row("acquired", "%d permits, %d of them expired (back in the pool when the semaphore is next used)", len(r.Permits), expired)
		} else {
			row("acquired", "%d permits", len(r.Permits))
		}
		for _, p := range r.Permits {
			t := "no lease"
			if p.ExpiresMs != nil {
				at := time.UnixMilli(*p.ExpiresMs).UTC().Format("2006-01-02T15:04:05.000Z")
				if p.Expired {
					t = "expired " + objinfo.FmtMillis(-*p.ExpiresInMs) + " ago, at " + at
				} else {
					t = "expires in " + objinfo.FmtMillis(*p.ExpiresInMs) + ", at " + at
				}
			}
			fmt.Fprintf(w, "    %s  %s\n", p.ID, t)
			if p.ClientID != nil {
				fmt.Fprintf(w, "      client %s: %s\n", *p.ClientID, objinfo.ClientText(p.Client))
			}
		}
	}
	if len(r.PermitHolders) > 0 {
		row("holders", "%d client(s) hold permits, from their records", len(r.PermitHolders))
		for _, h := range r.PermitHolders {
			fmt.Fprintf(w, "    client %s  holds %d permit(s)\n      %s\n", h.ClientID, h.Permits, objinfo.ClientText(h.Client))
		}
	}
}

// printWaitersAndKeys prints the subscribers of each channel and the keys.
func printWaitersAndKeys(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	if r.Kind != classify.Bucket && r.Kind != classify.RateLimiter && r.Kind != classify.Map {
		row("waiters", "%s", waitersText(r))
	}
	for _, c := range r.Channels {
		shard := "n/a"
		if c.ShardSubscribers != nil {
			shard = strconv.FormatInt(*c.ShardSubscribers, 10)
		}
		fmt.Fprintf(w, "    %s  SUBSCRIBE %d, SSUBSCRIBE %s\n", cliflag.Visible(c.Channel), c.Subscribers, shard)
	}
	if len(r.Keys) > 0 {
		fmt.Fprintf(w, "  keys\n")
		for _, k := range r.Keys {
			fmt.Fprintf(w, "    %s  %s, ttl %s\n", cliflag.Visible(k.Key), k.Type, ttlText(k.TTLms))
		}
	}
}

// waitersText counts the waiting goroutines where the clients' records
// list them, and the subscribed connections of clients without one.
func waitersText(r *Report) string {
	switch {
	case r.Waiters == 0:
		return "0 subscribed connection(s)"
	case r.Waiting == 0:
		return fmt.Sprintf("%d subscribed connection(s), one per waiting client without a record (Java, registration off)", r.WaiterConnections)
	case r.WaiterConnections == 0:
		return fmt.Sprintf("%d goroutine(s) waiting, as the clients' records count them", r.Waiting)
	}
	return fmt.Sprintf("%d goroutine(s) waiting, as the clients' records count them, and %d subscribed connection(s) "+
		"of clients without a record (Java, registration off), one per waiting client", r.Waiting, r.WaiterConnections)
}

// bucketLines and bucketBytes bound a bucket's value as inspect prints it;
// "redisson get" prints it all.
const (
	bucketLines = 40
	bucketBytes = 4096
)

// printBucket prints a bucket's codec and value.
func printBucket(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	name := *r.Codec
	switch name {
	case codec.GuessBytes:
		row("codec", "bytes: ByteArrayCodec, or Kryo5Codec (Redisson's default since 3.19) or")
		row("", "another Java-only codec, which Go cannot read. Kryo is not portable: to share")
		row("", "the value, both sides use a portable codec, in Java for example")
		row("", "config.setCodec(new org.redisson.codec.JsonJacksonCodec())")
	case codec.GuessString:
		row("codec", "string (%s, guessed from the bytes)", get.CodecJava[name])
		if json.Valid(r.raw) {
			row("", "also JSON without type information: a String, Integer or Boolean of JsonJacksonCodec,")
			row("", "or TypedJsonJacksonCodec (try \"redisson get --codec json\" or \"--codec typedjson\")")
		}
	default:
		row("codec", "%s (%s, guessed from the bytes)", name, get.CodecJava[name])
	}
	row("size", "%d bytes", *r.Size)
	if r.decodeErr != nil {
		row("value", "%v", r.decodeErr) // the codec's error says "cannot decode" itself
		return
	}
	out, err := get.PrintJSON(r.Decoded)
	if err != nil {
		row("value", "cannot print: %v", err)
		return
	}
	cut := false
	if len(out) > bucketBytes {
		n := bucketBytes
		for n > 0 && !utf8.RuneStart(out[n]) {
			n--
		}
		out, cut = out[:n], true
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) > bucketLines {
		lines, cut = lines[:bucketLines], true
	}
	if cut {
		lines[len(lines)-1] += "…"
		lines = append(lines, fmt.Sprintf("(cut short: redisson get --codec %s %s prints it all)", name, cliflag.ShellQuote(r.Name)))
	}
	row("value", "%s", lines[0])
	for _, l := range lines[1:] {
		row("", "%s", l)
	}
	if name == codec.GuessBytes {
		const shown = 32
		if len(r.raw) > shown {
			row("hex", "%s… (first %d bytes)", hex.EncodeToString(r.raw[:shown]), shown)
		} else {
			row("hex", "%s", hex.EncodeToString(r.raw))
		}
	}
}

// redisValue says what an unknown key holds: "Redis list", "Redis string
// that is not an integer".
func redisValue(r *Report) string {
	if r.Type == "string" {
		return "Redis string that is not an integer"
	}
	return "Redis " + r.Type
}

// unknownText is the kind line of an unknown key.
func unknownText(r *Report) string {
	return redisValue(r) + ", not a Redisson lock or synchronizer"
}

// DescribeKind names what a report found, with an article: "a semaphore",
// "a Redis list", "nothing".
func DescribeKind(r *Report) string {
	switch {
	case r.Kind == classify.None:
		return "nothing"
	case classify.IsUnknown(r.Kind), r.Kind == classify.Bucket:
		return "a " + redisValue(r)
	case r.Kind == classify.AtomicLong:
		return "an integer string (a semaphore or count-down latch nobody waits on, or an atomic long)"
	case r.Kind == classify.SemOrLatch:
		return "a semaphore or count-down latch"
	case r.Kind == classify.UnlockLatch:
		return "an unlock latch (a lock's key for a retried unlock)"
	}
	return "a " + r.Kind
}

// HolderText is a holder's line: its owner and holds, with a read
// hold's TTLs.
func HolderText(h objinfo.Holder) string {
	s := ownerText(h.Field, h.ClientID, h.OwnerID)
	switch h.Mode {
	case "exclusive":
		return fmt.Sprintf("%s  holds %d", s, h.Holds)
	default:
		s = fmt.Sprintf("%s  %s ×%d", s, h.Mode, h.Holds)
		if len(h.ReadTTLsms) > 0 {
			ttls := make([]string, len(h.ReadTTLsms))
			for i, t := range h.ReadTTLsms {
				ttls[i] = ttlText(t)
			}
			s += "  (read holds expire in " + strings.Join(ttls, ", ") + ")"
		}
		return s
	}
}

// identityText is a holder's client and how long it has held: "report.sh
// pid 4242 on web-3, held for 12.5s".
func identityText(h objinfo.Holder) string {
	s := objinfo.ClientText(h.Client)
	if h.Client == nil {
		return s
	}
	if h.HeldForMs != nil {
		s += ", held for " + objinfo.FmtMillis(*h.HeldForMs)
	}
	return s + " (redisson-go " + h.Client.LibraryText() + ", " + h.Client.Go + ", client started " +
		time.UnixMilli(h.Client.StartedMs).UTC().Format("2006-01-02T15:04:05Z") + ")"
}

func ownerText(field string, client *string, owner *int64) string {
	if client == nil || owner == nil {
		return fmt.Sprintf("field %q (not a Redisson owner)", field)
	}
	return fmt.Sprintf("client %s  owner %d", *client, *owner)
}

func ttlText(ms int64) string {
	switch ms {
	case -1:
		return "none (no expiry)"
	case -2:
		return "no key"
	}
	return objinfo.FmtMillis(ms)
}

// printGroup prints a group multi-lock's values.
func printGroup(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	if len(r.GroupValues) == 0 {
		row("values", "none held")
		return
	}
	row("values", "%d held (field id = HighwayHash of the value; the value itself is not stored)", len(r.GroupValues))
	for _, g := range r.GroupValues {
		exp := "no expire_time"
		switch {
		case g.ExpiresInMs == nil:
		case g.Expired:
			exp = "expired " + objinfo.FmtMillis(-*g.ExpiresInMs) + " ago (free for another owner)"
		default:
			exp = "expires in " + objinfo.FmtMillis(*g.ExpiresInMs)
		}
		fmt.Fprintf(w, "    %s  %s  holds %d  %s\n", cliflag.Visible(g.Field), ownerText(g.Field, g.ClientID, g.OwnerID), g.Holds, exp)
		if g.ClientID != nil {
			fmt.Fprintf(w, "      %s\n", objinfo.ClientText(g.Client))
		}
	}
}
