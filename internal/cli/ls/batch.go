package ls

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// look is what ls reads of one object, pipelined with the others of its
// batch.
type look struct {
	name       string
	d          classify.Names
	head       objinfo.KeyInfo
	hlen       *redis.IntCmd
	zcard      *redis.IntCmd // permit-expirable semaphore's timeout zset
	expired    *redis.IntCmd // its permits whose lease has passed
	exists     *redis.IntCmd // fair lock's timeout zset
	queue      *redis.StringSliceCmd
	token      *redis.StringCmd
	strlen     *redis.IntCmd
	prefix     *redis.StringCmd
	fields     *redis.MapStringStringCmd
	someFields *redis.SliceCmd
	fieldsMap  map[string]string
	kind       string
	value      *int64
	channels   []string
	// cacheFacts completes the facts of a cache, counter or probabilistic
	// object; listen are the channels of its listeners.
	cacheFacts func(*classify.Facts)
	listen     []string
}

// prefixLen is how much of a string ls reads: more is a bucket.
const prefixLen = 64

// classifyBatch classifies the objects names (their keys' TYPE and PTTL in
// infos) with pipelined look-ups, through the classifier inspect uses.
func classifyBatch(ctx context.Context, rdb redis.UniversalClient, names []string, infos map[string]objinfo.KeyInfo, all *objinfo.Clients) ([]Object, error) {
	objs, _, err := classifyDerived(ctx, rdb, names, classify.Derive, infos, all)
	return objs, err
}

// classifyDerived is classifyBatch with the derived names from derive (a
// scanner keeps them: deriving them is a good part of a reading); it also
// returns each hash's fields as read, nil for a hash too big to read whole
// and for other types.
func classifyDerived(ctx context.Context, rdb redis.UniversalClient, names []string, derive func(string) classify.Names,
	infos map[string]objinfo.KeyInfo, all *objinfo.Clients) ([]Object, []map[string]string, error) {
	looks := make([]look, len(names))
	for i, n := range names {
		looks[i] = look{name: n, d: derive(n), head: infos[n]}
	}
	if err := readHeads(ctx, rdb, looks, time.Now().UnixMilli()); err != nil {
		return nil, nil, err
	}
	if err := readFields(ctx, rdb, looks); err != nil {
		return nil, nil, err
	}
	var channels []string
	for i := range looks {
		looks[i].classify()
		channels = append(channels, looks[i].channels...)
		channels = append(channels, looks[i].listen...)
	}
	counts := map[string]objinfo.ChannelSub{}
	if len(channels) > 0 {
		subs, err := objinfo.Subscribers(ctx, rdb, objinfo.Dedupe(channels))
		if err != nil {
			return nil, nil, err
		}
		for _, c := range subs {
			counts[c.Channel] = c
		}
	}
	out := make([]Object, len(looks))
	now := time.Now().UnixMilli()
	var ids []string
	for i := range looks {
		out[i] = looks[i].object(counts, now)
		ids = append(ids, objinfo.HolderClients(out[i].Holders, nil)...)
	}
	if err := readCacheStats(ctx, rdb, out, looks, counts); err != nil {
		return nil, nil, err
	}
	recs, err := objinfo.ReadClients(ctx, rdb, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("client records: %w", err)
	}
	for i := range out {
		recs.Annotate(out[i].Name, out[i].Holders, nil)
		if k := classify.Refine(out[i].Kind, recs.HeldAs(out[i].Name, out[i].Holders)); k != out[i].Kind {
			out[i].Kind = k
			out[i].State = lsState(&out[i], looks[i].fieldsMap)
		}
	}
	fields := make([]map[string]string, len(looks))
	for i := range looks {
		if looks[i].fields != nil {
			fields[i] = looks[i].fieldsMap
		}
	}
	return out, fields, countWaiting(ctx, rdb, looks, out, counts, all)
}

