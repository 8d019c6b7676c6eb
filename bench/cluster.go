package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	goredsync "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis/rueidislock"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// Issue #22's cluster rows: the uncontended and the contended scenario on a
// local Redis Cluster of 3 masters that the group starts itself, ours over a
// *redis.ClusterClient with sharded pub/sub beside every peer that takes a
// cluster client. The workers get the masters as a comma list in Job.Addr.

const (
	libClusterOurs      = "redisson-go cluster" // redisson.New(clusterClient, WithPublishMode(PublishSharded))
	libClusterRedsync   = "redsync cluster"     // redsync.New(goredis.NewPool(clusterClient))
	libClusterRedislock = "redislock cluster"   // redislock.New(clusterClient)
	libClusterRueidis   = "rueidislock cluster" // rueidis client seeded with the masters

	grpCluster = "Cluster: redisson-go and its peers on a 3-master Redis Cluster (#22)"

	// clusterMasters is the size of the group's cluster.
	clusterMasters = 3

	// Scenario names of the group's rows; the contended one continues with
	// the process and goroutine counts.
	clusterUncontended = "cluster, uncontended, 1 goroutine, one key"
	clusterContended   = "cluster, contended"
)

// clusterLibs are the group's libraries, in interleaving order, each with the
// single-node library it is the cluster variant of (--libs selects by those).
var clusterLibs = [][2]string{
	{libClusterOurs, libOurs},
	{libClusterRedsync, libRedsync},
	{libClusterRedislock, libRedislock},
	{libClusterRueidis, libRueidis},
}

func init() {
	groupBases[grpCluster] = [2]string{libClusterOurs, "ours"}
	libs := make([]string, len(clusterLibs))
	for i, l := range clusterLibs {
		libs[i] = l[0]
	}
	register(scenarioDef{Name: "cluster", Run: (*Runner).cluster, Libs: libs, Evaluate: evaluateCluster})
}

// clusterLibsOf are the cluster libraries whose single-node library --libs
// names; ours always runs, as the base of the ratios.
func (r *Runner) clusterLibsOf() []string {
	var libs []string
	for _, l := range clusterLibs {
		if l[0] == libClusterOurs || len(r.cfg.Libs) == 0 || slices.Contains(r.cfg.Libs, l[1]) {
			libs = append(libs, l[0])
		}
	}
	return libs
}

// cluster starts a private cluster of clusterMasters masters (even with
// --redis), then runs the uncontended and the contended scenario on it,
// every library in turn round after round. There is no redis-server CPU row:
// the runner's INFO cpu reads its own server, and the cluster's load is
// spread over three.
func (r *Runner) cluster(ctx context.Context) error {
	c, err := redistest.NewCluster(ctx, clusterMasters)
	if err != nil {
		return fmt.Errorf("starting the cluster: %w", err)
	}
	defer c.Stop()
	addr := strings.Join(c.Addrs(), ",")
	if err := checkShardedPubSub(ctx, c); err != nil {
		return err
	}
	libs := r.clusterLibsOf()
	err = r.rounds(libs, func(round int, lib string) error {
		job := Job{Scenario: scUncontended, Lib: lib, Addr: addr, Key: r.key("clu", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
			CPUProfile: r.profilePath("cluster-uncontended", lib, round, "")}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
		if err != nil {
			return err
		}
		res := s.results[0]
		rate := float64(res.Ops) / res.Seconds
		r.report.add(grpCluster, clusterUncontended, "lock+unlock pairs/s", lib, higher, rate)
		r.addClientCost(clusterUncontended, "pair", lib, s, float64(res.Ops))
		r.logf("cluster       round %d %-20s %8.0f pairs/s", round, lib, rate)
		if res.Ops == 0 {
			return errors.New("no pairs")
		}
		return nil
	})
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s, %d processes × %d goroutines, one key", clusterContended, r.cfg.Procs, r.cfg.Goroutines)
	return r.rounds(libs, func(round int, lib string) error {
		key, profile := r.key("clc", lib), r.profilePath("cluster-contended", lib, round, "x")
		s, counter, err := r.spawnCounted(ctx, func(counterFile string) []Job {
			jobs := r.contendedJobs(lib, key, counterFile, profile)
			for i := range jobs {
				jobs[i].Addr = addr
			}
			return jobs
		})
		if err != nil {
			return err
		}
		st := analyzeContended(s, counter, true)
		r.addContended(grpCluster, name, lib, st)
		r.addClientCost(name, "acquisition", lib, s, float64(st.acquisitions))
		r.logf("cluster       round %d %-20s %8.0f acq/s  hand-off p50 %.3f ms p99 %.3f ms  longest wait %.1f ms (cut off: %d, longest %.1f ms)  per process %v  lost %d overlaps %d retries %d",
			round, lib, st.rate, st.handoffP50, st.handoffP99, st.longestWait, st.cutOff, st.longestCutOff, st.perProcess, st.lost, st.overlaps, st.retries)
		if st.acquisitions == 0 {
			return errors.New("no acquisitions")
		}
		return nil
	})
}

// addClientCost adds the workers' CPU time and allocations per operation.
func (r *Runner) addClientCost(scenario, op, lib string, s *spawned, ops float64) {
	if ops <= 0 {
		return
	}
	r.report.add(grpCluster, scenario, "client CPU µs per "+op, lib, lower, s.clientCPU/ops*1e6)
	r.report.add(grpCluster, scenario, "client allocations per "+op, lib, lower, s.mallocs/ops)
}

// checkShardedPubSub fails unless every master answers PUBSUB SHARDNUMSUB
// (Redis 7+): ours runs with sharded pub/sub forced on, and a server
// without it would fail every wait.
func checkShardedPubSub(ctx context.Context, c *redistest.Cluster) error {
	cc := c.NewClient()
	defer cc.Close()
	return cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		if err := m.PubSubShardNumSub(ctx).Err(); err != nil {
			return fmt.Errorf("cluster master %s has no sharded pub/sub (Redis 7+ needed): %w", m.Options().Addr, err)
		}
		return nil
	})
}

