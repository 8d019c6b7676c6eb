// Package registry publishes who a client is, what it holds and how many
// of its goroutines wait, for the operators' tools (redisson inspect, ls,
// dashboard): one string key per client, KeyPrefix + client id, holding a
// JSON Record, rewritten every refresh period with a PX expiry far longer
// than the period. A reader tells a live client from a dead one by the
// time since the last write (Record.Gone); the longer expiry keeps a dead
// client's record readable, as a tombstone, while what it held or queued
// for may still be in Redis.
//
// The key is this library's own: Redisson derives no key from a name that
// starts with "redisson-go:" (its derived keys start with "redisson_" or
// with the name in braces), and Java peers never read it. An object a user
// names "redisson-go:client:..." would share it: the prefix is reserved.
package registry

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/holds"
)

// KeyPrefix starts every client record's key; the client id follows.
const KeyPrefix = "redisson-go:client:"

// Module is the library's module path, whose version a record carries.
const Module = "github.com/goredisson/redisson"

// MaxHolds bounds the holds one record lists; HoldsTotal says how many
// there were.
const MaxHolds = 1000

// MaxWaiters bounds the channels one record lists waiters for.
const MaxWaiters = 1000

// Tombstone is the least PX of a record. Far longer than a refresh period,
// it keeps a dead client's record readable, so that tools show its holds
// and queue entries as a gone client's rather than an unknown one's, for
// as long as they may matter: a watchdog lease (30 s by default) and a
// fair-lock queue entry (stale after the 5 min of Redisson's wait timeout)
// end well within it, and it spans the dashboard's history window. Longer,
// the records of a process restarting in a loop would pile up.
const Tombstone = 15 * time.Minute

// MinGrace is the least time past a refresh period before a client
// counts as gone: a write held up by a slow Redis or a paused process is
// not a death.
const MinGrace = 3 * time.Second

// Key returns the key of the record of client id.
func Key(id string) string { return KeyPrefix + id }

