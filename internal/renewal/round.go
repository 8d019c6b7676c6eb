package renewal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// group is one Queue call.
type group struct {
	kind   Kind
	ttl    time.Duration
	leases []*Lease
	ok     []bool
	err    error
}

type groupKey struct {
	kind Kind
	ttl  time.Duration
	slot int
}

// groups splits the round by (Kind, TTL, slot) and chunks each part to at
// most BatchSize leases. The usual round has a single part and is chunked in
// place; otherwise a counting sort keeps the allocations independent of the
// number of leases.
func (w *Wheel) groups(r *round) []group {
	key := func(l *Lease) groupKey { return groupKey{l.kind, l.roundTTL, l.slot} }
	first := key(r.leases[0])
	single := true
	for _, l := range r.leases[1:] {
		if key(l) != first {
			single = false
			break
		}
	}
	if single {
		return w.chunk(nil, first, r.leases)
	}

	// Map by slot only (a fast integer hash); the few parts per slot (Kinds,
	// TTLs) are chained and compared directly.
	bySlot := make(map[int]int)
	var counts, chain []int
	var keys []groupKey
	gi := make([]int32, len(r.leases))
	last, lastG := first, -1
	for i, l := range r.leases {
		k := key(l)
		if lastG < 0 || k != last { // leases of a bucket often come in runs
			g, ok := bySlot[k.slot]
			for ok && keys[g] != k {
				g = chain[g]
				ok = g >= 0
			}
			if !ok {
				g = len(counts)
				counts = append(counts, 0)
				keys = append(keys, k)
				head, had := bySlot[k.slot]
				if !had {
					head = -1
				}
				chain = append(chain, head)
				bySlot[k.slot] = g
			}
			last, lastG = k, g
		}
		gi[i] = int32(lastG)
		counts[lastG]++
	}
	offs := make([]int, len(counts))
	nChunks := 0
	for g, c := range counts {
		if g > 0 {
			offs[g] = offs[g-1] + counts[g-1]
		}
		nChunks += (c + w.cfg.BatchSize - 1) / w.cfg.BatchSize
	}
	sorted := make([]*Lease, len(r.leases))
	next := slices.Clone(offs)
	for i, l := range r.leases {
		sorted[next[gi[i]]] = l
		next[gi[i]]++
	}
	out := make([]group, 0, nChunks)
	for g, k := range keys {
		out = w.chunk(out, k, sorted[offs[g]:offs[g]+counts[g]])
	}
	return out
}

// chunk appends the groups of at most BatchSize leases of one part.
func (w *Wheel) chunk(out []group, k groupKey, part []*Lease) []group {
	if out == nil {
		out = make([]group, 0, (len(part)+w.cfg.BatchSize-1)/w.cfg.BatchSize)
	}
	for len(part) > 0 {
		n := min(len(part), w.cfg.BatchSize)
		out = append(out, group{kind: k.kind, ttl: k.ttl, leases: part[:n:n]})
		part = part[n:]
	}
	return out
}

