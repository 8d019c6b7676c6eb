package main

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Issue #38's group: the spin lock, which polls with a back-off instead of
// waiting for a release message, beside RLock: uncontended pairs/s, the
// contended scenario, and what the polls cost Redis (round trips per
// contended acquisition, counted on MONITOR, pub/sub ones apart).

const (
	libSpin = "redisson-go spin" // client.SpinLock(name)

	grpSpin = "Spin lock: redisson-go SpinLock (polling, no pub/sub) beside its RLock (#38)"
)

// spinLibs are the group's libraries, RLock first: the ratio columns
// divide by it.
var spinLibs = []string{libOurs, libSpin}

func init() {
	groupBases[grpSpin] = [2]string{libOurs, "rlock"}
	register(scenarioDef{Name: "spin", Run: (*Runner).spin, Libs: spinLibs})
}

// spin runs the uncontended loop, the contended scenario and a counted
// contended run for RLock and the spin lock, interleaved.
func (r *Runner) spin(ctx context.Context) error {
	err := r.rounds(spinLibs, func(round int, lib string) error {
		job := Job{Scenario: scUncontended, Lib: lib, Addr: r.cfg.Addr, Key: r.key("su", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
		if err != nil {
			return err
		}
		res := s.results[0]
		rate := float64(res.Ops) / res.Seconds
		r.report.add(grpSpin, "uncontended, 1 goroutine", "lock+unlock pairs/s", lib, higher, rate)
		r.logf("spin          round %d %-18s %8.0f pairs/s uncontended", round, lib, rate)
		return nil
	})
	if err != nil {
		return err
	}
	name := fmt.Sprintf("contended, %d processes × %d goroutines, one key", r.cfg.Procs, r.cfg.Goroutines)
	if err := r.contendedRows(ctx, grpSpin, name, spinLibs, "sc", "spin"); err != nil {
		return err
	}
	return r.rounds(spinLibs, func(round int, lib string) error { return r.spinCost(ctx, round, lib) })
}

// spinCost counts, on MONITOR, the round trips of one contended run of lib
// per acquisition: a spin lock's waiters poll, RLock's wait for a message.
func (r *Runner) spinCost(ctx context.Context, round int, lib string) error {
	const scenario = "Redis cost of contention (MONITOR, top-level commands)"
	counterFile, err := createSharedCounter(r.tmp)
	if err != nil {
		return err
	}
	defer os.Remove(counterFile)
	s, err := r.spawn(ctx, r.contendedJobs(lib, r.key("scc", lib), counterFile, ""), runSpec{duration: r.duration(r.cfg.CostDuration), count: true})
	if err != nil {
		return err
	}
	counter, err := readSharedCounter(counterFile)
	if err != nil {
		return err
	}
	st := analyzeContended(s, counter, true)
	if st.acquisitions == 0 {
		return errors.New("no acquisitions")
	}
	c := sumCounts(s.counts)
	acq := float64(st.acquisitions)
	r.report.add(grpSpin, scenario, "round trips per contended acquisition", lib, lower, float64(c.total)/acq)
	r.report.add(grpSpin, scenario, "  of which pub/sub (SUBSCRIBE etc.)", lib, lower, float64(c.pubsub)/acq)
	r.report.add(grpSpin, scenario, "Redis calls inside scripts per contended acquisition", lib, lower, float64(s.scriptCalls)/acq)
	r.report.add(grpSpin, scenario, "round trips per second", lib, lower, float64(c.total)/s.countSeconds)
	r.addSideCounts(grpSpin, scenario, "", lib, s)
	r.report.addAgg(grpSpin, scenario, "lost updates", lib, lower, aggMax, float64(st.lost))
	r.logf("spin cost     round %d %-18s %.2f round trips (%.3f pub/sub), %.1f script calls per contended acquisition over %d; %.0f round trips/s",
		round, lib, float64(c.total)/acq, float64(c.pubsub)/acq, float64(s.scriptCalls)/acq, st.acquisitions, float64(c.total)/s.countSeconds)
	return nil
}
