package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// contendResult is what a "contend" worker reports with "done".
type contendResult struct {
	Acquisitions int // critical sections entered
	Bumps        int // non-atomic counter increments made
}

// contend runs the "contend" job: every goroutine of every client takes
// its kind Ops times, enters the gauge, bumps the counter when exclusive,
// leaves and releases.
func contend(j job, cs []*redisson.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	obs := redis.NewClient(&redis.Options{Addr: j.Observer})
	defer obs.Close()
	first, ok := kindByName(j.Kinds[0])
	if !ok {
		return fmt.Errorf("unknown kind %q", j.Kinds[0])
	}
	if err := first.setup(ctx, cs[0], j.Name, j.Permits); err != nil {
		return err
	}
	var mu sync.Mutex
	var res contendResult
	var firstErr error
	var wg sync.WaitGroup
	i := 0
	for _, c := range cs {
		for range j.Goroutines {
			k, ok := kindByName(j.Kinds[i%len(j.Kinds)])
			i++
			if !ok {
				return fmt.Errorf("unknown kind %q", j.Kinds[i%len(j.Kinds)])
			}
			owner := redisson.NewOwnerID()
			wg.Go(func() {
				err := func() error {
					for range j.Ops {
						h, err := k.acquire(ctx, c, j.Name, 0, owner)
						if err != nil {
							return fmt.Errorf("%s acquire: %w", k.name, err)
						}
						if err := enter(ctx, obs, j.Name, k.role, j.Permits); err != nil {
							return err
						}
						if tok := h.token(); tok != 0 {
							if err := fence(ctx, obs, j.Name, tok); err != nil {
								return err
							}
						}
						bumped := k.role == "x" || k.role == "w"
						if bumped {
							if err := bump(ctx, obs, j.Name); err != nil {
								return err
							}
						}
						if err := leave(ctx, obs, j.Name, k.role); err != nil {
							return err
						}
						if err := h.release(ctx); err != nil {
							return fmt.Errorf("%s release: %w", k.name, err)
						}
						mu.Lock()
						res.Acquisitions++
						if bumped {
							res.Bumps++
						}
						mu.Unlock()
					}
					return nil
				}()
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
				}
			})
		}
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	b, _ := json.Marshal(res)
	report("done", string(b))
	return nil
}

// env is the servers of one test: the objects' Redis and the observer.
type env struct {
	srv, obsSrv *redistest.Server
	raw, obs    *redis.Client
}

func newEnv(t *testing.T) env {
	t.Helper()
	srv := redistest.StartServer(t)
	obsSrv := redistest.StartServer(t)
	return env{srv: srv, obsSrv: obsSrv, raw: redistest.Client(t, srv), obs: redistest.Client(t, obsSrv)}
}

// contention rows: each contends on one object name with the kinds listed
// (goroutines take them in turn).
var contention = []struct {
	name    string
	kinds   []string
	permits int
}{
	{"RLock", []string{"RLock"}, 1},
	{"FairLock", []string{"FairLock"}, 1},
	{"FencedLock", []string{"FencedLock"}, 1},
	{"SpinLock", []string{"SpinLock"}, 1},
	{"NonReentrantLock", []string{"NonReentrantLock"}, 1},
	{"NonReentrantFairLock", []string{"NonReentrantFairLock"}, 1},
	{"MultiLock", []string{"MultiLock"}, 1},
	{"RedLock", []string{"RedLock"}, 1},
	{"ReadWriteLock", []string{"WriteLock", "ReadLock", "ReadLock"}, 1},
	{"Semaphore", []string{"Semaphore"}, 3},
	{"PermitExpirableSemaphore", []string{"PermitExpirableSemaphore"}, 3},
}

// TestContention: several processes, each with several clients and
// goroutines, contend on every object. No update of the non-atomic counter
// is lost, no gauge exceeds what the object allows.
func TestContention(t *testing.T) {
	procs, clients, goroutines, ops := 3, 2, 2, 6
	if full() {
		procs, clients, goroutines, ops = 4, 2, 4, 25
	}
	for _, row := range contention {
		t.Run(row.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			name := "contend-" + row.name
			j := job{Mode: "contend", Addr: e.srv.Addr(), Observer: e.obsSrv.Addr(), Kinds: row.kinds, Name: name,
				Permits: row.permits, Clients: clients, Goroutines: goroutines, Ops: ops}
			start := time.Now()
			ws := make([]*worker, procs)
			for i := range ws {
				ws[i] = startWorker(t, j)
			}
			var total contendResult
			for _, w := range ws {
				ev := w.expect("done", 5*time.Minute)
				var r contendResult
				require.NoError(t, json.Unmarshal([]byte(ev.detail), &r))
				total.Acquisitions += r.Acquisitions
				total.Bumps += r.Bumps
			}
			took := time.Since(start)
			require.Equal(t, procs*clients*goroutines*ops, total.Acquisitions)
			counter, err := e.obs.Get(ctx, counterKey(name)).Int()
			if err == redis.Nil {
				counter, err = 0, nil
			}
			require.NoError(t, err)
			g, err := gaugeStats(ctx, e.obs, name)
			require.NoError(t, err)
			lost := total.Bumps - counter
			violations := int(g["violations"]+g["token_violations"]) + lost
			inFlight := ""
			switch {
			case g["max_p"] > 0:
				inFlight = fmt.Sprintf("max %d of %d permits in use", g["max_p"], row.permits)
			case g["max_r"] > 0:
				inFlight = fmt.Sprintf("max %d readers at once, writers alone", g["max_r"])
			default:
				inFlight = "max 1 holder"
			}
			if tok, _ := e.obs.Get(ctx, "token:"+name).Int64(); tok > 0 {
				inFlight += fmt.Sprintf(", fencing tokens increasing in every critical section (last %d)", tok)
			}
			record("contention", row.name, violations,
				"%d procs x %d clients x %d goroutines: %d acquisitions in %.1f s, %d lost updates of %d, %s",
				procs, clients, goroutines, total.Acquisitions, took.Seconds(), lost, total.Bumps, inFlight)
			require.Zero(t, lost, "lost updates of the non-atomic counter")
			require.Zero(t, g["violations"], "gauge violations: %v", g)
			require.Zero(t, g["token_violations"], "fencing tokens out of order: %v", g)
			require.LessOrEqual(t, g["max_p"], int64(row.permits))
			require.LessOrEqual(t, g["max_x"], int64(1))
			require.LessOrEqual(t, g["max_w"], int64(1))
		})
	}
}