// countWaiting fills in the objects' waiters as the clients' records count
// them, and a semaphore's permit holders (an integer may be one), reading
// every record (once per listing, into all) when an object needs them.
func countWaiting(ctx context.Context, rdb redis.UniversalClient, looks []look, out []Object, counts map[string]objinfo.ChannelSub, all *objinfo.Clients) error {
	subs := func(ch string) int64 { return objinfo.ChannelWaiters([]objinfo.ChannelSub{counts[ch]}, ch) }
	for i := range out {
		o := &out[i]
		semaphore := o.Value != nil && o.Kind != classify.Latch
		if o.Waiters == 0 && !semaphore {
			continue
		}
		if *all == nil {
			*all = objinfo.Clients{}
			if err := all.ReadAllClients(ctx, rdb); err != nil {
				return fmt.Errorf("client records: %w", err)
			}
		}
		if semaphore {
			if ps := all.PermitHolders(o.Name); len(ps) > 0 {
				o.Holders = objinfo.PermitHolderList(ps)
				// A record lists the permits its client took; a
				// permit-expirable one whose lease passed is not held.
				o.Held = o.Kind != classify.Expirable || o.Acquired != nil && *o.Acquired > 0
				if o.Kind == classify.AtomicLong || o.Kind == classify.SemOrLatch {
					// A record says permits of it were taken: a semaphore.
					o.Kind, o.Alternatives = classify.Semaphore, []string{}
					o.State = lsState(o, nil)
				}
			}
		}
		w := all.Waiting(looks[i].channels, subs)
		o.Waiting, o.WaiterConnections = w.Goroutines, w.Connections
	}
	return nil
}

// readHeads reads, by each key's type, what its kind could need: a fair
// lock's queue, timeout and token beside a hash (or no key), a hash's
// length, a string's length and first bytes, a permit-expirable
// semaphore's timeout zset and its permits expired by now.
func readHeads(ctx context.Context, rdb redis.UniversalClient, looks []look, now int64) error {
	pipe := rdb.Pipeline()
	for i := range looks {
		l := &looks[i]
		switch l.head.Type {
		case "hash", "none":
			l.queue = pipe.LRange(ctx, l.d.Queue, 0, objinfo.MaxListed-1)
			l.exists = pipe.Exists(ctx, l.d.Timeout)
			l.token = pipe.Get(ctx, l.d.Token)
		}
		l.cacheFacts = objinfo.QueueCacheFacts(ctx, pipe, l.head.Type, l.name, l.d.Cache, time.UnixMilli(now))
		switch l.head.Type {
		case "hash":
			l.hlen = pipe.HLen(ctx, l.name)
		case "string":
			l.strlen = pipe.StrLen(ctx, l.name)
			l.prefix = pipe.GetRange(ctx, l.name, 0, prefixLen-1)
			fallthrough
		case "none":
			l.zcard = pipe.ZCard(ctx, l.d.PESTimeout)
			l.expired = pipe.ZCount(ctx, l.d.PESTimeout, "-inf", strconv.FormatInt(now, 10))
		}
	}
	return objinfo.ExecPipe(ctx, pipe)
}

// readFields reads the hashes: whole, or the fields the classifier needs
// of a hash too big to list.
func readFields(ctx context.Context, rdb redis.UniversalClient, looks []look) error {
	pipe := rdb.Pipeline()
	for i := range looks {
		l := &looks[i]
		if l.hlen != nil {
			if l.hlen.Val() <= objinfo.MaxListed {
				l.fields = pipe.HGetAll(ctx, l.name)
			} else {
				l.someFields = pipe.HMGet(ctx, l.name, classify.HashFields()...)
			}
		}
	}
	return objinfo.ExecPipe(ctx, pipe)
}

