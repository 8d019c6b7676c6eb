package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/locks"
)

// Issue #24 point 3's group: the uncontended acquire+release of every lock
// kind whose acquire script checks that the key is its kind's (one name,
// one kind), so that the check's cost on the hot path shows beside RLock's:
// pairs/s and CPU on one key, and, counted on MONITOR, the round trips and
// the Redis calls the scripts make per pair.

const (
	libFenced = "redisson-go fenced" // client.FencedLock(name)
	libRead   = "redisson-go read"   // client.ReadWriteLock(name).ReadLock()
	libWrite  = "redisson-go write"  // client.ReadWriteLock(name).WriteLock()

	grpKinds = "Lock kinds: uncontended lock+unlock of each kind, one key (#24)"
)

// kindLibs are the group's libraries, RLock first: the ratio columns divide
// by it.
var kindLibs = []string{libOurs, libFair, libFenced, libRead, libWrite}

func init() {
	register(scenarioDef{Name: "kinds", Run: (*Runner).kinds, Libs: kindLibs})
}

// kinds runs, round after round, each kind's uncontended loop for
// --duration, then --cost-ops pairs with MONITOR counting.
func (r *Runner) kinds(ctx context.Context) error {
	const timed = "uncontended, 1 goroutine"
	const counted = "Redis cost (MONITOR)"
	return r.rounds(kindLibs, func(round int, lib string) error {
		job := Job{Scenario: scUncontended, Lib: lib, Addr: r.cfg.Addr, Key: r.key("k", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
		if err != nil {
			return err
		}
		res := s.results[0]
		rate := float64(res.Ops) / res.Seconds
		r.report.add(grpKinds, timed, "lock+unlock pairs/s", lib, higher, rate)
		r.addCPUTo(grpKinds, timed, "pair", lib, s, float64(res.Ops))

		ops := r.cfg.CostOps
		if r.cfg.Ops > 0 {
			ops = r.cfg.Ops
		}
		job = Job{Scenario: scUncontended, Lib: lib, Addr: r.cfg.Addr, Key: r.key("kc", lib), Ops: ops, OpsTimeout: r.cfg.OpsTimeout}
		s, err = r.spawn(ctx, []Job{job}, runSpec{count: true})
		if err != nil {
			return err
		}
		pairs := float64(s.results[0].Ops)
		if pairs == 0 {
			return errors.New("no pairs")
		}
		total := sumCounts(s.counts).total
		r.report.add(grpKinds, counted, "round trips per lock+unlock", lib, lower, float64(total)/pairs)
		r.addSideCounts(grpKinds, counted, "", lib, s)
		r.report.add(grpKinds, counted, "Redis calls inside scripts per lock+unlock", lib, lower, float64(s.scriptCalls)/pairs)
		r.logf("kinds         round %d %-18s %8.0f pairs/s  %.2f round trips, %.2f script calls per pair; commands %v",
			round, lib, rate, float64(total)/pairs, float64(s.scriptCalls)/pairs, s.counts)
		return nil
	})
}

// kindLocker is a lock kind of ours, other than RLock and the fair lock,
// behind the Mutex interface.
type kindLocker struct {
	rdb *redis.Client
	c   *redisson.Client
	lib string
}

func openKindLocker(lib, addr string, rec *addrRecorder) (Locker, error) {
	rdb := redis.NewClient(goRedisOptions(addr, rec))
	c, err := redisson.New(rdb)
	if err != nil {
		rdb.Close()
		return nil, err
	}
	return &kindLocker{rdb: rdb, c: c, lib: lib}, nil
}

func (l *kindLocker) Mutex(key string) Mutex {
	switch l.lib {
	case libFenced:
		f := l.c.FencedLock(key)
		return &kindMutex{lock: func(ctx context.Context) (unlocker, error) { return f.Lock(ctx) }}
	case libRead:
		rl := l.c.ReadWriteLock(key).ReadLock()
		return &kindMutex{lock: func(ctx context.Context) (unlocker, error) { return rl.Lock(ctx) }}
	case libWrite:
		wl := l.c.ReadWriteLock(key).WriteLock()
		return &kindMutex{lock: func(ctx context.Context) (unlocker, error) { return wl.Lock(ctx) }}
	case libSpin:
		sl := l.c.SpinLock(key)
		return &kindMutex{lock: func(ctx context.Context) (unlocker, error) { return sl.Lock(ctx) }}
	}
	panic(fmt.Sprintf("kindLocker: unknown library %q", l.lib))
}

func (l *kindLocker) Retries() int64 { return 0 }

func (l *kindLocker) Close() error {
	l.c.Close()
	return l.rdb.Close()
}

type unlocker interface{ Unlock(context.Context) error }

// The read and write holds are *locks.Hold; the fenced lock's embeds one.
var _ unlocker = (*locks.Hold)(nil)

type kindMutex struct {
	lock func(context.Context) (unlocker, error)
	held unlocker
}

func (m *kindMutex) Lock(ctx context.Context) error {
	h, err := m.lock(ctx)
	if err != nil {
		return err
	}
	m.held = h
	return nil
}

func (m *kindMutex) Unlock(ctx context.Context) error { return m.held.Unlock(ctx) }

// kindSettings are the group's library settings.
func kindSettings(lib string) []Setting {
	acquire := map[string]string{
		libFenced: "client.FencedLock(key).Lock(ctx): watchdog; every acquisition also increments redisson_lock_token:{key}",
		libRead:   "client.ReadWriteLock(key).ReadLock().Lock(ctx): watchdog; a read hold also writes its rwlock_timeout key",
		libWrite:  "client.ReadWriteLock(key).WriteLock().Lock(ctx): watchdog",
		libSpin:   "client.SpinLock(key).Lock(ctx): watchdog; waiters poll with Redisson's default back-off (exponential 1 ms to 128 ms), no pub/sub, no local hand-off",
	}[lib]
	return []Setting{
		{"acquire", acquire},
		{"client", "redisson.New(rdb) defaults, as redisson-go"},
	}
}
