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
	Keys         []objinfo.KeyInfo    `json:"keys"`
	Alternatives []string             `json:"alternatives"`
	Codec        *string              `json:"codec"`
	Decoded      any                  `json:"decoded"`
	Size         *int64               `json:"size"`
	// Cache: a cache's, counter's or probabilistic object's figures;
	// Listeners: the subscribers of its own channels (near caches, entry
	// listeners, adder instances), not waiters.
	Cache     *objinfo.CacheStats  `json:"cache"`
	Listeners []objinfo.ChannelSub `json:"listeners"`

	raw       []byte // bucket: the stored bytes
	decodeErr error  // bucket: why the guessed codec could not decode them
}

// identify reads the clients of a report's holders and waiters.
func identify(ctx context.Context, rdb redis.UniversalClient, rep *Report) error {
	recs, err := objinfo.ReadClients(ctx, rdb, objinfo.HolderClients(rep.Holders, rep.Queue))
	if err != nil {
		return fmt.Errorf("client records: %w", err)
	}
	recs.Annotate(rep.Name, rep.Holders, rep.Queue)
	rep.Kind = classify.Refine(rep.Kind, recs.HeldAs(rep.Name, rep.Holders))
	return nil
}
