package metrics

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// metricFamily is one metric's help, type and samples.
type metricFamily struct {
	name, help string
	samples    []string
}

// Options are how /metrics is written.
type Options struct {
	// Top is how many of the oldest holds get a redisson_hold_age_seconds
	// series of their own (one per object name); 0 none. It bounds the
	// series a scrape adds however many locks are held.
	Top int
}

// Write writes res as Prometheus text: the families in a fixed order, each
// object's samples in ls's (name) order.
func Write(w io.Writer, res *ls.Result, took time.Duration, failed error, opt Options) {
	s := newSet()
	s.add("redisson_up", nil, b2f(failed == nil))
	s.add("redisson_scrape_duration_seconds", nil, took.Seconds())
	if res != nil {
		s.add("redisson_scanned_keys", nil, float64(res.ScannedKeys))
		s.add("redisson_scan_truncated", nil, b2f(res.Truncated))
		s.addKinds(res.Objects)
		for _, o := range res.Objects {
			s.addObject(o)
		}
		s.addHolds(res.Objects, opt.Top)
	}
	if failed != nil {
		fmt.Fprintf(w, "# redisson dashboard: %s\n", strings.ToValidUTF8(strings.ReplaceAll(failed.Error(), "\n", " "), "?"))
	}
	for _, f := range s.fams {
		if len(f.samples) == 0 {
			continue
		}
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n", f.name, f.help, f.name)
		for _, s := range f.samples {
			fmt.Fprintln(w, s)
		}
	}
}

// set is the families of one scrape.
type set struct {
	fams []*metricFamily
	by   map[string]*metricFamily
}

func newSet() *set {
	s := &set{fams: families(), by: map[string]*metricFamily{}}
	for _, f := range s.fams {
		s.by[f.name] = f
	}
	return s
}

// families are the metrics, in the order they are written.
func families() []*metricFamily {
	return []*metricFamily{
		{name: "redisson_up", help: "1 when the last read of Redis succeeded."},
		{name: "redisson_scrape_duration_seconds", help: "Time the scan and look-ups of this scrape took."},
		{name: "redisson_scanned_keys", help: "Keys the scan found (at most --max-keys)."},
		{name: "redisson_scan_truncated", help: "1 when --max-keys cut the scan: objects are missing."},
		{name: "redisson_objects", help: "Redisson objects found, by kind."},
		{name: "redisson_lock_held", help: "1 when the lock (plain, fair, read-write) or group multi-lock has a holder."},
		{name: "redisson_lock_holders", help: "Owners holding the lock (hash fields)."},
		{name: "redisson_lock_gone_holders", help: "Owners holding the lock whose client has not refreshed its registration record for two refresh periods (died or cut off)."},
		{name: "redisson_waiters", help: "Connections subscribed to the object's channels: one per waiting client."},
		{name: "redisson_fair_lock_queue_length", help: "Waiters in a fair lock's queue."},
		{name: "redisson_ttl_seconds", help: "Time to live of the object's key; absent when it has none."},
		{name: "redisson_semaphore_permits", help: "Available permits of a semaphore or permit-expirable semaphore."},
		{name: "redisson_semaphore_acquired_permits", help: "Acquired permits of a permit-expirable semaphore whose lease has not passed."},
		{name: "redisson_semaphore_expired_permits", help: "Acquired permits of a permit-expirable semaphore whose lease has passed (back in the pool at its next use)."},
		{name: "redisson_latch_remaining", help: "Count of a count-down latch: the count-downs it still waits for."},
		{name: "redisson_integer_value", help: "Value of an integer string that may be an atomic long, semaphore or latch."},
		{name: "redisson_rate_limiter_rate", help: "Permits a rate limiter grants per interval."},
		{name: "redisson_rate_limiter_interval_seconds", help: "A rate limiter's interval."},
		{name: "redisson_fencing_token", help: "A fenced lock's last token."},
		{name: "redisson_cache_entries", help: "Entries of a map cache or local cached map, members of a set cache."},
		{name: "redisson_cache_entries_with_ttl", help: "Entries (members) of a map or set cache that have a time to live."},
		{name: "redisson_cache_entries_with_max_idle", help: "Entries of a map cache that have a max idle time."},
		{name: "redisson_cache_expired_uncleaned", help: "Entries of a map or set cache past their time that no clean-up removed yet (never returned by reads)."},
		{name: "redisson_cache_max_size", help: "A map cache's size limit; 0 for none."},
		{name: "redisson_listeners", help: "Subscribers of a cache's, counter's own channels: a local cached map's near caches, a cache's entry listeners, an adder's instances."},
		{name: "redisson_id_generator_block", help: "Ids an id generator's clients take per block."},
		{name: "redisson_bloom_filter_bits", help: "A Bloom filter's size in bits."},
		{name: "redisson_hyperloglog_estimate", help: "A HyperLogLog's cardinality estimate (PFCOUNT)."},
		{name: "redisson_atomic_double_value", help: "An atomic double's value."},
		{name: "redisson_oldest_hold_age_seconds", help: "Age of the oldest hold of each kind whose start a registration record lists (holds no record lists are in redisson_holds_unknown_age)."},
		{name: "redisson_hold_age_seconds", help: "Age of an object's oldest hold, for the objects of the --metrics-top oldest holds only (bounded: see redisson_hold_age_top)."},
		{name: "redisson_hold_age_top", help: "How many objects redisson_hold_age_seconds lists at most (--metrics-top)."},
		{name: "redisson_held_objects_with_age", help: "Held objects whose hold age a record gives; more than redisson_hold_age_top means the per-name series were cut."},
		{name: "redisson_holds_unknown_age", help: "Holds whose start no registration record lists (Java holders, registration off, semaphore permits): not in the age series."},
		{name: "redisson_gone_holders", help: "Holds, by kind, whose client has not refreshed its registration record for two refresh periods (died or cut off)."},
		{name: "redisson_client_holds", help: "Holds by client: the client id, program and host its registration record gives; record is live, gone, or none (no record: Java, registration off)."},
	}
}

