package main

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/pubsub"
)

// Issue #23's topic group: one publisher and many subscribers on one
// client, our RTopic beside raw go-redis PubSub on the same Redis.

const (
	libTopic = "redisson-go topic" // redisson.NewTopic[string](c, name, codec.String()), Subscribe × N
	libRawPS = "go-redis PubSub"   // rdb.Subscribe(ctx, name) × N, ReceiveMessage loop

	grpTopic = "Topic fan-out: redisson-go RTopic beside raw go-redis PubSub (#23)"

	scTopic = "topic" // worker scenario

	// topicDrain bounds the wait, after the run's end, for the messages
	// still on their way to the subscribers.
	topicDrain = 30 * time.Second
)

func init() {
	groupBases[grpTopic] = [2]string{libTopic, "ours"}
	register(scenarioDef{Name: "topic", Run: (*Runner).topic, Libs: []string{libTopic, libRawPS},
		Workers: map[string]prepareFunc{scTopic: prepareTopic}, Evaluate: evaluateTopic})
}

// topic runs the fan-out twice per round and library: the publisher as
// fast as it can (throughput), then paced at TopicRate messages/s
// (latency below saturation).
func (r *Runner) topic(ctx context.Context) error {
	n := r.cfg.TopicSubscribers
	runs := []struct {
		name string
		rate int
	}{
		{fmt.Sprintf("fan-out, 1 publisher as fast as it can, %d subscribers, one client", n), 0},
		{fmt.Sprintf("fan-out, 1 publisher at %d messages/s, %d subscribers, one client", r.cfg.TopicRate, n), r.cfg.TopicRate},
	}
	for _, run := range runs {
		err := r.rounds([]string{libTopic, libRawPS}, func(round int, lib string) error {
			job := Job{Scenario: scTopic, Lib: lib, Addr: r.cfg.Addr, Key: r.key("t", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
				CPUProfile: r.profilePath(fmt.Sprintf("topic-rate%d", run.rate), lib, round, ""),
				Params:     map[string]float64{"subscribers": float64(n), "rate": float64(run.rate)}}
			s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
			if err != nil {
				return err
			}
			m := s.results[0].Metrics
			r.report.add(grpTopic, run.name, "messages delivered/s (all subscribers)", lib, higher, m["delivered_per_s"])
			r.report.add(grpTopic, run.name, "messages published/s", lib, higher, m["published_per_s"])
			r.report.add(grpTopic, run.name, "delivery latency p50 (ms)", lib, lower, m["latency_p50_ms"])
			r.report.add(grpTopic, run.name, "delivery latency p99 (ms)", lib, lower, m["latency_p99_ms"])
			r.report.addAgg(grpTopic, run.name, "deliveries dropped (full buffer)", lib, lower, aggSum, m["dropped"])
			r.report.addAgg(grpTopic, run.name, "deliveries lost (neither received nor dropped)", lib, lower, aggSum, m["lost"])
			r.addCPUTo(grpTopic, run.name, "delivery", lib, s, m["deliveries"])
			r.logf("topic         round %d %-18s rate %5d  published %8.0f/s  delivered %9.0f/s  latency p50 %.3f ms p99 %.3f ms  dropped %.0f lost %.0f",
				round, lib, run.rate, m["published_per_s"], m["delivered_per_s"], m["latency_p50_ms"], m["latency_p99_ms"], m["dropped"], m["lost"])
			if m["deliveries"] == 0 {
				return errors.New("no deliveries")
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// evaluateTopic checks the target, ours within 10 % of raw
// go-redis: delivered/s when the publisher runs flat out, latency when it
// is paced. Latency at saturation measures how long the queues grew (raw
// go-redis: Redis' output buffers and the sockets; ours: each
// subscription's bounded buffer, which drops beyond it), so it is printed
// as information only.
func evaluateTopic(rep *Report) {
	for _, m := range rep.Measurements {
		if m.Group != grpTopic || m.Lib != libTopic {
			continue
		}
		p := rep.find(grpTopic, m.Scenario, m.Metric, libRawPS)
		if p == nil || p.Value == 0 {
			continue
		}
		ratio := m.Value / p.Value
		paced := !strings.Contains(m.Scenario, "as fast as it can")
		got := fmt.Sprintf("%.2f (%s vs %s)", ratio, formatNum(m.Value), formatNum(p.Value))
		name := "topic " + m.Scenario + ": " + m.Metric + ", ours ÷ go-redis"
		switch {
		case m.Metric == "messages delivered/s (all subscribers)" && !paced:
			rep.Targets = append(rep.Targets, Target{Name: name, Want: "≥ 0.90", Got: got, Pass: ratio >= 0.9})
		case strings.HasPrefix(m.Metric, "delivery latency") && paced:
			rep.Targets = append(rep.Targets, Target{Name: name, Want: "≤ 1.10", Got: got, Pass: ratio <= 1.1})
		case strings.HasPrefix(m.Metric, "delivery latency"):
			rep.Targets = append(rep.Targets, Target{Name: name, Want: "–", Got: got, Info: true})
		}
	}
	for _, m := range rep.Measurements {
		if m.Group == grpTopic && m.Metric == "deliveries lost (neither received nor dropped)" {
			rep.Targets = append(rep.Targets, Target{Name: fmt.Sprintf("%s (%s; topic)", m.Metric, m.Lib), Want: "0",
				Got: formatNum(m.Value), Pass: m.Value == 0})
		}
	}
}

// fanout is one library's side of the scenario: a publisher and n
// subscribers on one client.
type fanout struct {
	publish func(ctx context.Context, payload string) error
	subs    []*fanSub
	close   func()
}

// fanSub is one subscriber's bookkeeping, written by its goroutine.
type fanSub struct {
	hist     latHist
	received atomic.Int64 // run messages (not warm-up) received
	inWindow atomic.Int64 // of those, received by the run's end
	warm     atomic.Int64 // warm-up messages received
	dropped  func() int64 // deliveries the library dropped (ours); nil: none
	stopped  atomic.Bool  // the stop message arrived
	end      atomic.Int64 // the run's end, unix ns (0 until GO)
}

// see handles one payload: "w" (warm-up), "s" (stop) or the publish time
// in unix ns.
func (s *fanSub) see(payload string, now time.Time) {
	switch payload {
	case "w":
		s.warm.Add(1)
		return
	case "s":
		s.stopped.Store(true)
		return
	}
	ts, err := strconv.ParseInt(payload, 10, 64)
	if err != nil {
		return
	}
	ns := now.UnixNano()
	s.hist.add(ns - ts)
	s.received.Add(1)
	if end := s.end.Load(); end == 0 || ns <= end {
		s.inWindow.Add(1)
	}
}

// openFanout subscribes n subscribers of lib to name, each read by a
// goroutine of its own, and returns once Redis confirmed every one.
func openFanout(ctx context.Context, lib, addr, name string, n int, rec *addrRecorder) (*fanout, error) {
	rdb := redis.NewClient(goRedisOptions(addr, rec))
	f := &fanout{}
	var wg sync.WaitGroup
	switch lib {
	case libTopic:
		c, err := redisson.New(rdb)
		if err != nil {
			rdb.Close()
			return nil, err
		}
		topic := redisson.NewTopic[string](c, name, codec.String())
		var subs []*pubsub.Subscription[string]
		f.close = func() {
			for _, s := range subs {
				_ = s.Close()
			}
			wg.Wait()
			c.Close()
			rdb.Close()
		}
		for range n {
			sub, err := topic.Subscribe(ctx)
			if err != nil {
				f.close()
				return nil, err
			}
			subs = append(subs, sub)
			fs := &fanSub{dropped: sub.Dropped}
			f.subs = append(f.subs, fs)
			wg.Go(func() {
				for m := range sub.Messages() {
					if m.Gap == nil && m.Err == nil {
						fs.see(m.Value, time.Now())
					}
				}
			})
		}
		f.publish = func(ctx context.Context, payload string) error {
			_, err := topic.Publish(ctx, payload)
			return err
		}
	case libRawPS:
		var pss []*redis.PubSub
		f.close = func() {
			for _, ps := range pss {
				_ = ps.Close()
			}
			wg.Wait()
			rdb.Close()
		}
		for range n {
			ps := rdb.Subscribe(ctx, name)
			pss = append(pss, ps)
			// Subscribe returns before Redis confirms: the first reply
			// is the confirmation.
			if _, err := ps.Receive(ctx); err != nil {
				f.close()
				return nil, fmt.Errorf("subscribe: %w", err)
			}
			fs := &fanSub{}
			f.subs = append(f.subs, fs)
			wg.Go(func() {
				for {
					m, err := ps.ReceiveMessage(context.Background())
					if err != nil {
						return // closed
					}
					fs.see(m.Payload, time.Now())
				}
			})
		}
		f.publish = func(ctx context.Context, payload string) error {
			return rdb.Publish(ctx, name, payload).Err()
		}
	default:
		rdb.Close()
		return nil, fmt.Errorf("topic: unknown library %q", lib)
	}
	return f, nil
}

// prepareTopic opens the subscribers and warms up: warm-up messages until
// every subscriber has received some.
func prepareTopic(job Job) (func(goSignal) (Result, error), func(), error) {
	rec := &addrRecorder{}
	n := int(job.Params["subscribers"])
	rate := int(job.Params["rate"])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := openFanout(ctx, job.Lib, job.Addr, job.Key, n, rec)
	if err != nil {
		return nil, nil, err
	}
	const warm = 50
	for range warm {
		if err := f.publish(ctx, "w"); err != nil {
			f.close()
			return nil, nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	for _, s := range f.subs {
		for s.warm.Load() < warm {
			if ctx.Err() != nil {
				f.close()
				return nil, nil, errors.New("warm-up: a subscriber did not receive the warm-up messages")
			}
			time.Sleep(time.Millisecond)
		}
	}
	run := func(sig goSignal) (Result, error) {
		r, err := runTopic(job, sig, f, rate)
		r.Addrs = rec.list()
		return r, err
	}
	return run, f.close, nil
}

// runTopic publishes until the run's end (or Ops messages), at rate
// messages/s or as fast as it can (rate 0), each message its publish time;
// then the stop message, and waits for the subscribers to receive (or
// drop) everything.
func runTopic(job Job, sig goSignal, f *fanout, rate int) (Result, error) {
	start := time.Unix(0, sig.Start)
	end := time.Unix(0, sig.End)
	if sig.End == 0 {
		end = start.Add(job.OpsTimeout)
	}
	for _, s := range f.subs {
		s.end.Store(end.UnixNano())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Until(end)+topicDrain)
	defer cancel()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	c0 := cpuSeconds()
	var published int64
	var err error
	for {
		now := time.Now()
		if !now.Before(end) || (job.Ops > 0 && published >= int64(job.Ops)) {
			break
		}
		if rate > 0 {
			// Open loop: message i is due at start + i/rate; a late one
			// goes out at once, without catching up in a burst.
			due := start.Add(time.Duration(published) * time.Second / time.Duration(rate))
			if wait := due.Sub(now); wait > 0 {
				time.Sleep(wait)
				now = time.Now()
				if !now.Before(end) {
					break
				}
			}
		}
		if err = f.publish(ctx, strconv.FormatInt(time.Now().UnixNano(), 10)); err != nil {
			break
		}
		published++
	}
	elapsed := time.Since(start)
	if sig.End > 0 {
		elapsed = end.Sub(start)
	}
	if err == nil {
		err = f.publish(ctx, "s")
	}
	// Every subscriber has what it will get once it saw the stop message,
	// or once what it received and dropped adds up to everything sent, the
	// stop message included (a full buffer may drop it too).
	want := published + 1
	for _, s := range f.subs {
		for !s.stopped.Load() && s.received.Load()+s.droppedNow() < want && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	cpu := cpuSeconds() - c0
	runtime.ReadMemStats(&ms1)
	var hist latHist
	var received, inWindow, dropped, lost int64
	for _, s := range f.subs {
		hist.merge(&s.hist)
		got, drop := s.received.Load(), s.droppedNow()
		received += got
		inWindow += s.inWindow.Load()
		dropped += drop
		// Each subscriber was sent want messages, the stop message
		// included (which a full buffer may have dropped too).
		stop := int64(0)
		if s.stopped.Load() {
			stop = 1
		}
		lost += want - got - stop - drop
	}
	var r Result
	r.Seconds = elapsed.Seconds()
	r.Ops = received
	r.Metrics = map[string]float64{
		"cpu_seconds":     cpu,
		"mallocs":         float64(ms1.Mallocs - ms0.Mallocs),
		"deliveries":      float64(received),
		"delivered_per_s": float64(inWindow) / elapsed.Seconds(),
		"published_per_s": float64(published) / elapsed.Seconds(),
		"latency_p50_ms":  hist.quantile(0.50) / 1e6,
		"latency_p99_ms":  hist.quantile(0.99) / 1e6,
		"dropped":         float64(dropped),
		"lost":            float64(lost),
	}
	return r, err
}

func (s *fanSub) droppedNow() int64 {
	if s.dropped == nil {
		return 0
	}
	return s.dropped()
}

// latHist is a log-linear histogram of nanosecond values: 64 buckets per
// power of two (about 1.6 % wide), so per-subscriber recording costs a
// few ns and no memory per message.
type latHist struct {
	counts [64 + 64*40]uint32
}

func latBucket(v int64) int {
	if v < 64 {
		return int(max(v, 0))
	}
	e := bits.Len64(uint64(v)) - 7 // v>>e is in [64, 128)
	i := 64 + e*64 + int(uint64(v)>>uint(e)) - 64
	return min(i, len(latHist{}.counts)-1)
}

// latLow is the smallest value of bucket i.
func latLow(i int) float64 {
	if i < 64 {
		return float64(i)
	}
	e := (i - 64) / 64
	m := (i-64)%64 + 64
	return float64(uint64(m) << uint(e))
}

func (h *latHist) add(v int64) { h.counts[latBucket(v)]++ }

func (h *latHist) merge(o *latHist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
}

// quantile returns the middle of the bucket holding the q-quantile, 0
// when empty.
func (h *latHist) quantile(q float64) float64 {
	var total uint64
	for _, c := range h.counts {
		total += uint64(c)
	}
	if total == 0 {
		return 0
	}
	rank := uint64(q*float64(total) + 0.5)
	rank = min(max(rank, 1), total)
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			if i+1 < len(h.counts) {
				return (latLow(i) + latLow(i+1)) / 2
			}
			return latLow(i)
		}
	}
	return 0
}

// topicSettings describes the two sides of the topic group.
func topicSettings(lib string) []Setting {
	switch lib {
	case libTopic:
		return []Setting{
			{"subscribe", "redisson.NewTopic[string](client, name, codec.String()), Subscribe(ctx) × subscribers: one SUBSCRIBE on the client's hub connection, every message handed to each subscription's buffer (DefaultBufferSize 1024, drops beyond it) and decoded on its own goroutine"},
			{"receive", "for m := range sub.Messages(): parse the publish time, record the latency"},
			{"publish", "topic.Publish(ctx, unix-ns text), one goroutine, the same client"},
			{"client", "redisson.New(rdb) defaults over go-redis defaults"},
		}
	case libRawPS:
		return append([]Setting{
			{"subscribe", "rdb.Subscribe(ctx, name) × subscribers: one PubSub connection each, so Redis writes every message once per subscriber"},
			{"receive", "ps.ReceiveMessage(ctx) in a loop on the subscriber's goroutine (no Channel() goroutine in between)"},
			{"publish", "rdb.Publish(ctx, name, unix-ns text), one goroutine, the same client"},
		}, goRedisSettings()...)
	}
	return nil
}