// classify sets the kind, value and waiters' channels from what was read.
func (l *look) classify() {
	f := classify.Facts{Type: l.head.Type}
	switch l.head.Type {
	case "hash":
		f.Partial = l.fields == nil
		if f.Partial {
			l.fieldsMap = map[string]string{}
			for j, v := range l.someFields.Val() {
				if s, ok := v.(string); ok {
					l.fieldsMap[l.someFields.Args()[2+j].(string)] = s
				}
			}
		} else {
			l.fieldsMap = l.fields.Val()
		}
		f.Fields = l.fieldsMap
	case "string":
		f.Value, f.Long = l.prefix.Val(), l.strlen.Val() > prefixLen-1
		f.PESTimeout = l.zcard.Val() > 0
	}
	if l.queue != nil {
		f.FairKeys = len(l.queue.Val()) > 0 || l.exists.Val() > 0
		f.Token = l.token.Err() == nil
	}
	l.cacheFacts(&f)
	l.kind, l.value = classify.Of(l.name, f)
	l.channels = classify.Channels(l.kind, l.d)
	l.listen = classify.Listeners(l.kind, l.d.Cache)
	if l.channels == nil && l.kind == classify.None {
		l.channels = classify.Candidates(l.d)
	}
	if l.queue != nil {
		for _, q := range l.queue.Val() {
			l.channels = append(l.channels, l.d.LockChan+":"+q)
		}
	}
}

// object is ls's line of the object, given the subscribers of every
// channel of the batch.
func (l *look) object(counts map[string]objinfo.ChannelSub, now int64) Object {
	obj := Object{Name: l.name, Type: l.head.Type, TTLms: l.head.TTLms, Holders: []objinfo.Holder{}, Value: l.value,
		Alternatives: []string{}}
	for _, c := range l.channels {
		obj.Waiters += objinfo.ChannelWaiters([]objinfo.ChannelSub{counts[c]}, c)
	}
	waiters := func(ch string) int64 { return objinfo.ChannelWaiters([]objinfo.ChannelSub{counts[ch]}, ch) }
	obj.Kind, obj.Alternatives = classify.Resolve(l.kind, waiters, l.d)
	obj.Kind = classify.ResolveListened(obj.Kind, waiters, l.d.Cache)
	if l.queue != nil {
		obj.Queue = int64(len(l.queue.Val()))
	}
	if l.token != nil {
		if t, err := strconv.ParseInt(l.token.Val(), 10, 64); err == nil {
			obj.FencingToken = &t
		}
	}
	if l.zcard != nil && obj.Kind == classify.Expirable {
		// An expired permit is back in the pool at the semaphore's next
		// use: it is held by nobody.
		gone := l.expired.Val()
		n := l.zcard.Val() - gone
		obj.Acquired, obj.Expired = &n, &gone
	}
	switch obj.Kind {
	case classify.Lock, classify.FairLock, classify.RWLock:
		obj.Holders = objinfo.HolderList(l.fieldsMap, obj.Kind == classify.RWLock)
	case classify.Group:
		for _, g := range objinfo.GroupValues(l.fieldsMap, now) {
			obj.Holders = append(obj.Holders, objinfo.Holder{Field: g.Field, ClientID: g.ClientID, OwnerID: g.OwnerID, Holds: g.Holds, Mode: "exclusive"})
		}
	case classify.RateLimiter:
		num := func(f string) int64 { n, _ := strconv.ParseInt(l.fieldsMap[f], 10, 64); return n }
		obj.RateLimiter = &objinfo.RateLimiter{Rate: num("rate"), IntervalMs: num("interval"), Type: objinfo.RateTypeName(l.fieldsMap["type"]),
			KeepAliveMs: num("keepAliveTime"), Windows: []objinfo.RateWindow{}}
	case classify.Bucket:
		n := l.strlen.Val()
		obj.Size = &n
	case classify.Map:
		if l.hlen != nil {
			n := l.hlen.Val()
			obj.Size = &n
		}
	}
	obj.Held = len(obj.Holders) > 0 || obj.Acquired != nil && *obj.Acquired > 0
	obj.State = lsState(&obj, l.fieldsMap)
	return obj
}