// add adds a sample of the family name; labels are name, value pairs.
func (s *set) add(name string, labels []string, v float64) {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteString(" " + formatFloat(v))
	s.by[name].samples = append(s.by[name].samples, b.String())
}

// addKinds counts the objects by kind, kinds in order.
func (s *set) addKinds(objs []ls.Object) {
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Kind]++
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s.add("redisson_objects", []string{"kind", k}, float64(kinds[k]))
	}
}

// addObject adds the samples of one object that its kind has.
func (s *set) addObject(o ls.Object) {
	nk := []string{"name", o.Name, "kind", o.Kind}
	switch classify.Base(o.Kind) {
	case classify.Lock, classify.FairLock, classify.RWLock, classify.Group:
		s.add("redisson_lock_held", nk, b2f(len(o.Holders) > 0))
		s.add("redisson_lock_holders", nk, float64(len(o.Holders)))
		gone := 0
		for _, h := range o.Holders {
			if h.Client != nil && h.Client.Gone {
				gone++
			}
		}
		s.add("redisson_lock_gone_holders", nk, float64(gone))
	}
	if o.Kind != classify.Bucket && o.Kind != classify.RateLimiter && o.Kind != classify.Map && !classify.IsUnknown(o.Kind) && o.Cache == nil {
		s.add("redisson_waiters", nk, float64(o.Waiters))
	}
	if classify.Base(o.Kind) == classify.FairLock || o.Queue > 0 {
		s.add("redisson_fair_lock_queue_length", []string{"name", o.Name}, float64(o.Queue))
	}
	if o.TTLms >= 0 {
		s.add("redisson_ttl_seconds", nk, float64(o.TTLms)/1000)
	}
	switch {
	case o.Value == nil:
	case o.Kind == classify.Semaphore || o.Kind == classify.Expirable:
		s.add("redisson_semaphore_permits", nk, float64(*o.Value))
	case o.Kind == classify.Latch:
		s.add("redisson_latch_remaining", []string{"name", o.Name}, float64(*o.Value))
	default:
		s.add("redisson_integer_value", nk, float64(*o.Value))
	}
	if o.Acquired != nil {
		s.add("redisson_semaphore_acquired_permits", []string{"name", o.Name}, float64(*o.Acquired))
	}
	if o.Expired != nil {
		s.add("redisson_semaphore_expired_permits", []string{"name", o.Name}, float64(*o.Expired))
	}
	if rl := o.RateLimiter; rl != nil {
		s.add("redisson_rate_limiter_rate", []string{"name", o.Name, "type", rl.Type}, float64(rl.Rate))
		s.add("redisson_rate_limiter_interval_seconds", []string{"name", o.Name, "type", rl.Type}, float64(rl.IntervalMs)/1000)
	}
	if o.FencingToken != nil {
		s.add("redisson_fencing_token", []string{"name", o.Name}, float64(*o.FencingToken))
	}
	if o.Cache != nil {
		s.addCache(nk, o.Cache)
	}
}

// addCache adds the figures of a cache, counter or probabilistic object.
func (s *set) addCache(nk []string, c *objinfo.CacheStats) {
	for _, m := range []struct {
		name string
		v    *int64
	}{
		{"redisson_cache_entries", c.Entries}, {"redisson_cache_entries_with_ttl", c.WithTTL},
		{"redisson_cache_entries_with_max_idle", c.WithIdle}, {"redisson_cache_expired_uncleaned", sum(c.Expired, c.IdleExpired)},
		{"redisson_cache_max_size", c.MaxSize}, {"redisson_id_generator_block", c.Block},
		{"redisson_bloom_filter_bits", c.Bits}, {"redisson_hyperloglog_estimate", c.Estimate},
	} {
		if m.v != nil {
			s.add(m.name, nk, float64(*m.v))
		}
	}
	s.add("redisson_listeners", nk, float64(c.Listeners))
	if c.Double != nil {
		s.add("redisson_atomic_double_value", nk, *c.Double)
	}
}

// sum is a+b, nil when both are.
func sum(a, b *int64) *int64 {
	if a == nil && b == nil {
		return nil
	}
	var n int64
	for _, p := range []*int64{a, b} {
		if p != nil {
			n += *p
		}
	}
	return &n
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// escapeLabel escapes a label value as the text format wants (backslash,
// double quote, line feed). The format wants UTF-8: a value that is not
// (a key is any bytes) is written as the CLI prints it, quoted with its
// bytes escaped; so is one that starts with a quote, so that two keys
// never share a label value.
func escapeLabel(s string) string {
	if !utf8.ValidString(s) || strings.HasPrefix(s, `"`) {
		s = cliflag.Visible(s) // one to one: a quoted value is an escaped one
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func formatFloat(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%g", v)
}
