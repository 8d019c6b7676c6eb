package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/mapcache"
)

// Issue #36's rows (point 5): the caches' object layer beside raw go-redis
// sending the plain commands a cache without Redisson's scripts would. The
// group is a table, cacheOps: each row names its two sides' step
// functions, so the map cache's and the local cached map's rows are rows
// of the same table.

const (
	libCacheOurs = "redisson-go caches" // redisson.NewSetCache (and the other caches' constructors)
	libCacheRaw  = "go-redis plain"     // the plain commands through go-redis, the same codec's bytes

	grpCache = "Caches: redisson-go caches beside plain go-redis commands, same codec (#36)"

	scCache = "cache" // worker scenario; Params["op"] picks the row

	// cacheMembers is the number of members (keys) a row cycles over.
	cacheMembers = 1000
	// cacheTTL is the TTL of every member a row writes: long enough that
	// none expires during a run, so the clean-up finds nothing.
	cacheTTL = time.Hour
)

// The rows of the cache scenario (Params["op"]).
const (
	opSetCacheAdd = iota + 1
	opSetCacheContains
	opMapCachePut
	opMapCacheGet
	opCacheMapPut
	opCacheMapGet
)

// cacheStep is one operation of a row: i counts the operations.
type cacheStep func(ctx context.Context, i int) error

// cacheSide opens one side of a row on the worker's connection (c is nil
// for the plain side) and returns its step over members; the key is
// empty, or filled when the row says so.
type cacheSide func(ctx context.Context, key string, c *redisson.Client, rdb *redis.Client, members []string) (cacheStep, error)

// cacheFill stores the row's members (enc: encoded) under key before
// the run, for both sides.
type cacheFill func(ctx context.Context, rdb *redis.Client, key string, enc [][]byte) error

// cacheOp is one row: the operation, its scenario title, what one op is,
// whether the members are stored before the run, and its two sides.
type cacheOp struct {
	op    int
	name  string
	unit  string
	fill  cacheFill // nil: nothing stored before the run
	label string    // log label
	ours  cacheSide
	plain cacheSide
}

var cacheOps = []cacheOp{
	{opSetCacheAdd, "set cache AddTTL (Redisson's script: ZSCORE + ZADD) beside ZADD, 1 goroutine, 1 000 members cycled", "op", nil, "sc add",
		setCacheAdd, plainZAdd},
	{opSetCacheContains, "set cache Contains (Redisson's script: ZSCORE against now) beside ZSCORE, 1 goroutine, 1 000 members cycled", "op", fillZSet, "sc contains",
		setCacheContains, plainZScore},
	{opMapCachePut, "map cache Put with TTL (Redisson's put script: hash + timeout set) beside HSET, 1 goroutine, 1 000 keys cycled", "op", nil, "mc put",
		mapCachePut, plainHSet},
	{opMapCacheGet, "map cache Get (Redisson's get script: expiry checked in Redis) beside HGET, 1 goroutine, 1 000 keys cycled", "op", nil, "mc get",
		mapCacheGet, plainHGet},
	{opCacheMapPut, "plain map Put (collection.Map: Redisson's put script) beside HSET, 1 goroutine, 1 000 keys cycled", "op", nil, "map put",
		mapPut, plainHSet},
	{opCacheMapGet, "plain map Get (collection.Map: HGET) beside HGET, 1 goroutine, 1 000 keys cycled", "op", fillHash, "map get",
		mapGet, plainHGet},
}

func cacheLibs() []string { return []string{libCacheOurs, libCacheRaw} }

func init() {
	groupBases[grpCache] = [2]string{libCacheOurs, "ours"}
	register(scenarioDef{Name: "caches", Run: (*Runner).caches, Libs: cacheLibs(),
		Workers: map[string]prepareFunc{scCache: prepareCache}, Evaluate: evaluateCaches})
}

func cacheCodec() codec.Codec { return codec.String() }