// runRound sends one pipeline with every group of the round and applies the
// answers. It runs on its own goroutine so that a slow Redis never delays
// the ticks of other leases.
func (w *Wheel) runRound(r *round) {
	defer w.wg.Done()
	gs := w.groups(r)
	ctx, cancel := context.WithDeadline(w.ctx, w.epoch.Add(time.Duration(r.deadline)))
	defer cancel()
	pipe := w.cfg.Client.Pipeline()
	results := make([]func() ([]bool, error), len(gs))
	for i := range gs {
		results[i] = gs[i].kind.Queue(ctx, pipe, gs[i].ttl, gs[i].leases)
	}
	w.rounds.Add(1)
	w.scripts.Add(uint64(len(gs)))
	// Exec's error is the first failed command's; each group judges its own
	// commands below, so one bad group does not fail the others. go-redis
	// ignores ctx's deadline unless the client enables it, so the round
	// stops waiting at the deadline itself; the pipeline goes on until
	// go-redis gives up, and its late answers are discarded.
	execDone := r.done
	go func() {
		_, _ = pipe.Exec(ctx)
		close(execDone)
	}()
	select {
	case <-execDone:
	case <-ctx.Done():
		select {
		case <-execDone:
		default:
			w.errs.Add(uint64(len(gs)))
			w.log.Warn("renewal: no reply to a renewal round before its deadline; will retry",
				"leases", len(r.leases), "key", r.leases[0].key)
			timeout := fmt.Errorf("no reply before the round's deadline: %w", context.DeadlineExceeded)
			for i := range gs {
				gs[i].err = timeout
			}
			lost, renewed := w.apply(r, gs)
			w.report(r, len(gs), renewed, len(lost), len(gs))
			w.notify(lost)
			return
		}
	}
	var failed, failedLeases int
	var firstErr *group
	for i := range gs {
		g := &gs[i]
		if results[i] == nil {
			g.err = errors.New("renewal: Kind.Queue returned a nil result function")
		} else {
			g.ok, g.err = results[i]()
			if g.err == nil && len(g.ok) != len(g.leases) {
				g.err = fmt.Errorf("renewal: Kind returned %d results for %d leases", len(g.ok), len(g.leases))
			}
		}
		if g.err != nil {
			failed++
			failedLeases += len(g.leases)
			if firstErr == nil {
				firstErr = g
			}
		}
	}
	if failed > 0 {
		// One line per round, not per group: an outage fails every group.
		w.errs.Add(uint64(failed))
		w.log.Warn("renewal: renewing leases failed; will retry",
			"groups", failed, "leases", failedLeases, "key", firstErr.leases[0].key, "err", firstErr.err)
	}
	lost, renewed := w.apply(r, gs)
	w.report(r, len(gs), renewed, len(lost), failed)
	w.notify(lost)
}

// report tells OnRound about round r.
func (w *Wheel) report(r *round, scripts, renewed, lost, failed int) {
	if w.cfg.OnRound == nil {
		return
	}
	w.cfg.OnRound(Round{
		Leases: len(r.leases), Scripts: scripts,
		Duration: time.Duration(w.now() - r.sent),
		Renewed:  renewed, Lost: lost, Failed: failed,
	})
}

// retryDelay spaces retries after an error so that a failing Redis is not
// hammered every tick, yet leaves about 20 attempts before the lease runs
// out.
func (w *Wheel) retryDelay(ttl time.Duration) int64 {
	return max(w.tick, int64(ttl/30))
}

// apply records a round's answers and returns the leases lost by it and
// how many it renewed.
func (w *Wheel) apply(r *round, gs []group) (lost []lostLease, renewed int) {
	w.mu.Lock()
	defer func() {
		w.mu.Unlock()
		w.renewed.Add(uint64(renewed))
	}()
	now := w.now()
	defer func() {
		if w.n == 0 {
			// The loop may sleep until a loss tick of a lease this round
			// settled: let it see that the wheel is empty.
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}()
	for gi := range gs {
		g := &gs[gi]
		for i, l := range g.leases {
			if l.state != stateInFlight {
				continue // cancelled meanwhile: the answer is nobody's business
			}
			if w.closed {
				l.state = stateDone
				continue
			}
			w.unlink(l) // from its loss tick
			if l.reset {
				l.reset = false
				w.schedule(l, l.pending)
				continue
			}
			switch {
			case g.err != nil:
				l.lastErr = g.err
				if now >= l.lossAt {
					l.state = stateDone
					w.n--
					lost = append(lost, lostLease{l, expired(l)})
				} else {
					// schedule caps it at the loss tick, where the tick
					// declares it lost.
					w.schedule(l, now+w.retryDelay(l.ttl))
				}
			case g.ok[i]:
				renewed++
				l.lastErr = nil
				w.set(l, r.sent, g.ttl)
				w.schedule(l, l.pending)
			default:
				l.state = stateDone
				w.n--
				lost = append(lost, lostLease{l, ErrKeyGone})
			}
		}
	}
	return lost, renewed
}
