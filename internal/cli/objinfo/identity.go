package objinfo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/registry"
)

// ClientInfo is a holder's client as its registration record tells it
// (key redisson-go:client:<client id>, written by redisson-go clients).
type ClientInfo struct {
	Host      string `json:"host"`
	PID       int    `json:"pid"`
	Program   string `json:"program"`
	StartedMs int64  `json:"started_ms"`
	Library   string `json:"library"`
	// Version is the client's redisson.Version, "" for a client whose
	// record predates the field.
	Version string `json:"version,omitempty"`
	Go      string `json:"go"`
	// Gone says the client has not refreshed its record for longer than
	// its refresh period and a grace (registry.Record.Gone): it died, or
	// lost Redis. SeenAgoMs is how long ago it last wrote the record (by
	// the record's TTL and the key's PTTL), SeenMs when (the client's
	// clock).
	Gone      bool  `json:"gone"`
	SeenAgoMs int64 `json:"seen_ago_ms"`
	SeenMs    int64 `json:"seen_ms"`
}

// LibraryText names the client's library version: the release version and,
// when it says more (a build in the repository, a pseudo-version), the
// module version of the build: "v0.1.0 (devel)", "v0.1.0", "v0.0.9".
func (c *ClientInfo) LibraryText() string {
	if c.Version == "" {
		return c.Library
	}
	v := "v" + c.Version
	if c.Library != "" && c.Library != v {
		v += " " + c.Library
	}
	return v
}

// unknownClient is said of a holder whose client has no record.
const unknownClient = "unknown client (Java, or registration off)"

// clientRecord is one client's record and the key's PTTL when read.
type clientRecord struct {
	rec  *registry.Record
	pttl time.Duration
}

// Clients are the records of clients by id; a missing id has none.
type Clients map[string]clientRecord

// ReadClients reads the records of the client ids, pipelined: one GET and
// one PTTL each (on a cluster go-redis sends each to its key's master).
func ReadClients(ctx context.Context, rdb redis.UniversalClient, ids []string) (Clients, error) {
	out := Clients{}
	ids = Dedupe(ids)
	if len(ids) == 0 {
		return out, nil
	}
	pipe := rdb.Pipeline()
	gets := make([]*redis.StringCmd, len(ids))
	ttls := make([]*redis.DurationCmd, len(ids))
	for i, id := range ids {
		gets[i] = pipe.Get(ctx, registry.Key(id))
		ttls[i] = pipe.PTTL(ctx, registry.Key(id))
	}
	if err := ExecPipe(ctx, pipe); err != nil {
		return nil, err
	}
	for i, id := range ids {
		data, err := gets[i].Bytes()
		if err != nil {
			continue // no record (redis.Nil), or not a string
		}
		rec, err := registry.Parse(data)
		if err != nil || rec.ID != id {
			continue
		}
		pttl := ttls[i].Val()
		if pttl < 0 {
			pttl = -1
		}
		out[id] = clientRecord{rec: rec, pttl: pttl}
	}
	return out, nil
}

// HolderClients lists the client ids of holders and queued waiters.
func HolderClients(hs []Holder, qs []Queued) []string {
	var ids []string
	for _, h := range hs {
		if h.ClientID != nil {
			ids = append(ids, *h.ClientID)
		}
	}
	for _, q := range qs {
		if q.ClientID != nil {
			ids = append(ids, *q.ClientID)
		}
	}
	return ids
}

// info returns the client's identity, nil without a record.
func (m Clients) info(id *string) *ClientInfo {
	if id == nil {
		return nil
	}
	cr, ok := m[*id]
	if !ok {
		return nil
	}
	r := cr.rec
	gone, silent := r.Gone(cr.pttl)
	return &ClientInfo{Host: r.Host, PID: r.PID, Program: r.Program, StartedMs: r.StartedMs, Library: r.Library,
		Version: r.Version, Go: r.Go, Gone: gone, SeenAgoMs: silent.Milliseconds(), SeenMs: r.WrittenMs}
}

// Annotate fills in the holders' clients and, when the record lists the
// hold of field on key, how long it has lasted; and the waiters' clients.
func (m Clients) Annotate(key string, hs []Holder, qs []Queued) {
	for i := range hs {
		h := &hs[i]
		h.Client = m.info(h.ClientID)
		if h.Client == nil {
			continue
		}
		cr := m[*h.ClientID]
		if hold, ok := cr.rec.Find(key, h.Field); ok {
			ms := cr.rec.Age(hold.SinceMs, cr.pttl).Milliseconds()
			h.HeldForMs = &ms
		}
	}
	for i := range qs {
		qs[i].Client = m.info(qs[i].ClientID)
	}
}

// AnnotateGroup fills in the clients of a group's value owners.
func (m Clients) AnnotateGroup(gs []GroupValue) {
	for i := range gs {
		gs[i].Client = m.info(gs[i].ClientID)
	}
}

// ClientText is a client in a few words: "report.sh pid 4242 on web-3".
func ClientText(c *ClientInfo) string {
	if c == nil {
		return unknownClient
	}
	s := cliflag.Visible(c.Program) + " pid " + strconv.Itoa(c.PID) + " on " + cliflag.Visible(c.Host)
	if c.Gone {
		s = "GONE: " + s + ", " + GoneText(c)
	}
	return s
}

// GoneText says since when a gone client has not been seen: "not seen for
// 12s (last seen 2026-12-02T01:02:03Z, its clock)".
func GoneText(c *ClientInfo) string {
	return "not seen for " + FmtMillis(c.SeenAgoMs) + " (last seen " +
		time.UnixMilli(c.SeenMs).UTC().Format("2006-01-02T15:04:05Z") + ", its clock)"
}

// ClientShort is a client in one word for ls's table: program[pid]@host.
func ClientShort(c *ClientInfo) string {
	if c == nil {
		return unknownClient
	}
	s := fmt.Sprintf("%s[%d]@%s", cliflag.Visible(c.Program), c.PID, cliflag.Visible(c.Host))
	if c.Gone {
		s += " GONE " + FmtMillis(c.SeenAgoMs)
	}
	return s
}

// HeldForText is how long a hold has lasted, "-" when unknown.
func HeldForText(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return FmtMillis(*ms)
}