// clusterOptions are go-redis' cluster client defaults, seeded with addrs,
// with a recording dialer.
func clusterOptions(addrs []string, rec *addrRecorder) *redis.ClusterOptions {
	return &redis.ClusterOptions{
		Addrs:                    addrs,
		MaintNotificationsConfig: maintOff(),
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			rec.record(c)
			return c, err
		},
	}
}

// openClusterLocker opens a library of the cluster group; addr is the comma
// list of the cluster's masters.
func openClusterLocker(lib, addr string, rec *addrRecorder) (Locker, error) {
	addrs := strings.Split(addr, ",")
	switch lib {
	case libClusterOurs:
		rdb := redis.NewClusterClient(clusterOptions(addrs, rec))
		c, err := redisson.New(rdb, redisson.WithPublishMode(redisson.PublishSharded))
		if err != nil {
			rdb.Close()
			return nil, err
		}
		if !c.Sharded() {
			c.Close()
			rdb.Close()
			return nil, errors.New("redisson-go cluster: the client does not use sharded pub/sub")
		}
		return &oursLocker{rdb: rdb, c: c}, nil
	case libClusterRedsync:
		rdb := redis.NewClusterClient(clusterOptions(addrs, rec))
		return &redsyncLocker{rdb: rdb, rs: redsync.New(goredsync.NewPool(rdb))}, nil
	case libClusterRedislock:
		rdb := redis.NewClusterClient(clusterOptions(addrs, rec))
		return &redislockLocker{rdb: rdb, c: redislock.New(rdb)}, nil
	case libClusterRueidis:
		o := rueidislockOptions(addrs[0], rec)
		o.ClientOption.InitAddress = addrs
		l, err := rueidislock.NewLocker(o)
		if err != nil {
			return nil, err
		}
		return &rueidisLocker{l: l}, nil
	}
	return nil, fmt.Errorf("unknown library %q", lib)
}

