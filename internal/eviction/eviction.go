// Package eviction runs the periodic clean-up of objects whose entries
// expire one by one (the map cache, the set cache): one task per object
// name and client, paced as Redisson's EvictionScheduler paces its tasks,
// so that a Go-only deployment does not grow without end and a mixed one
// shares the work with Java (each run takes a run-once latch in Redis, and
// a client that finds it taken skips that run).
//
// The pacing, in whole seconds as Redisson counts them: the first run is
// MinDelay after the task is scheduled; after each run the delay grows by
// half (up to MaxDelay) when the last three runs removed strictly fewer
// entries each time, or removed nothing three times in a row, and drops to
// a quarter (not below MinDelay) when three runs in a row each removed
// KeysLimit entries or more. A run that failed, or found the latch taken,
// leaves the delay and the history as they were.
package eviction

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Redisson's defaults (Config.minCleanUpDelay, maxCleanUpDelay,
// cleanUpKeysAmount).
const (
	DefaultMinDelay  = 5 * time.Second
	DefaultMaxDelay  = 30 * time.Minute
	DefaultKeysLimit = 100
)

// Config is a Scheduler's pacing and lifetime; New copies it.
type Config struct {
	// MinDelay is the first delay and the shortest (minCleanUpDelay).
	// Zero means DefaultMinDelay. It counts in whole seconds, at least 1.
	MinDelay time.Duration
	// MaxDelay is the longest delay (maxCleanUpDelay). Zero means
	// DefaultMaxDelay.
	MaxDelay time.Duration
	// KeysLimit is how many entries one run removes at most
	// (cleanUpKeysAmount). Zero means DefaultKeysLimit.
	KeysLimit int
	// Timeout bounds one run. Zero means 3 s.
	Timeout time.Duration
	// Lifetime ends every task when done; nil means never.
	Lifetime context.Context
	// Logger receives failed runs. Nil discards.
	Logger *slog.Logger
}

// Task is one object's clean-up: it removes at most limit expired entries
// and returns how many it removed, or -1 when another client holds the
// run-once latch (latch is how long a run holds it: the current delay, at
// most 30 s, as Redisson sets it).
type Task func(ctx context.Context, limit int, latch time.Duration) (int, error)

// Scheduler runs the clean-up tasks of one client.
type Scheduler struct {
	min, max int // seconds
	limit    int
	timeout  time.Duration
	lifetime context.Context
	logger   *slog.Logger
	mu       sync.Mutex
	tasks    map[string]*task
	closed   bool
	running  sync.WaitGroup
}

type task struct {
	s       *Scheduler
	name    string
	run     Task
	delay   int // seconds
	history []int
	timer   *time.Timer
	stopped bool
}

// New returns a Scheduler with cfg's pacing; it runs nothing until
// Schedule.
func New(cfg Config) *Scheduler {
	s := &Scheduler{
		min: seconds(cfg.MinDelay, DefaultMinDelay), max: seconds(cfg.MaxDelay, DefaultMaxDelay),
		limit: cfg.KeysLimit, timeout: cfg.Timeout, lifetime: cfg.Lifetime, logger: cfg.Logger,
		tasks: make(map[string]*task),
	}
	if s.limit <= 0 {
		s.limit = DefaultKeysLimit
	}
	if s.timeout <= 0 {
		s.timeout = 3 * time.Second
	}
	if s.lifetime == nil {
		s.lifetime = context.Background()
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.max < s.min {
		s.max = s.min
	}
	return s
}

func seconds(d, def time.Duration) int {
	if d <= 0 {
		d = def
	}
	return max(1, int(d/time.Second))
}

// Schedule starts the clean-up of the object called name with run, unless
// a task for that name runs already (the first instance's task serves
// every instance of the client, as in Redisson).
func (s *Scheduler) Schedule(name string, run Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.tasks[name] != nil {
		return
	}
	t := &task{s: s, name: name, run: run, delay: s.min}
	s.tasks[name] = t
	t.timer = time.AfterFunc(time.Duration(t.delay)*time.Second, t.fire)
}

// Scheduled reports whether a task runs for name.
func (s *Scheduler) Scheduled(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tasks[name] != nil
}

// Remove stops the task of name (the object was deleted). A run under
// way finishes.
func (s *Scheduler) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tasks[name]; t != nil {
		t.stop()
		delete(s.tasks, name)
	}
}

// Close stops every task and waits for the runs under way.
func (s *Scheduler) Close() {
	s.mu.Lock()
	s.closed = true
	for name, t := range s.tasks {
		t.stop()
		delete(s.tasks, name)
	}
	s.mu.Unlock()
	s.running.Wait()
}

// stop is called with s.mu held.
func (t *task) stop() {
	t.stopped = true
	t.timer.Stop()
}

func (t *task) fire() {
	s := t.s
	s.mu.Lock()
	if t.stopped || s.lifetime.Err() != nil {
		s.mu.Unlock()
		return
	}
	s.running.Add(1)
	latch := time.Duration(min(t.delay, 30)) * time.Second
	s.mu.Unlock()
	defer s.running.Done()

	ctx, cancel := context.WithTimeout(s.lifetime, s.timeout)
	n, err := t.run(ctx, s.limit, latch)
	cancel()

	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.lifetime.Err() == nil {
			s.logger.Error("redisson: cannot clean up expired entries", "name", t.name, "err", err)
		}
	} else if n >= 0 {
		t.pace(n)
	}
	if !t.stopped {
		t.timer.Reset(time.Duration(t.delay) * time.Second)
	}
}

// pace adjusts the delay after a run that removed n entries, from the two
// runs before it.
func (t *task) pace(n int) {
	s := t.s
	if len(t.history) == 2 {
		first, last := t.history[0], t.history[1]
		if first > last && last > n {
			t.delay = min(s.max, t.delay*3/2)
		}
		if first == last && last == n {
			if n >= s.limit {
				t.delay = max(s.min, t.delay/4)
			}
			if n == 0 {
				t.delay = min(s.max, t.delay*3/2)
			}
		}
		t.history = t.history[1:]
	}
	t.history = append(t.history, n)
}