// Record is what a client publishes about itself. Times are milliseconds
// since the epoch by the client's clock; a reader that wants durations
// without trusting that clock uses WrittenMs, TTLms and the key's PTTL
// (see Age).
type Record struct {
	ID      string `json:"id"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Program string `json:"program"`
	// StartedMs is when the client was created (redisson.New).
	StartedMs int64 `json:"started_ms"`
	// Library is the module version of github.com/goredisson/redisson in
	// the client's build, "(devel)" when unknown.
	Library string `json:"library"`
	// Version is the library's release version (redisson.Version), known
	// even when the build info is not (a build inside the repository).
	// Records of clients older than the field lack it: readers take "" as
	// unknown.
	Version string `json:"version,omitempty"`
	Go      string `json:"go"`
	// WrittenMs is when this version of the record was written: the
	// client's last-seen time. TTLms is the PX it was written with.
	WrittenMs int64 `json:"written_ms"`
	TTLms     int64 `json:"ttl_ms"`
	// PeriodMs is the time between two refreshes; 0 in records of clients
	// older than the field, whose TTL was 4 periods (see Period).
	PeriodMs int64 `json:"period_ms,omitempty"`
	// Waiters counts the client's goroutines waiting on each channel (a
	// lock's, a fair-lock waiter's, a semaphore's or a latch's), as of the
	// write; nil when none wait, or in records of older clients. At most
	// MaxWaiters channels are listed.
	Waiters map[string]int `json:"waiters,omitempty"`
	// Permits lists the semaphore permits the client took and has not
	// given back, by semaphore (at most MaxHolds); nil when none, or in
	// records of older clients.
	Permits []PermitHold `json:"permits,omitempty"`
	// Holds lists at most MaxHolds of the client's holds, oldest first.
	Holds      []Hold `json:"holds"`
	HoldsTotal int    `json:"holds_total"`
}

// Hold is one owner's hold on one lock key.
type Hold struct {
	Key string `json:"key"`
	// Owner is the hash field "<client id>:<owner id>[:write]".
	Owner  string `json:"owner"`
	Object string `json:"object"`
	// SinceMs is when the owner's outermost hold was asked for.
	SinceMs int64 `json:"since_ms"`
	Depth   int   `json:"depth"`
}

// PermitHold is a client's permits of one semaphore.
type PermitHold struct {
	// Key is the semaphore's name (its key).
	Key   string `json:"key"`
	Count int    `json:"count"`
	// IDs are a permit-expirable semaphore's permit ids (hex, as the
	// zset's members read as hex); empty for a plain semaphore.
	IDs []string `json:"ids,omitempty"`
}

// Find returns the hold of owner field on key, if the record lists it.
func (r *Record) Find(key, owner string) (Hold, bool) {
	for _, h := range r.Holds {
		if h.Key == key && h.Owner == owner {
			return h, true
		}
	}
	return Hold{}, false
}

// Age returns how long ago, by the writer's clock, at was: the time from
// at to the write, plus the time since the write as the key's remaining
// PTTL tells it (the reader's clock is not used). pttl < 0 (unknown)
// counts the write as just now.
func (r *Record) Age(atMs int64, pttl time.Duration) time.Duration {
	d := time.Duration(r.WrittenMs-atMs) * time.Millisecond
	if pttl >= 0 && r.TTLms > 0 {
		if since := time.Duration(r.TTLms)*time.Millisecond - pttl; since > 0 {
			d += since
		}
	}
	return max(d, 0)
}

// Period is the client's refresh period: PeriodMs, or for a record of an
// older client (TTL of 4 periods) a quarter of its TTL.
func (r *Record) Period() time.Duration {
	if r.PeriodMs > 0 {
		return time.Duration(r.PeriodMs) * time.Millisecond
	}
	return time.Duration(r.TTLms) * time.Millisecond / 4
}

// GoneAfter is how long after its last write a client counts as gone: one
// refresh period plus a grace of another (at least MinGrace).
func (r *Record) GoneAfter() time.Duration {
	p := r.Period()
	return p + max(p, MinGrace)
}

// Silence returns how long ago the record was written, by its TTL and the
// key's remaining PTTL (no clock is compared); ok is false when pttl is
// unknown (< 0).
func (r *Record) Silence(pttl time.Duration) (time.Duration, bool) {
	if pttl < 0 || r.TTLms <= 0 {
		return 0, false
	}
	return max(time.Duration(r.TTLms)*time.Millisecond-pttl, 0), true
}

// Gone reports whether the client has not been seen for longer than
// GoneAfter, and how long ago it was last seen.
func (r *Record) Gone(pttl time.Duration) (gone bool, silent time.Duration) {
	silent, ok := r.Silence(pttl)
	return ok && silent > r.GoneAfter(), silent
}

// Parse decodes a record's value.
func Parse(data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// LibraryVersion is the version of Module in this binary's build info:
// the main module's when it is the library itself, else its dependency
// entry; "(devel)" when the build has none.
func LibraryVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if bi.Main.Path == Module && bi.Main.Version != "" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == Module {
			if d.Replace != nil {
				// A directory replacement has no version; a module
				// replacement has its own.
				if d.Replace.Version != "" {
					return d.Replace.Version
				}
				return "(devel)"
			}
			if d.Version != "" {
				return d.Version
			}
		}
	}
	return "(devel)"
}

// Config is what a Registrar publishes and how often.
type Config struct {
	Redis redis.UniversalClient
	// ID is the client id.
	ID string
	// Version is the library's release version the record carries.
	Version string
	// Held lists the client's holds; Changed gets a token after they
	// change.
	Held    func() []holds.Held
	Changed <-chan struct{}
	// Waiters counts the client's waiting goroutines by channel; nil
	// lists none. WaitersChanged gets a token after they change.
	Waiters        func() map[string]int
	WaitersChanged <-chan struct{}
	// Permits lists the semaphore permits the client holds; nil lists
	// none. PermitsChanged gets a token after they change.
	Permits        func() []PermitHold
	PermitsChanged <-chan struct{}
	// Period is the time between two refreshes; TTL the record's PX.
	Period, TTL time.Duration
	// MinGap is the least time between two writes: changes that come
	// faster are coalesced into one write.
	MinGap time.Duration
	// Timeout bounds one write and the final delete.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Registrar writes one client's record until Close or Abandon.
type Registrar struct {
	cfg  Config
	base Record
	stop chan struct{}
	done chan struct{}
	once sync.Once
	// life ends with Abandon: a write stalled on a Redis that does not
	// answer (a go-redis client without ReadTimeout waits forever) must not
	// hold up Close.
	life   context.Context
	finish context.CancelFunc
	// writes counts the record writes still running, an abandoned one
	// included: Close waits for them before its delete, or a write landing
	// after the delete would leave the record behind until it expires.
	writes sync.WaitGroup
}

// Start writes the record at once (in the background) and keeps it fresh.
// It never fails: write errors are logged.
func Start(cfg Config) *Registrar {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MinGap <= 0 {
		cfg.MinGap = 250 * time.Millisecond
	}
	host, _ := os.Hostname()
	r := &Registrar{
		cfg: cfg,
		base: Record{
			ID: cfg.ID, Host: host, PID: os.Getpid(), Program: filepath.Base(os.Args[0]),
			StartedMs: time.Now().UnixMilli(), Library: LibraryVersion(), Version: cfg.Version,
			Go: runtime.Version(), TTLms: cfg.TTL.Milliseconds(), PeriodMs: cfg.Period.Milliseconds(),
		},
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	r.life, r.finish = context.WithCancel(context.Background())
	go r.loop()
	return r
}

// loop writes the record now, after each change (at most one write per
// MinGap) and every Period.
func (r *Registrar) loop() {
	defer close(r.done)
	tick := time.NewTicker(r.cfg.Period)
	defer tick.Stop()
	var gap *time.Timer // pending coalesced write
	var gapC <-chan time.Time
	last := time.Time{}
	failing := false
	write := func() {
		last = time.Now()
		ctx, cancel := context.WithTimeout(r.life, r.cfg.Timeout)
		defer cancel()
		r.writes.Add(1)
		_, err := conns.Bounded(ctx, func(ctx context.Context) (struct{}, error) {
			defer r.writes.Done()
			return struct{}{}, r.write(ctx)
		})
		switch {
		case err != nil && r.life.Err() != nil:
			// Abandon or Close cut this write short: Redis is not at
			// fault, and Close deletes the record anyway.
		case err != nil && !failing:
			// Once per run of failures: a write an ACL refuses fails on
			// every refresh.
			failing = true
			r.cfg.Logger.Warn(writeFailed(err), "key", Key(r.cfg.ID), "err", err)
		case err != nil:
			r.cfg.Logger.Debug("redisson: registration record write failed again", "key", Key(r.cfg.ID), "err", err)
		case failing:
			failing = false
			r.cfg.Logger.Debug("redisson: registration record written again", "key", Key(r.cfg.ID))
		}
	}
	changed := func() {
		if gapC != nil {
			return // a write is already due
		}
		wait := r.cfg.MinGap - time.Since(last)
		if wait <= 0 {
			write()
			return
		}
		gap = time.NewTimer(wait)
		gapC = gap.C
	}
	write()
	for {
		select {
		case <-r.stop:
			if gap != nil {
				gap.Stop()
			}
			return
		case <-tick.C:
			write()
		case <-r.cfg.Changed:
			changed()
		case <-r.cfg.PermitsChanged:
			changed()
		case <-r.cfg.WaitersChanged:
			changed()
		case <-gapC:
			gap, gapC = nil, nil
			write()
		}
	}
}

// writeFailed is the warning of a failed record write: what the ACL must
// allow when Redis refused it with NOPERM.
func writeFailed(err error) string {
	const tail = "; tools show this client's holds as held by an unknown client (logged once until a write succeeds)"
	if strings.HasPrefix(err.Error(), "NOPERM") {
		return "redisson: cannot write the client's registration record: the ACL must allow SET and DEL on " +
			"~" + KeyPrefix + "*, or turn the registration off (RegistrationOptions.Disabled)" + tail
	}
	return "redisson: cannot write the client's registration record" + tail
}

// Snapshot returns the record as it would be written now.
func (r *Registrar) Snapshot() Record {
	rec := r.base
	held := r.cfg.Held()
	sort.Slice(held, func(i, j int) bool {
		if !held[i].Since.Equal(held[j].Since) {
			return held[i].Since.Before(held[j].Since)
		}
		return held[i].Key+"\x00"+held[i].Owner < held[j].Key+"\x00"+held[j].Owner
	})
	rec.HoldsTotal = len(held)
	if len(held) > MaxHolds {
		held = held[:MaxHolds]
	}
	rec.Holds = make([]Hold, len(held))
	for i, h := range held {
		rec.Holds[i] = Hold{Key: h.Key, Owner: h.Owner, Object: h.Object, SinceMs: h.Since.UnixMilli(), Depth: h.Depth}
	}
	if r.cfg.Waiters != nil {
		rec.Waiters = capWaiters(r.cfg.Waiters())
	}
	if r.cfg.Permits != nil {
		if ps := r.cfg.Permits(); len(ps) > 0 {
			rec.Permits = ps[:min(len(ps), MaxHolds)]
		}
	}
	rec.WrittenMs = time.Now().UnixMilli()
	return rec
}

// capWaiters keeps the MaxWaiters channels with the most waiters (by name
// among equals); nil when none wait.
func capWaiters(w map[string]int) map[string]int {
	if len(w) == 0 {
		return nil
	}
	if len(w) <= MaxWaiters {
		return w
	}
	chans := make([]string, 0, len(w))
	for c := range w {
		chans = append(chans, c)
	}
	sort.Slice(chans, func(i, j int) bool {
		if w[chans[i]] != w[chans[j]] {
			return w[chans[i]] > w[chans[j]]
		}
		return chans[i] < chans[j]
	})
	out := make(map[string]int, MaxWaiters)
	for _, c := range chans[:MaxWaiters] {
		out[c] = w[c]
	}
	return out
}

func (r *Registrar) write(ctx context.Context) error {
	rec := r.Snapshot()
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return r.cfg.Redis.Set(ctx, Key(r.cfg.ID), data, r.cfg.TTL).Err()
}

// Abandon stops refreshing without deleting the record, as a process that
// died would: the record expires with its PX.
func (r *Registrar) Abandon() {
	r.once.Do(func() {
		close(r.stop)
		r.finish()
	})
	<-r.done
}

// Close stops refreshing and deletes the record, bounded by Timeout.
func (r *Registrar) Close() {
	r.Abandon()
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.Timeout)
	defer cancel()
	written := make(chan struct{})
	go func() {
		r.writes.Wait()
		close(written)
	}()
	select {
	case <-written:
	case <-ctx.Done():
		// Redis does not answer: the delete below is bounded the same way,
		// and the record expires by itself if a write lands after it.
	}
	_, err := conns.Bounded(ctx, func(ctx context.Context) (int64, error) { return r.cfg.Redis.Del(ctx, Key(r.cfg.ID)).Result() })
	if err != nil {
		r.cfg.Logger.Debug("redisson: cannot delete the client's registration record; it expires by itself",
			"key", Key(r.cfg.ID), "err", err)
	}
}

// IsKey reports whether key is a client record's key.
func IsKey(key string) bool { return strings.HasPrefix(key, KeyPrefix) }