// clusterSettings are the printed settings of the cluster group's libraries.
func clusterSettings(lib string) []Setting {
	cluster := Setting{"cluster", fmt.Sprintf("%d masters, no replicas, equal contiguous slot ranges, started by the runner (also with --redis); keys land on any master", clusterMasters)}
	goRedis := Setting{"go-redis client", "redis.NewClusterClient defaults seeded with the masters (per node: PoolSize 10 × GOMAXPROCS, RESP3, MaxRedirects 3)"}
	switch lib {
	case libClusterOurs:
		return []Setting{
			{"acquire", "lock.Lock(ctx) on client.Lock(key): no lease (watchdog), as redisson-go"},
			{"PublishMode", "spublish (redisson.WithPublishMode(redisson.PublishSharded)): SPUBLISH in the scripts, SSUBSCRIBE on the key's master; the worker checks client.Sharded(). PublishAuto picks the same on Redis 7+"},
			{"client", "redisson.New(clusterClient, WithPublishMode(PublishSharded)), other options default as redisson-go"},
			goRedis, cluster,
		}
	case libClusterRedsync:
		return []Setting{
			{"pools", "1 (goredis/v9 NewPool over one go-redis cluster client, a redis.UniversalClient): quorum 1"},
			{"options", "as redsync: none passed to NewMutex (expiry 8 s, 32 tries, random 50–250 ms retry delay); one *redsync.Mutex per goroutine"},
			goRedis, cluster,
		}
	case libClusterRedislock:
		return []Setting{
			{"client", "redislock.New(clusterClient) (its client interface is redis.Scripter)"},
			{"TTL / RetryStrategy", fmt.Sprintf("as redislock: %v, ExponentialBackoff(%v, %v) new per Obtain", redislockTTL, redislockMinBackoff, redislockMaxBackoff)},
			goRedis, cluster,
		}
	case libClusterRueidis:
		return []Setting{
			{"ClientOption", "InitAddress = the masters (rueidis finds the cluster itself), otherwise as rueidislock: defaults, client-side caching on"},
			{"KeyMajority", fmt.Sprintf("%d, as rueidislock (one key per lock); other options default", rueidisKeyMajority)},
			cluster,
		}
	}
	return nil
}

// evaluateCluster adds the cluster group's targets: uncontended ours ÷
// fastest peer ≥ 1, contended ours ÷ rueidislock ≥ 2, and one line over
// every library's lost updates and overlapping holds.
func evaluateCluster(r *Report) {
	target := func(name, want, got string, pass bool) {
		r.Targets = append(r.Targets, Target{Name: name, Want: want, Got: got, Pass: pass})
	}
	find := func(scenarioPrefix, metric, lib string) *Measurement {
		for _, m := range r.Measurements {
			if m.Group == grpCluster && strings.HasPrefix(m.Scenario, scenarioPrefix) && m.Metric == metric && m.Lib == lib {
				return m
			}
		}
		return nil
	}
	const pairs = "lock+unlock pairs/s"
	if ours := find(clusterUncontended, pairs, libClusterOurs); ours != nil {
		best, bestLib := 0.0, ""
		for _, l := range clusterLibs[1:] {
			if m := find(clusterUncontended, pairs, l[0]); m != nil && m.Value > best {
				best, bestLib = m.Value, l[0]
			}
		}
		if best > 0 {
			ratio := ours.Value / best
			target(clusterUncontended+": ours ÷ fastest peer", "≥ 1.0",
				fmt.Sprintf("%.2f (%s vs %s %s pairs/s)", ratio, formatNum(ours.Value), bestLib, formatNum(best)), ratio >= 1.0)
		}
	}
	if ours := find(clusterContended, "acquisitions/s", libClusterOurs); ours != nil {
		if p := find(clusterContended, "acquisitions/s", libClusterRueidis); p != nil && p.Value > 0 {
			ratio := ours.Value / p.Value
			target("cluster, contended acquisitions/s: ours ÷ "+libClusterRueidis, "≥ 2",
				fmt.Sprintf("%.2f (%s vs %s)", ratio, formatNum(ours.Value), formatNum(p.Value)), ratio >= 2)
		}
	}
	var bad []string
	n := 0
	for _, m := range r.Measurements {
		if m.Group != grpCluster || (m.Metric != "lost updates (shared non-atomic counter)" && m.Metric != "overlapping holds") {
			continue
		}
		n++
		if m.Value != 0 {
			bad = append(bad, fmt.Sprintf("%s %s %s", m.Lib, m.Metric, formatNum(m.Value)))
		}
	}
	if n > 0 {
		got := fmt.Sprintf("0 in all %d rows", n)
		if len(bad) > 0 {
			got = strings.Join(bad, "; ")
		}
		target("cluster, contended: lost updates and overlapping holds, every library [max of rounds]", "0", got, len(bad) == 0)
	}
}
