package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// Issue #20's rows (point 6): the collections' and queues' object layer
// against raw go-redis sending the same commands with the same codec, and
// the delayed queue's delivery lateness at a steady offer rate.

const (
	libCollOurs = "redisson-go objects" // redisson.NewMap / NewQueue / NewBlockingQueue / NewDelayedQueue
	libCollRaw  = "go-redis raw"        // the same commands through go-redis, the same codec's bytes

	grpColl = "Collections and queues: redisson-go objects beside raw go-redis, same codec (#20)"

	scColl = "collection" // worker scenario; Params["op"] picks the operation

	// collFields is the number of fields the map rows cycle over.
	collFields = 1000
	// dqDelay is the delayed queue's delay of every element.
	dqDelay = 200 * time.Millisecond
	// dqRate is the delayed queue's offer rate, elements/s (the issue's).
	dqRate = 1000
	// dqConsumers take from the destination queue.
	dqConsumers = 4
	// dqDuration is how long the delayed queue run offers (by time).
	dqDuration = 3 * time.Second
)

// The operations of the collection scenario (Params["op"]).
const (
	opMapFastPut = iota + 1
	opMapGet
	opMapPut
	opQueueOfferPoll
	opBlockingPutTake
	opDelayed
)

// collOp is one row set of the group: the operation, its scenario title,
// what an op is, and the libraries that run it.
type collOp struct {
	op    int
	name  string
	unit  string
	libs  []string
	label string // log label
}

var collOps = []collOp{
	{opMapFastPut, "map FastPut (HSET), 1 goroutine, 1 000 fields cycled", "op", []string{libCollOurs, libCollRaw}, "fastput"},
	{opMapGet, "map Get (HGET), 1 goroutine, 1 000 fields cycled", "op", []string{libCollOurs, libCollRaw}, "get"},
	{opMapPut, "map Put (Redisson's script, previous value returned) beside raw HSET, 1 goroutine", "op", []string{libCollOurs, libCollRaw}, "put"},
	{opQueueOfferPoll, "queue Offer + Poll (RPUSH + LPOP), 1 goroutine", "offer+poll", []string{libCollOurs, libCollRaw}, "offer+poll"},
	{opBlockingPutTake, "blocking queue Put + Take (RPUSH + BLPOP), 1 goroutine", "put+take", []string{libCollOurs, libCollRaw}, "put+take"},
}

func init() {
	groupBases[grpColl] = [2]string{libCollOurs, "ours"}
	register(scenarioDef{Name: "collections", Run: (*Runner).collections, Libs: []string{libCollOurs, libCollRaw},
		Workers: map[string]prepareFunc{scColl: prepareCollection}, Evaluate: evaluateCollections})
}

// collVal is the value every row writes: a small struct under JsonJackson,
// as a Java service's POJO would be.
type collVal struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

func collCodec() codec.Codec {
	return codec.JsonJackson(codec.NewTypes().MustRegister("com.example.bench.Value", collVal{}))
}

