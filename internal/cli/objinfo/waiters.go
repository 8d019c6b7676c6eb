package objinfo

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/registry"
)

// recordScanCount is the COUNT hint of the SCAN that finds the clients'
// records: the records are few among many keys, so each call looks at
// many.
const recordScanCount = 5000

// ReadAllClients reads the record of every client (SCAN MATCH
// redisson-go:client:*, on every master of a cluster), adding them to m.
// Only the waiters' counts need it: a holder's record is found by its id.
func (m Clients) ReadAllClients(ctx context.Context, rdb redis.UniversalClient) error {
	var mu sync.Mutex
	var ids []string
	scan := func(ctx context.Context, node redis.UniversalClient) error {
		var cursor uint64
		for {
			keys, next, err := node.Scan(ctx, cursor, registry.KeyPrefix+"*", recordScanCount).Result()
			if err != nil {
				return fmt.Errorf("SCAN %s*: %w", registry.KeyPrefix, err)
			}
			mu.Lock()
			for _, k := range keys {
				ids = append(ids, k[len(registry.KeyPrefix):])
			}
			mu.Unlock()
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	}
	var err error
	if c, ok := rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return scan(ctx, node) })
	} else {
		err = scan(ctx, rdb)
	}
	if err != nil {
		return err
	}
	more, err := ReadClients(ctx, rdb, ids)
	if err != nil {
		return err
	}
	for id, cr := range more {
		m[id] = cr
	}
	return nil
}

// Waiting is who waits on an object's channels, as far as the clients'
// records tell.
type Waiting struct {
	// Goroutines counts the waiting goroutines the live records list on
	// channels that have subscribers.
	Goroutines int64
	// Connections counts the subscribed connections no live record
	// accounts for: clients that keep no record (Java, registration off,
	// older redisson-go), one connection per waiting client.
	Connections int64
}

// Waiting counts the waiters on chans: the goroutines the live records
// list, and the subscribed connections (subs) of clients without one. A
// record lists waiters as of its last write, so a channel nobody is
// subscribed to any more counts none.
func (m Clients) Waiting(chans []string, subs func(ch string) int64) Waiting {
	var w Waiting
	for _, ch := range Dedupe(chans) {
		conns := subs(ch)
		if conns <= 0 {
			continue
		}
		var known int64
		for _, cr := range m {
			n := cr.rec.Waiters[ch]
			if n <= 0 {
				continue
			}
			if gone, _ := cr.rec.Gone(cr.pttl); gone {
				continue
			}
			w.Goroutines += int64(n)
			known++ // a client's waiters on one channel share one subscription
		}
		w.Connections += max(conns-known, 0)
	}
	return w
}

// Text is the WAITERS column: "8" goroutines, "2 conn" connections of
// clients without a record, "8 + 2 conn" both.
func (w Waiting) Text() string {
	switch {
	case w.Connections == 0:
		return strconv.FormatInt(w.Goroutines, 10)
	case w.Goroutines == 0:
		return strconv.FormatInt(w.Connections, 10) + " conn"
	}
	return strconv.FormatInt(w.Goroutines, 10) + " + " + strconv.FormatInt(w.Connections, 10) + " conn"
}

// HeldKeys lists the lock keys the records say their clients hold, the
// gone clients' included.
func (m Clients) HeldKeys() []string {
	var out []string
	for _, cr := range m {
		for _, h := range cr.rec.Holds {
			out = append(out, h.Key)
		}
	}
	return out
}

// PermitHolders lists the clients whose records say they hold permits of
// the semaphore name, by client id.
func (m Clients) PermitHolders(name string) []PermitHolder {
	out := []PermitHolder{}
	for id, cr := range m {
		for _, p := range cr.rec.Permits {
			if p.Key == name && p.Count > 0 {
				out = append(out, PermitHolder{ClientID: id, Permits: p.Count, Client: m.info(&id)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClientID < out[j].ClientID })
	return out
}

// AnnotatePermits fills in the holders of a permit-expirable semaphore's
// permits that the records list by id.
func (m Clients) AnnotatePermits(name string, ps []Permit) {
	holder := map[string]string{}
	for id, cr := range m {
		for _, p := range cr.rec.Permits {
			if p.Key == name {
				for _, pid := range p.IDs {
					holder[pid] = id
				}
			}
		}
	}
	for i := range ps {
		if id, ok := holder[ps[i].ID]; ok {
			ps[i].ClientID = &id
			ps[i].Client = m.info(&id)
		}
	}
}

// PermitHolderList is the permit holders as lock-like holders (field =
// client id, mode "permits"), for ls's columns.
func PermitHolderList(ps []PermitHolder) []Holder {
	out := make([]Holder, len(ps))
	for i, p := range ps {
		id := p.ClientID
		out[i] = Holder{Field: id, ClientID: &id, Holds: int64(p.Permits), Mode: "permits", Client: p.Client}
	}
	return out
}
