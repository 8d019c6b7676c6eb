package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// clusterSlots is the number of hash slots of a Redis cluster.
	clusterSlots = 16384
	// clusterTimeout bounds the wait for a new cluster to become healthy.
	clusterTimeout = 20 * time.Second
	// clusterPollInterval is the pause between two cluster health checks.
	clusterPollInterval = 50 * time.Millisecond
)

// Cluster is a Redis cluster of masters without replicas, started by
// NewCluster or StartCluster. Masters[i] serves the i-th of equal contiguous
// ranges of the 16384 hash slots.
type Cluster struct {
	Masters []*Server
	// Replicas[i], after AddReplicas, replicates Masters[i].
	Replicas []*Server
}

// slotRange is a contiguous range of hash slots, both ends included.
type slotRange struct {
	start, end int
}

// NewCluster starts masters cluster-enabled servers, gives each a contiguous
// equal share of the hash slots, joins them into one cluster and waits until
// every node reports a healthy cluster that knows all nodes and all slot
// ranges. ctx bounds only the start. On error, whatever was started is
// stopped. Call Stop to end the cluster.
func NewCluster(ctx context.Context, masters int) (*Cluster, error) {
	if masters < 1 || masters > clusterSlots {
		return nil, fmt.Errorf("redistest: a cluster needs 1 to %d masters, not %d", clusterSlots, masters)
	}
	servers, err := startAll(ctx, masters, Options{Cluster: true})
	if err != nil {
		return nil, err
	}
	c := &Cluster{Masters: servers}
	if err := c.form(ctx); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	return c, nil
}

// Addrs returns the addresses of the masters.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Masters))
	for i, s := range c.Masters {
		addrs[i] = s.Addr()
	}
	return addrs
}

// NewClient returns a cluster client seeded with all masters, with opts
// applied to its options. The caller closes it.
func (c *Cluster) NewClient(opts ...func(*redis.ClusterOptions)) *redis.ClusterClient {
	o := &redis.ClusterOptions{Addrs: c.Addrs(), MaintNotificationsConfig: maintOff()}
	for _, f := range opts {
		f(o)
	}
	return redis.NewClusterClient(o)
}

// Stop stops all nodes and removes their directories. Calling it again does
// nothing.
func (c *Cluster) Stop() error {
	nodes := append(append([]*Server(nil), c.Masters...), c.Replicas...)
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, s := range nodes {
		wg.Go(func() { errs[i] = s.Stop() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ranges returns the slot ranges of the masters, in order.
func (c *Cluster) ranges() []slotRange {
	n := len(c.Masters)
	r := make([]slotRange, n)
	for i := range r {
		r[i] = slotRange{start: i * clusterSlots / n, end: (i+1)*clusterSlots/n - 1}
	}
	return r
}

// form assigns the slots, joins the nodes and waits until the cluster is
// healthy on every node.
func (c *Cluster) form(ctx context.Context) error {
	clients := make([]*redis.Client, len(c.Masters))
	for i, s := range c.Masters {
		clients[i] = s.NewClient(probeOptions)
	}
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	ranges := c.ranges()
	for i, cl := range clients {
		// Distinct config epochs spare the nodes the epoch collision dance.
		if err := cl.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err(); err != nil {
			return fmt.Errorf("redistest: CLUSTER SET-CONFIG-EPOCH on %s: %w", c.Masters[i], err)
		}
		if err := cl.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", ranges[i].start, ranges[i].end).Err(); err != nil {
			return fmt.Errorf("redistest: CLUSTER ADDSLOTSRANGE on %s: %w", c.Masters[i], err)
		}
	}
	// Meeting the first node is enough, but gossip takes seconds to spread
	// the news; every node meeting all nodes before it is quicker.
	for i, cl := range clients {
		for _, peer := range c.Masters[:i] {
			if err := cl.ClusterMeet(ctx, "127.0.0.1", strconv.Itoa(peer.Port())).Err(); err != nil {
				return fmt.Errorf("redistest: CLUSTER MEET %s on %s: %w", peer, c.Masters[i], err)
			}
		}
	}

	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	t := time.NewTicker(clusterPollInterval)
	defer t.Stop()
	for {
		err := c.healthy(ctx, clients, ranges)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: cluster %v did not form: %w (last: %v)", c.Addrs(), context.Cause(ctx), err)
		case <-t.C:
		}
	}
}

// healthy returns nil when every node reports cluster_state:ok, knows all
// nodes, and lists every slot range at the right master in CLUSTER SLOTS.
func (c *Cluster) healthy(ctx context.Context, clients []*redis.Client, ranges []slotRange) error {
	want := make(map[slotRange]string, len(ranges))
	for i, r := range ranges {
		want[r] = c.Masters[i].Addr()
	}
	for i, cl := range clients {
		node := c.Masters[i]
		info, err := cl.ClusterInfo(ctx).Result()
		if err != nil {
			return fmt.Errorf("CLUSTER INFO on %s: %w", node, err)
		}
		f := ParseInfo(info)
		if f["cluster_state"] != "ok" {
			return fmt.Errorf("%s: cluster_state:%s", node, f["cluster_state"])
		}
		if f["cluster_known_nodes"] != strconv.Itoa(len(c.Masters)) {
			return fmt.Errorf("%s: cluster_known_nodes:%s", node, f["cluster_known_nodes"])
		}
		if f["cluster_slots_ok"] != strconv.Itoa(clusterSlots) {
			return fmt.Errorf("%s: cluster_slots_ok:%s", node, f["cluster_slots_ok"])
		}
		//lint:ignore SA1019 CLUSTER SLOTS lists each range with its master first, which is what is checked here
		slots, err := cl.ClusterSlots(ctx).Result()
		if err != nil {
			return fmt.Errorf("CLUSTER SLOTS on %s: %w", node, err)
		}
		seen := 0
		for _, s := range slots {
			r := slotRange{start: int(s.Start), end: int(s.End)}
			addr, ok := want[r]
			if !ok {
				return fmt.Errorf("%s: unexpected slot range %d-%d", node, r.start, r.end)
			}
			if len(s.Nodes) == 0 || !sameAddr(s.Nodes[0].Addr, addr) {
				return fmt.Errorf("%s: slots %d-%d at %v, want %s", node, r.start, r.end, s.Nodes, addr)
			}
			seen++
		}
		if seen != len(ranges) {
			return fmt.Errorf("%s: CLUSTER SLOTS lists %d of %d ranges", node, seen, len(ranges))
		}
	}
	return nil
}

// sameAddr reports whether got, as CLUSTER SLOTS reports it, is want.
func sameAddr(got, want string) bool {
	gh, gp, err := net.SplitHostPort(got)
	if err != nil {
		return false
	}
	wh, wp, _ := net.SplitHostPort(want)
	return gh == wh && gp == wp
}

// probeOptions configures the clients redistest itself uses to set up and
// watch servers that are up: short timeouts, no retries, no CLIENT SETINFO.
func probeOptions(o *redis.Options) {
	o.DialTimeout = time.Second
	o.ReadTimeout = time.Second
	o.WriteTimeout = time.Second
	o.MaxRetries = -1
	o.Protocol = 2
	o.DisableIdentity = true
}

// startAll starts n servers with opts concurrently. On error it stops those
// that started.
func startAll(ctx context.Context, n int, opts Options) ([]*Server, error) {
	servers := make([]*Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { servers[i], errs[i] = Start(ctx, opts) })
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err == nil {
		return servers, nil
	}
	for _, s := range servers {
		if s != nil {
			err = errors.Join(err, s.Stop())
		}
	}
	return nil, err
}
