package inspect

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/keys"
	"github.com/redis/go-redis/v9"
)

// rateLimiter reads a rate limiter's config from its hash fields and the
// state of its windows: the shared window for OVERALL, every client's window
// found by SCAN for PER_CLIENT. It does not change anything: the permits of
// grants that left the window are added back as the next script would.
func rateLimiter(ctx context.Context, rdb redis.UniversalClient, name string, fields map[string]string) (*objinfo.RateLimiter, []objinfo.KeyInfo, error) {
	num := func(f string) int64 { n, _ := strconv.ParseInt(fields[f], 10, 64); return n }
	rl := &objinfo.RateLimiter{Rate: num("rate"), IntervalMs: num("interval"), Type: objinfo.RateTypeName(fields["type"]),
		KeepAliveMs: num("keepAliveTime"), Windows: []objinfo.RateWindow{}}
	value, permits := keys.RateLimiterValue(name), keys.RateLimiterPermits(name)
	type window struct {
		client         *string
		value, permits string
	}
	var windows []window
	switch fields["type"] {
	case "0":
		windows = append(windows, window{nil, value, permits})
	case "1":
		clients, err := scanSuffixes(ctx, rdb, name, []string{value + ":", permits + ":"})
		if err != nil {
			return nil, nil, err
		}
		for _, c := range clients {
			windows = append(windows, window{&c, value + ":" + c, permits + ":" + c})
		}
	}
	now := time.Now().UnixMilli()
	var keys []objinfo.KeyInfo
	for _, w := range windows {
		rw := objinfo.RateWindow{ClientID: w.client, ValueKey: w.value, PermitsKey: w.permits}
		vi, err := objinfo.ReadKey(ctx, rdb, w.value)
		if err != nil {
			return nil, nil, err
		}
		pi, err := objinfo.ReadKey(ctx, rdb, w.permits)
		if err != nil {
			return nil, nil, err
		}
		rw.ValueTTLms = vi.TTLms
		for _, ki := range []objinfo.KeyInfo{vi, pi} {
			if ki.Type != "none" {
				keys = append(keys, ki)
			}
		}
		if err := fillWindow(ctx, rdb, rl, &rw, vi.Type, pi.Type, now); err != nil {
			return nil, nil, err
		}
		rl.Windows = append(rl.Windows, rw)
	}
	return rl, keys, nil
}

// fillWindow reads a window's value and grants. Available is what
// availablePermits would answer now: an absent value is the full rate, else
// the value plus the permits of grants older than the interval. Used and
// Grants count the grants still in the window.
func fillWindow(ctx context.Context, rdb redis.UniversalClient, rl *objinfo.RateLimiter, rw *objinfo.RateWindow, valueType, permitsType string, now int64) error {
	if valueType == "string" {
		v, err := rdb.Get(ctx, rw.ValueKey).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("GET %s: %w", rw.ValueKey, err)
		}
		if n, perr := strconv.ParseInt(v, 10, 64); err == nil && perr == nil {
			rw.Value = &n
		}
	}
	var released int64
	if permitsType == "zset" {
		zs, err := rdb.ZRangeWithScores(ctx, rw.PermitsKey, 0, -1).Result()
		if err != nil {
			return fmt.Errorf("ZRANGE %s: %w", rw.PermitsKey, err)
		}
		cutoff := now - rl.IntervalMs
		for _, z := range zs {
			m, _ := z.Member.(string)
			p, ok := grantPermits(m)
			if !ok {
				rw.UnreadGrant = true
				continue
			}
			if int64(z.Score) <= cutoff {
				released += p
				continue
			}
			rw.Used += p
			rw.InWindow = append(rw.InWindow, objinfo.Grant{AtMs: int64(z.Score), Permits: p})
			if rw.Grants == 0 {
				in := int64(z.Score) + rl.IntervalMs - now
				rw.RefillInMs = &in
			}
			rw.Grants++
		}
	}
	switch {
	case rw.Value == nil:
		rw.Available = rl.Rate
	default:
		rw.Available = *rw.Value + released
	}
	return nil
}

// grantPermits decodes a grant: Lua struct 'Bc0I', a length byte, that many
// random bytes and a uint32 little-endian permit count.
func grantPermits(m string) (int64, bool) {
	if len(m) < 1 {
		return 0, false
	}
	n := int(m[0])
	if len(m) != 1+n+4 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint32([]byte(m[1+n:]))), true
}

// scanSuffixes returns, sorted, the distinct suffixes after each prefix of
// the keys that exist (at most objinfo.MaxListed). The keys share the name's hash
// tag, so in a cluster the master owning the name's slot holds them all.
func scanSuffixes(ctx context.Context, rdb redis.UniversalClient, name string, prefixes []string) ([]string, error) {
	var node redis.UniversalClient = rdb
	if c, ok := rdb.(*redis.ClusterClient); ok {
		m, err := c.MasterForKey(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("master of %s: %w", name, err)
		}
		node = m
	}
	seen := map[string]bool{}
	for _, p := range prefixes {
		var cursor uint64
		for {
			keys, next, err := node.Scan(ctx, cursor, globEscape(p)+"*", 1000).Result()
			if err != nil {
				return nil, fmt.Errorf("SCAN %s*: %w", p, err)
			}
			for _, k := range keys {
				if s := strings.TrimPrefix(k, p); s != "" && len(seen) < objinfo.MaxListed {
					seen[s] = true
				}
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

// globEscape quotes the characters SCAN MATCH treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// printRateLimiter prints a rate limiter's config and windows.
func printRateLimiter(w io.Writer, rl *objinfo.RateLimiter, row func(k, format string, a ...any)) {
	row("rate", "%d permits per %s (%s)", rl.Rate, objinfo.FmtMillis(rl.IntervalMs), rl.Type)
	if rl.KeepAliveMs > 0 {
		row("keep-alive", "%s after the last use", objinfo.FmtMillis(rl.KeepAliveMs))
	}
	switch {
	case len(rl.Windows) == 0 && rl.Type == "PER_CLIENT":
		row("windows", "none yet: no client has acquired")
	case len(rl.Windows) == 0:
		row("windows", "none: unknown type")
	case rl.Type == "PER_CLIENT":
		row("windows", "%d clients", len(rl.Windows))
	}
	for _, win := range rl.Windows {
		who := "shared window"
		if win.ClientID != nil {
			who = "client " + *win.ClientID
		}
		state := fmt.Sprintf("available %d, used %d in %d grant(s)", win.Available, win.Used, win.Grants)
		if win.Value == nil {
			state = fmt.Sprintf("available %d (not used yet)", win.Available)
		}
		if win.RefillInMs != nil {
			state += ", oldest leaves in " + objinfo.FmtMillis(*win.RefillInMs)
		}
		if win.UnreadGrant {
			state += " (some grants are not in Redisson 3.17+'s layout)"
		}
		fmt.Fprintf(w, "    %s  %s\n", who, state)
	}
}