// collections runs the throughput rows, round after round with the
// libraries interleaved, then the delayed queue's lateness rounds.
func (r *Runner) collections(ctx context.Context) error {
	for _, o := range collOps {
		err := r.rounds(o.libs, func(round int, lib string) error {
			job := Job{Scenario: scColl, Lib: lib, Addr: r.cfg.Addr, Key: r.key("co"+strconv.Itoa(o.op), lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
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
			r.report.add(grpColl, o.name, o.unit+"s/s", lib, higher, rate)
			r.addCPUTo(grpColl, o.name, o.unit, lib, s, float64(res.Ops))
			// The same operation, a fixed number of times, under MONITOR:
			// both sides should send the same commands.
			ops := r.cfg.CostOps
			if r.cfg.Ops > 0 {
				ops = r.cfg.Ops
			}
			job.Ops, job.Key = ops, r.key("cc"+strconv.Itoa(o.op), lib)
			s2, err := r.spawn(ctx, []Job{job}, runSpec{count: true})
			if err != nil {
				return err
			}
			total := sumCounts(s2.counts).total
			n := float64(max(s2.results[0].Ops, 1))
			r.report.add(grpColl, o.name, "round trips per "+o.unit+" (MONITOR)", lib, lower, float64(total)/n)
			r.addSideCounts(grpColl, o.name, " (MONITOR)", lib, s2)
			r.logf("collections   round %d %-20s %-10s %9.0f %ss/s  %.2f round trips per %s  registration: %d set, %d del in %.2f s",
				round, lib, o.label, rate, o.unit, float64(total)/n, o.unit, s2.counts[registrationLabel+"set"], s2.counts[registrationLabel+"del"], s2.countSeconds)
			return nil
		})
		if err != nil {
			return err
		}
	}
	length := dqDuration.String()
	if r.cfg.Ops > 0 {
		length = strconv.Itoa(r.cfg.Ops) + " elements"
	}
	name := fmt.Sprintf("delayed queue, %d elements/s offered for %s, delay %v, %d consumers taking from the destination",
		dqRate, length, dqDelay, dqConsumers)
	return r.rounds([]string{libCollOurs}, func(round int, lib string) error {
		job := Job{Scenario: scColl, Lib: lib, Addr: r.cfg.Addr, Key: r.key("dq", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
			Params: map[string]float64{"op": opDelayed}}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(dqDuration)})
		if err != nil {
			return err
		}
		m := s.results[0].Metrics
		r.report.add(grpColl, name, "elements offered/s", lib, higher, m["offered_per_s"])
		r.report.add(grpColl, name, "lateness p50 (ms, take return − offer time − delay)", lib, lower, m["late_p50_ms"])
		r.report.add(grpColl, name, "lateness p99 (ms)", lib, lower, m["late_p99_ms"])
		r.report.addAgg(grpColl, name, "lateness max (ms)", lib, lower, aggMax, m["late_max_ms"])
		r.report.addAgg(grpColl, name, "lateness min (ms; due times are whole ms, as Java's)", lib, lower, aggMedian, m["late_min_ms"])
		r.report.addAgg(grpColl, name, "elements lost (offered, never taken)", lib, lower, aggSum, m["lost"])
		r.report.addAgg(grpColl, name, "elements taken twice", lib, lower, aggSum, m["duplicates"])
		r.addCPUTo(grpColl, name, "element", lib, s, m["offered"])
		r.logf("collections   round %d %-20s delayed    %6.0f offered/s  lateness p50 %.2f ms p99 %.2f ms max %.2f ms  lost %.0f dup %.0f",
			round, lib, m["offered_per_s"], m["late_p50_ms"], m["late_p99_ms"], m["late_max_ms"], m["lost"], m["duplicates"])
		if m["offered"] == 0 {
			return errors.New("nothing offered")
		}
		return nil
	})
}

// evaluateCollections prints the ratios as information (the issue sets no
// target) and checks that the delayed queue lost and duplicated nothing.
func evaluateCollections(rep *Report) {
	for _, m := range rep.Measurements {
		if m.Group != grpColl || m.Lib != libCollOurs || !(m.Metric == "ops/s" || m.Metric == "offer+polls/s" || m.Metric == "put+takes/s") {
			continue
		}
		p := rep.find(grpColl, m.Scenario, m.Metric, libCollRaw)
		if p == nil || p.Value == 0 {
			continue
		}
		rep.Targets = append(rep.Targets, Target{Name: "collections " + m.Scenario + ": " + m.Metric + ", ours ÷ go-redis raw", Want: "–",
			Got: fmt.Sprintf("%.2f (%s vs %s)", m.Value/p.Value, formatNum(m.Value), formatNum(p.Value)), Info: true})
	}
	for _, m := range rep.Measurements {
		if m.Group != grpColl {
			continue
		}
		switch m.Metric {
		case "lateness p50 (ms, take return − offer time − delay)", "lateness p99 (ms)":
			rep.Targets = append(rep.Targets, Target{Name: "collections " + m.Scenario + ": " + m.Metric, Want: "–", Got: formatNum(m.Value), Info: true})
		case "elements lost (offered, never taken)", "elements taken twice":
			rep.Targets = append(rep.Targets, Target{Name: fmt.Sprintf("%s (delayed queue)", m.Metric), Want: "0",
				Got: formatNum(m.Value), Pass: m.Value == 0})
		}
	}
}

// collectionSettings are the group's printed settings.
func collectionSettings(lib string) []Setting {
	switch lib {
	case libCollOurs:
		return []Setting{
			{"codec", "codec.JsonJackson of a two-field struct (registered as com.example.bench.Value), keys strings through the same codec"},
			{"map", "redisson.NewMap[string, V](c, key, codec): FastPut(ctx, k, v), Get(ctx, k), Put(ctx, k, v) on 1 000 keys cycled (filled before GO)"},
			{"queue", "redisson.NewQueue[V]: Offer(ctx, v) then Poll(ctx)"},
			{"blocking queue", "redisson.NewBlockingQueue[V]: Put(ctx, v) then Take(ctx) (a dedicated blocking connection per Take)"},
			{"delayed queue", fmt.Sprintf("redisson.NewDelayedQueue[V](c, key, codec): Offer(ctx, v, %v) paced at %d/s (open loop) by one goroutine; %d goroutines Take from Destination(); the transfer task runs in the same client; lateness = Take's return − (offer call time + delay)", dqDelay, dqRate, dqConsumers)},
			{"client", "redisson.New(rdb) defaults over go-redis defaults"},
		}
	case libCollRaw:
		return append([]Setting{
			{"codec", "the same codec value: Encode before each write, Decode after each read"},
			{"map", "HSET key enc(k) enc(v); HGET key enc(k) + Decode; Map.Put's row beside HSET"},
			{"queue", "RPUSH key enc(v) then LPOP key + Decode"},
			{"blocking queue", "RPUSH key enc(v) then BLPOP 0 key + Decode, on the pooled client"},
		}, goRedisSettings()...)
	}
	return nil
}

// prepareCollection opens the job's objects, fills the map rows' fields and
// warms up (connections dialled, scripts loaded).
func prepareCollection(job Job) (func(goSignal) (Result, error), func(), error) {
	rec := &addrRecorder{}
	op := int(job.Params["op"])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb := redis.NewClient(goRedisOptions(job.Addr, rec))
	cleanup := func() { rdb.Close() }
	if op == opDelayed {
		return prepareDelayed(ctx, job, rdb, rec)
	}
	step, closeFn, err := collStep(ctx, job, op, rdb)
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

// collStep returns the operation of one step of a throughput row.
func collStep(ctx context.Context, job Job, op int, rdb *redis.Client) (func(context.Context, int) error, func(), error) {
	cd := collCodec()
	v := collVal{Name: "ann", Count: 7}
	keys := make([]string, collFields)
	encKeys := make([]string, collFields)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
		b, err := cd.Encode(keys[i])
		if err != nil {
			return nil, nil, err
		}
		encKeys[i] = string(b)
	}
	if err := rdb.Del(ctx, job.Key).Err(); err != nil {
		return nil, nil, err
	}
	var c *redisson.Client
	closeFn := func() {}
	if job.Lib == libCollOurs {
		var err error
		if c, err = redisson.New(rdb); err != nil {
			return nil, nil, err
		}
		closeFn = func() { c.Close() }
	}
	fail := func(err error) (func(context.Context, int) error, func(), error) {
		closeFn()
		return nil, nil, err
	}
	switch op {
	case opMapFastPut, opMapGet, opMapPut:
		// Every field exists, so that Get finds its value.
		enc, err := cd.Encode(v)
		if err != nil {
			return fail(err)
		}
		args := make([]any, 0, 2*collFields)
		for _, k := range encKeys {
			args = append(args, k, enc)
		}
		if err := rdb.HSet(ctx, job.Key, args...).Err(); err != nil {
			return fail(err)
		}
	}
	if job.Lib == libCollOurs {
		m := redisson.NewMap[string, collVal](c, job.Key, cd)
		q := redisson.NewQueue[collVal](c, job.Key, cd)
		bq := redisson.NewBlockingQueue[collVal](c, job.Key, cd)
		switch op {
		case opMapFastPut:
			return func(ctx context.Context, i int) error {
				_, err := m.FastPut(ctx, keys[i%collFields], v)
				return err
			}, closeFn, nil
		case opMapGet:
			return func(ctx context.Context, i int) error {
				got, ok, err := m.Get(ctx, keys[i%collFields])
				if err == nil && (!ok || got != v) {
					err = fmt.Errorf("map get %q: %v %v", keys[i%collFields], got, ok)
				}
				return err
			}, closeFn, nil
		case opMapPut:
			return func(ctx context.Context, i int) error {
				_, _, err := m.Put(ctx, keys[i%collFields], v)
				return err
			}, closeFn, nil
		case opQueueOfferPoll:
			return func(ctx context.Context, i int) error {
				if err := q.Offer(ctx, v); err != nil {
					return err
				}
				got, ok, err := q.Poll(ctx)
				if err == nil && (!ok || got != v) {
					err = fmt.Errorf("poll: %v %v", got, ok)
				}
				return err
			}, closeFn, nil
		case opBlockingPutTake:
			return func(ctx context.Context, i int) error {
				if err := bq.Put(ctx, v); err != nil {
					return err
				}
				got, err := bq.Take(ctx)
				if err == nil && got != v {
					err = fmt.Errorf("take: %v", got)
				}
				return err
			}, closeFn, nil
		}
		return fail(fmt.Errorf("collection: unknown op %d", op))
	}
	decode := func(s string) error {
		var got collVal
		if err := cd.Decode([]byte(s), &got); err != nil {
			return err
		}
		if got != v {
			return fmt.Errorf("decoded %v", got)
		}
		return nil
	}
	switch op {
	case opMapFastPut, opMapPut:
		return func(ctx context.Context, i int) error {
			k, err := cd.Encode(keys[i%collFields])
			if err != nil {
				return err
			}
			d, err := cd.Encode(v)
			if err != nil {
				return err
			}
			return rdb.HSet(ctx, job.Key, k, d).Err()
		}, closeFn, nil
	case opMapGet:
		return func(ctx context.Context, i int) error {
			k, err := cd.Encode(keys[i%collFields])
			if err != nil {
				return err
			}
			s, err := rdb.HGet(ctx, job.Key, string(k)).Result()
			if err != nil {
				return err
			}
			return decode(s)
		}, closeFn, nil
	case opQueueOfferPoll, opBlockingPutTake:
		blocking := op == opBlockingPutTake
		return func(ctx context.Context, i int) error {
			d, err := cd.Encode(v)
			if err != nil {
				return err
			}
			if err := rdb.RPush(ctx, job.Key, d).Err(); err != nil {
				return err
			}
			var s string
			if blocking {
				kv, err := rdb.BLPop(ctx, 0, job.Key).Result()
				if err != nil {
					return err
				}
				s = kv[1]
			} else if s, err = rdb.LPop(ctx, job.Key).Result(); err != nil {
				return err
			}
			return decode(s)
		}, closeFn, nil
	}
	return fail(fmt.Errorf("collection: unknown op %d", op))
}

// runLoop calls step until the run's end (or Ops times), one goroutine,
// and measures the worker's CPU and allocations over the run.
func runLoop(job Job, sig goSignal, step func(context.Context, int) error) (Result, error) {
	start := time.Unix(0, sig.Start)
	end := time.Unix(0, sig.End)
	if sig.End == 0 {
		end = start.Add(job.OpsTimeout)
	}
	ctx, cancel := context.WithDeadline(context.Background(), end.Add(10*time.Second))
	defer cancel()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	c0 := cpuSeconds()
	var ops int64
	var err error
	for {
		if !time.Now().Before(end) || (job.Ops > 0 && ops >= int64(job.Ops)) {
			break
		}
		if err = step(ctx, int(ops)); err != nil {
			break
		}
		ops++
	}
	elapsed := time.Since(start)
	cpu := cpuSeconds() - c0
	runtime.ReadMemStats(&ms1)
	return Result{Ops: ops, Seconds: elapsed.Seconds(), Metrics: map[string]float64{
		"cpu_seconds": cpu,
		"mallocs":     float64(ms1.Mallocs - ms0.Mallocs),
	}}, err
}

// prepareDelayed opens the delayed queue and its consumers; the run offers
// paced elements, each its index, and the consumers record when each
// arrived.
func prepareDelayed(ctx context.Context, job Job, rdb *redis.Client, rec *addrRecorder) (func(goSignal) (Result, error), func(), error) {
	// The delayed queue's own keys (Redisson's names) and the destination.
	keys := []string{job.Key, "redisson_delay_queue:{" + job.Key + "}", "redisson_delay_queue_timeout:{" + job.Key + "}",
		"redisson_delay_queue_channel:{" + job.Key + "}"}
	if err := rdb.Del(ctx, keys...).Err(); err != nil {
		rdb.Close()
		return nil, nil, err
	}
	c, err := redisson.New(rdb)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	dq := redisson.NewDelayedQueue[int64](c, job.Key, codec.Long())
	dest := dq.Destination()
	cleanup := func() { dq.Destroy(); c.Close(); rdb.Close() }
	// Warm-up: one element through the whole path (transfer task started,
	// blocking connection dialled).
	if err := dq.Offer(ctx, -1, time.Millisecond); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("warm-up: %w", err)
	}
	if _, err := dest.Take(ctx); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("warm-up take: %w", err)
	}
	run := func(sig goSignal) (Result, error) {
		start := time.Unix(0, sig.Start)
		end := time.Unix(0, sig.End)
		total := int64(0)
		if sig.End == 0 {
			total = int64(max(job.Ops, 1))
			end = start.Add(time.Duration(total) * time.Second / dqRate)
		} else {
			total = int64(end.Sub(start) * dqRate / time.Second)
		}
		offerAt := make([]int64, total) // unix ns of each Offer call
		got := make([]int64, total)     // unix ns of each Take's return (0: not yet)
		var taken atomic.Int64
		var dups atomic.Int64
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		c0 := cpuSeconds()
		// Consumers run until everything arrived or the drain time passed.
		cctx, ccancel := context.WithDeadline(context.Background(), end.Add(dqDelay+20*time.Second))
		defer ccancel()
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range dqConsumers {
			wg.Go(func() {
				for cctx.Err() == nil {
					i, err := dest.Take(cctx)
					now := time.Now().UnixNano()
					if err != nil {
						return
					}
					if i < 0 || i >= total {
						continue
					}
					mu.Lock()
					if got[i] != 0 {
						dups.Add(1)
					} else {
						got[i] = now
					}
					mu.Unlock()
					if taken.Add(1) >= total {
						ccancel()
					}
				}
			})
		}
		time.Sleep(time.Until(start))
		var offerErr error
		var offered int64
		for offered < total {
			due := start.Add(time.Duration(offered) * time.Second / dqRate)
			if wait := time.Until(due); wait > 0 {
				time.Sleep(wait)
			}
			mu.Lock()
			offerAt[offered] = time.Now().UnixNano()
			mu.Unlock()
			if offerErr = dq.Offer(cctx, offered, dqDelay); offerErr != nil {
				break
			}
			offered++
		}
		offerSeconds := time.Since(start).Seconds()
		wg.Wait()
		cpu := cpuSeconds() - c0
		runtime.ReadMemStats(&ms1)
		mu.Lock()
		var late []float64
		var lost int64
		for i := range offered {
			if got[i] == 0 {
				lost++
				continue
			}
			late = append(late, float64(got[i]-offerAt[i]-int64(dqDelay))/1e6)
		}
		mu.Unlock()
		slices.Sort(late)
		q := func(p float64) float64 {
			if len(late) == 0 {
				return 0
			}
			return late[min(int(p*float64(len(late))), len(late)-1)]
		}
		res := Result{Ops: offered, Seconds: offerSeconds, Addrs: rec.list(), Metrics: map[string]float64{
			"cpu_seconds":   cpu,
			"mallocs":       float64(ms1.Mallocs - ms0.Mallocs),
			"offered":       float64(offered),
			"offered_per_s": float64(offered) / offerSeconds,
			"late_p50_ms":   q(0.50),
			"late_p99_ms":   q(0.99),
			"late_max_ms":   q(1),
			"late_min_ms":   q(0),
			"lost":          float64(lost),
			"duplicates":    float64(dups.Load()),
		}}
		return res, offerErr
	}
	return run, cleanup, nil
}
