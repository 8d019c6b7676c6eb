package adder

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/semaphore"
	"github.com/goredisson/redisson/source"
)

// counter is one adder instance as its group sees it.
type counter interface {
	// local is the instance's count, as INCRBY or INCRBYFLOAT's argument.
	local() string
	reset()
}

// group is the adders of one name in one client: they share one
// subscription to {name}:adder-topic, because Redis counts a client's
// subscription once when it answers PUBLISH, so the client must answer a
// request once, with the sum of all its instances.
type group struct {
	src   *source.Source
	rt    *core.Runtime
	name  string
	float bool // INCRBYFLOAT: a double adder

	mu      sync.Mutex
	members map[counter]struct{}
	sub     *pubsub.Subscription[string]
	done    chan struct{}
}

// join adds c to the group of its name, subscribing when it is the first.
func join(ctx context.Context, src *source.Source, rt *core.Runtime, name string, float bool, c counter) (*group, error) {
	for {
		g := rt.Adders().Group(name, func() core.AdderGroup {
			return &group{src: src, rt: rt, name: name, float: float, members: map[counter]struct{}{}}
		}).(*group)
		g.mu.Lock()
		if g.members == nil { // left by its last member: make another
			g.mu.Unlock()
			rt.Adders().Drop(name, g)
			continue
		}
		defer g.mu.Unlock()
		if g.sub == nil {
			sub, err := pubsub.NewTopic[string](src, keys.SuffixName(name, "adder-topic"), codec.String()).Subscribe(ctx)
			if err != nil {
				return nil, err
			}
			g.sub, g.done = sub, make(chan struct{})
			go g.listen(sub, g.done)
		}
		g.members[c] = struct{}{}
		return g, nil
	}
}

// leave removes c; the last member unsubscribes.
func (g *group) leave(c counter) {
	g.mu.Lock()
	if _, ok := g.members[c]; !ok {
		g.mu.Unlock()
		return
	}
	delete(g.members, c)
	if len(g.members) > 0 {
		g.mu.Unlock()
		return
	}
	g.members = nil
	sub, done := g.sub, g.done
	g.mu.Unlock()
	g.rt.Adders().Drop(g.name, g)
	// Unlocked: an answer in progress takes the lock before it ends.
	_ = sub.Close()
	<-done
	g.unsubscribed()
}

// unsubscribed returns once Redis answered the group's unsubscribe, as
// Redisson's destroy does: until then PUBLISH counts this client, and a
// sum asked meanwhile would wait out its timeout for an answer no one
// gives. Bounded by the client's timeout and its end.
func (g *group) unsubscribed() {
	t := time.NewTimer(g.rt.Timeout())
	defer t.Stop()
	select {
	case <-g.rt.Hub().UnsubscribeDone(hub.Channel, g.channel()):
	case <-g.rt.Hub().Done():
	case <-g.rt.Lifetime().Done():
	case <-t.C:
	}
}

// listen answers the requests until the subscription ends.
func (g *group) listen(sub *pubsub.Subscription[string], done chan struct{}) {
	defer close(done)
	for m := range sub.Messages() {
		op, id, ok := strings.Cut(m.Value, ":")
		if !ok || m.Err != nil {
			continue
		}
		g.answer(op, id)
	}
}

// answer adds the members' counts to the request's counter ("1") or
// resets them ("0"), then releases one permit of the request's semaphore:
// the asker waits for one permit per subscribed client.
func (g *group) answer(op, id string) {
	ctx := g.rt.Lifetime()
	g.mu.Lock()
	var local []string
	for c := range g.members {
		if op == "0" {
			c.reset()
		} else {
			local = append(local, c.local())
		}
	}
	g.mu.Unlock()
	if op == "1" {
		if err := g.add(ctx, id, local); err != nil {
			g.rt.Logger().Error("redisson: adder cannot add its count to a sum", "name", g.name, "err", err)
			return
		}
	}
	if err := semaphore.New(g.src, semaphoreName(g.name, id)).Release(ctx, 1); err != nil {
		g.rt.Logger().Error("redisson: adder cannot release a sum's permit", "name", g.name, "err", err)
	}
}

// add sends the group's count as one INCRBY (INCRBYFLOAT): the members'
// counts summed here.
func (g *group) add(ctx context.Context, id string, local []string) error {
	key := counterName(g.name, id)
	if g.float {
		return g.rt.Redis().Do(ctx, "incrbyfloat", key, sumFloats(local)).Err()
	}
	return g.rt.Redis().Do(ctx, "incrby", key, sumInts(local)).Err()
}

// channel is the adders' topic.
func (g *group) channel() string { return keys.SuffixName(g.name, "adder-topic") }

// AdderTopic is the group's channel (core.AdderGroup).
func (g *group) AdderTopic() string { return g.channel() }

func counterName(name, id string) string   { return keys.SuffixName(name, id+":counter") }
func semaphoreName(name, id string) string { return keys.SuffixName(name, id+":semaphore") }
