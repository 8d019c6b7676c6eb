package inspect

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// Report is the result of inspect; its JSON form is documented in
// inspect's help (inspectDescription).
type Report struct {
	Name         string               `json:"name"`
	Kind         string               `json:"kind"`
	Type         string               `json:"type"`
	TTLms        int64                `json:"ttl_ms"`
	Mode         *string              `json:"mode"`
	Holders      []objinfo.Holder     `json:"holders"`
	Queue        []objinfo.Queued     `json:"queue"`
	Value        *int64               `json:"value"`
	Permits      []objinfo.Permit     `json:"permits"`
	RateLimiter  *objinfo.RateLimiter `json:"rate_limiter"`
	FencingToken *int64               `json:"fencing_token"`
	GroupValues  []objinfo.GroupValue `json:"group_values"`
	Channels     []objinfo.ChannelSub `json:"channels"`
	Waiters      int64                `json:"waiters"`
	// Waiting counts the goroutines the waiting clients' records list;
	// WaiterConnections the subscribed connections no record accounts for.
	Waiting           int64 `json:"waiting"`
	WaiterConnections int64 `json:"waiter_connections"`
	// PermitHolders are the clients whose records say they hold permits
	// of the semaphore.
	PermitHolders []objinfo.PermitHolder `json:"permit_holders"`
	Keys          []objinfo.KeyInfo      `json:"keys"`
	Alternatives  []string               `json:"alternatives"`
	Codec         *string                `json:"codec"`
	Decoded       any                    `json:"decoded"`
	Size          *int64                 `json:"size"`
	// Cache: a cache's, counter's or probabilistic object's figures;
	// Listeners: the subscribers of its own channels (near caches, entry
	// listeners, adder instances), not waiters.
	Cache     *objinfo.CacheStats  `json:"cache"`
	Listeners []objinfo.ChannelSub `json:"listeners"`

	raw       []byte // bucket: the stored bytes
	decodeErr error  // bucket: why the guessed codec could not decode them
}

// identify reads the clients of a report's holders, value owners and
// waiters, and counts the waiters as their records tell (every record is
// read when the object has subscribers).
func identify(ctx context.Context, rdb redis.UniversalClient, rep *Report) error {
	ids := objinfo.HolderClients(rep.Holders, rep.Queue)
	for _, g := range rep.GroupValues {
		if g.ClientID != nil {
			ids = append(ids, *g.ClientID)
		}
	}
	recs, err := objinfo.ReadClients(ctx, rdb, ids)
	if err != nil {
		return fmt.Errorf("client records: %w", err)
	}
	recs.Annotate(rep.Name, rep.Holders, rep.Queue)
	rep.Kind = classify.Refine(rep.Kind, recs.HeldAs(rep.Name, rep.Holders))
	recs.AnnotateGroup(rep.GroupValues)
	rep.PermitHolders = []objinfo.PermitHolder{}
	// An integer may be a semaphore whose holders only the records know.
	semaphore := rep.Value != nil && rep.Kind != classify.Latch
	if rep.Waiters == 0 && !semaphore {
		return nil
	}
	if err := recs.ReadAllClients(ctx, rdb); err != nil {
		return fmt.Errorf("client records: %w", err)
	}
	if semaphore {
		rep.PermitHolders = recs.PermitHolders(rep.Name)
		recs.AnnotatePermits(rep.Name, rep.Permits)
		if len(rep.PermitHolders) > 0 && (rep.Kind == classify.AtomicLong || rep.Kind == classify.SemOrLatch) {
			// A record says permits of it were taken: a semaphore.
			rep.Kind, rep.Alternatives = classify.Semaphore, []string{}
		}
	}
	if rep.Waiters == 0 {
		return nil
	}
	chans := make([]string, len(rep.Channels))
	for i, c := range rep.Channels {
		chans[i] = c.Channel
	}
	w := recs.Waiting(chans, func(ch string) int64 { return objinfo.ChannelWaiters(rep.Channels, ch) })
	rep.Waiting, rep.WaiterConnections = w.Goroutines, w.Connections
	return nil
}