// caches runs the rows, round after round with the two sides interleaved:
// a run by time for the rate and the CPU, then a fixed number of
// operations under MONITOR for the round trips.
func (r *Runner) caches(ctx context.Context) error {
	for _, o := range cacheOps {
		err := r.rounds(cacheLibs(), func(round int, lib string) error {
			job := Job{Scenario: scCache, Lib: lib, Addr: r.cfg.Addr, Key: r.key("ca"+strconv.Itoa(o.op), lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
				Params: map[string]float64{"op": float64(o.op)}}
			s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
			if err != nil {
				return err
			}
			res := s.results[0]
			if res.Ops == 0 {
				return errors.New("no operations")
			}
			rate := float64(res.Ops) / res.Seconds
			r.report.add(grpCache, o.name, o.unit+"s/s", lib, higher, rate)
			r.addCPUTo(grpCache, o.name, o.unit, lib, s, float64(res.Ops))
			ops := r.cfg.CostOps
			if r.cfg.Ops > 0 {
				ops = r.cfg.Ops
			}
			job.Ops, job.Key = ops, r.key("cac"+strconv.Itoa(o.op), lib)
			s2, err := r.spawn(ctx, []Job{job}, runSpec{count: true})
			if err != nil {
				return err
			}
			total := sumCounts(s2.counts).total
			n := float64(max(s2.results[0].Ops, 1))
			r.report.add(grpCache, o.name, "round trips per "+o.unit+" (MONITOR)", lib, lower, float64(total)/n)
			r.addSideCounts(grpCache, o.name, " (MONITOR)", lib, s2)
			r.logf("caches        round %d %-20s %-12s %9.0f %ss/s  %.2f round trips per %s",
				round, lib, o.label, rate, o.unit, float64(total)/n, o.unit)
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := r.cacheCleanUp(ctx); err != nil {
		return err
	}
	return r.cacheLocal(ctx)
}

// evaluateCaches prints each row's ratio as information (the issue sets
// no target for these rows).
func evaluateCaches(rep *Report) {
	for _, m := range rep.Measurements {
		if m.Group != grpCache || m.Lib != libCacheOurs || m.Metric != "ops/s" {
			continue
		}
		p := rep.find(grpCache, m.Scenario, m.Metric, libCacheRaw)
		if p == nil || p.Value == 0 {
			continue
		}
		rep.Targets = append(rep.Targets, Target{Name: "caches " + m.Scenario + ": " + m.Metric + ", ours ÷ plain go-redis", Want: "–",
			Got: fmt.Sprintf("%.2f (%s vs %s)", m.Value/p.Value, formatNum(m.Value), formatNum(p.Value)), Info: true})
	}
}

// cacheSettings are the group's printed settings.
func cacheSettings(lib string) []Setting {
	switch lib {
	case libCacheOurs:
		return []Setting{
			{"codec", "codec.String(); members m0 … m999"},
			{"set cache", fmt.Sprintf("redisson.NewSetCache[string](c, key, codec): AddTTL(ctx, m, %v), Contains(ctx, m) (members filled before GO for Contains)", cacheTTL)},
			{"clean-up", "the client's default pacing (first run 5 s after the handle is made: after a row's run)"},
			{"client", "redisson.New(rdb) defaults"},
		}
	case libCacheRaw:
		return append([]Setting{
			{"codec", "the same codec value: Encode before each command"},
			{"set cache", "ZADD key <now + TTL ms> enc(m); ZSCORE key enc(m), compared with now: what a cache without scripts sends"},
		}, goRedisSettings()...)
	}
	return nil
}

// prepareCache opens the job's side of its row, fills the members when the
// row wants them, and warms up.
func prepareCache(job Job) (func(goSignal) (Result, error), func(), error) {
	rec := &addrRecorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb := redis.NewClient(goRedisOptions(job.Addr, rec))
	cleanup := func() { rdb.Close() }
	step, closeFn, err := cacheStepOf(ctx, job, rdb)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	cleanup = func() { closeFn(); rdb.Close() }
	for i := range 200 {
		if err := step(ctx, i); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	run := func(sig goSignal) (Result, error) {
		res, err := runLoop(job, sig, step)
		res.Addrs = rec.list()
		return res, err
	}
	return run, cleanup, nil
}

// cacheStepOf returns the step of the job's row and side.
func cacheStepOf(ctx context.Context, job Job, rdb *redis.Client) (func(context.Context, int) error, func(), error) {
	i := int(job.Params["op"]) - 1
	if i < 0 || i >= len(cacheOps) {
		return nil, nil, fmt.Errorf("cache: unknown op %v", job.Params["op"])
	}
	o := cacheOps[i]
	cd := cacheCodec()
	members := make([]string, cacheMembers)
	enc := make([][]byte, cacheMembers)
	for i := range members {
		members[i] = "m" + strconv.Itoa(i)
		b, err := cd.Encode(members[i])
		if err != nil {
			return nil, nil, err
		}
		enc[i] = b
	}
	if err := rdb.Del(ctx, job.Key).Err(); err != nil {
		return nil, nil, err
	}
	if o.fill != nil {
		if err := o.fill(ctx, rdb, job.Key, enc); err != nil {
			return nil, nil, err
		}
	}
	side, closeFn := o.plain, func() {}
	var c *redisson.Client
	if job.Lib == libCacheOurs {
		var err error
		if c, err = redisson.New(rdb); err != nil {
			return nil, nil, err
		}
		side, closeFn = o.ours, func() { c.Close() }
	}
	step, err := side(ctx, job.Key, c, rdb, members)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return step, closeFn, nil
}

func setCacheAdd(_ context.Context, key string, c *redisson.Client, _ *redis.Client, members []string) (cacheStep, error) {
	s := redisson.NewSetCache[string](c, key, cacheCodec())
	return func(ctx context.Context, i int) error {
		_, err := s.AddTTL(ctx, members[i%len(members)], cacheTTL)
		return err
	}, nil
}

func plainZAdd(_ context.Context, key string, _ *redisson.Client, rdb *redis.Client, members []string) (cacheStep, error) {
	cd := cacheCodec()
	return func(ctx context.Context, i int) error {
		m, err := cd.Encode(members[i%len(members)])
		if err != nil {
			return err
		}
		return rdb.ZAdd(ctx, key, redis.Z{Score: float64(time.Now().Add(cacheTTL).UnixMilli()), Member: m}).Err()
	}, nil
}

func setCacheContains(_ context.Context, key string, c *redisson.Client, _ *redis.Client, members []string) (cacheStep, error) {
	s := redisson.NewSetCache[string](c, key, cacheCodec())
	return func(ctx context.Context, i int) error {
		in, err := s.Contains(ctx, members[i%len(members)])
		if err == nil && !in {
			err = fmt.Errorf("contains %q: false", members[i%len(members)])
		}
		return err
	}, nil
}

func plainZScore(_ context.Context, key string, _ *redisson.Client, rdb *redis.Client, members []string) (cacheStep, error) {
	cd := cacheCodec()
	return func(ctx context.Context, i int) error {
		m, err := cd.Encode(members[i%len(members)])
		if err != nil {
			return err
		}
		f, err := rdb.ZScore(ctx, key, string(m)).Result()
		if err == nil && int64(f) <= time.Now().UnixMilli() {
			err = fmt.Errorf("zscore %q: expired", m)
		}
		return err
	}, nil
}

// fillZSet stores every member in the sorted set with the row's expiry as
// its score (the set cache's layout).
func fillZSet(ctx context.Context, rdb *redis.Client, key string, enc [][]byte) error {
	zs := make([]redis.Z, len(enc))
	exp := float64(time.Now().Add(cacheTTL).UnixMilli())
	for i, e := range enc {
		zs[i] = redis.Z{Score: exp, Member: e}
	}
	return rdb.ZAdd(ctx, key, zs...).Err()
}

// fillHash stores every key with the value "v" in a plain hash (the
// map's layout).
func fillHash(ctx context.Context, rdb *redis.Client, key string, enc [][]byte) error {
	v, err := cacheCodec().Encode("v")
	if err != nil {
		return err
	}
	args := make([]any, 0, 2*len(enc))
	for _, e := range enc {
		args = append(args, e, v)
	}
	return rdb.HSet(ctx, key, args...).Err()
}

func mapCachePut(_ context.Context, key string, c *redisson.Client, _ *redis.Client, members []string) (cacheStep, error) {
	m := redisson.NewMapCache[string, string](c, key, cacheCodec())
	return func(ctx context.Context, i int) error {
		_, _, err := m.Put(ctx, members[i%len(members)], "v", mapcache.WithTTL(cacheTTL))
		return err
	}, nil
}

// mapCacheGet fills the map cache through its own Put (its values carry
// the expiry header a plain hash lacks), then reads.
func mapCacheGet(ctx context.Context, key string, c *redisson.Client, _ *redis.Client, members []string) (cacheStep, error) {
	m := redisson.NewMapCache[string, string](c, key, cacheCodec())
	for _, k := range members {
		if _, err := m.FastPut(ctx, k, "v", mapcache.WithTTL(cacheTTL)); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, i int) error {
		_, ok, err := m.Get(ctx, members[i%len(members)])
		if err == nil && !ok {
			err = fmt.Errorf("get %q: absent", members[i%len(members)])
		}
		return err
	}, nil
}

func mapPut(_ context.Context, key string, c *redisson.Client, _ *redis.Client, members []string) (cacheStep, error) {
	m := redisson.NewMap[string, string](c, key, cacheCodec())
	return func(ctx context.Context, i int) error {
		_, _, err := m.Put(ctx, members[i%len(members)], "v")
		return err
	}, nil
}

func mapGet(_ context.Context, key string, c *redisson.Client, _ *redis.Client, members []string) (cacheStep, error) {
	m := redisson.NewMap[string, string](c, key, cacheCodec())
	return func(ctx context.Context, i int) error {
		_, ok, err := m.Get(ctx, members[i%len(members)])
		if err == nil && !ok {
			err = fmt.Errorf("get %q: absent", members[i%len(members)])
		}
		return err
	}, nil
}

func plainHSet(_ context.Context, key string, _ *redisson.Client, rdb *redis.Client, members []string) (cacheStep, error) {
	cd := cacheCodec()
	v, err := cd.Encode("v")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, i int) error {
		k, err := cd.Encode(members[i%len(members)])
		if err != nil {
			return err
		}
		return rdb.HSet(ctx, key, k, v).Err()
	}, nil
}

// plainHGet reads a plain hash; when the row stored nothing it fills it
// first, as the ours side of the row did.
func plainHGet(ctx context.Context, key string, _ *redisson.Client, rdb *redis.Client, members []string) (cacheStep, error) {
	cd := cacheCodec()
	enc := make([][]byte, len(members))
	for i, m := range members {
		b, err := cd.Encode(m)
		if err != nil {
			return nil, err
		}
		enc[i] = b
	}
	if n, err := rdb.HLen(ctx, key).Result(); err != nil {
		return nil, err
	} else if n == 0 {
		if err := fillHash(ctx, rdb, key, enc); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, i int) error {
		b, err := rdb.HGet(ctx, key, string(enc[i%len(enc)])).Bytes()
		if err == nil {
			var v string
			err = cd.Decode(b, &v)
		}
		return err
	}, nil
}
