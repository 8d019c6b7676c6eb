package classify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/semaphore"
)

// rowCase is one row ls showed wrong (issue 37): what ls and inspect must
// say of it now.
type rowCase struct {
	name  string
	make  func(t *testing.T, c *redisson.Client, rdb *redis.Client)
	kind  string
	state string // ls's STATE
	held  bool
	// keys are keys ls folds into the row (among others).
	keys []string
}

// staleScore is a fair-lock timeout an hour past.
func staleScore() float64 { return float64(time.Now().Add(-time.Hour).UnixMilli()) }

const latchID = "0123456789abcdef0123456789abcdef"

var rowCases = []rowCase{
	// A plain hash was a held lock.
	{"row:hash", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		must(t, rdb.HSet(context.Background(), "row:hash", "a", "1", "b", "2").Err())
	}, classify.Map, "2 field(s)", false, []string{"row:hash"}},
	// So was a Redisson map whose values are counts.
	{"row:map", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, _, err := redisson.NewMap[string, string](c, "row:map", codec.String()).Put(t.Context(), "k", "1")
		must(t, err)
	}, classify.Map, "1 field(s)", false, []string{"row:map"}},
	// A held fair lock with an empty queue was a lock: its holder's record
	// names it.
	{"row:fair", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.FairLock("row:fair").Lock(t.Context())
		must(t, err)
		waitRecorded(t, rdb, c, "row:fair")
	}, classify.FairLock, "held, queue 0", true, []string{"row:fair"}},
	// The spin and non-reentrant locks keep the plain and fair locks'
	// keys: their holders' records name them (issue 38).
	{"row:spin", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.SpinLock("row:spin").Lock(t.Context())
		must(t, err)
		waitRecorded(t, rdb, c, "row:spin")
	}, classify.SpinLock, "held", true, []string{"row:spin"}},
	{"row:nr", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.NonReentrantLock("row:nr").Lock(t.Context())
		must(t, err)
		waitRecorded(t, rdb, c, "row:nr")
	}, classify.NonReentrantLock, "held", true, []string{"row:nr"}},
	{"row:nrfair", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		_, err := c.NonReentrantFairLock("row:nrfair").Lock(t.Context())
		must(t, err)
		waitRecorded(t, rdb, c, "row:nrfair")
	}, classify.NonReentrantFairLock, "held, queue 0", true, []string{"row:nrfair"}},
	// A free fair lock whose waiters' entries went stale was "none".
	{"row:fair-free", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		field := c.ID() + ":7"
		must(t, rdb.RPush(context.Background(), keys.FairLockQueue("row:fair-free"), field).Err())
		must(t, rdb.ZAdd(context.Background(), keys.FairLockTimeout("row:fair-free"), redis.Z{Score: staleScore(), Member: field}).Err())
	}, classify.FairLock, "free, queue 1", false, []string{keys.FairLockQueue("row:fair-free"), keys.FairLockTimeout("row:fair-free")}},
	// A free fenced lock with leftover unlock latches (its unlock leaves
	// one) was "none", "no key".
	{"row:fenced", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		h, err := c.FencedLock("row:fenced").Lock(t.Context())
		must(t, err)
		must(t, h.Unlock(t.Context()))
		must(t, rdb.Set(context.Background(), keys.UnlockLatchPrefix("row:fenced")+":"+latchID, "1", time.Minute).Err())
	}, classify.Lock, "free, token 1", false, []string{keys.UnlockLatchPrefix("row:fenced") + ":" + latchID, keys.FencedLockToken("row:fenced")}},
	// An expired permit was "acquired 1" and held.
	{"row:pes", func(t *testing.T, c *redisson.Client, rdb *redis.Client) {
		pes := c.PermitExpirableSemaphore("row:pes")
		_, err := pes.TrySetPermits(t.Context(), 3)
		must(t, err)
		_, err = pes.Acquire(t.Context(), semaphore.WithLease(20*time.Millisecond))
		must(t, err)
		timeout := keys.ExpirableSemaphoreTimeout("row:pes")
		redistest.Eventually(t, 30*time.Second, "the permit's lease to pass", func() bool {
			now := fmt.Sprint(time.Now().UnixMilli())
			return rdb.ZCount(context.Background(), timeout, "-inf", now).Val() == 1
		})
	}, classify.Expirable, "permits 2, acquired 0, expired 1", false, []string{"row:pes", keys.ExpirableSemaphoreTimeout("row:pes")}},
}

// TestRows: each row the issue found wrong, through ls and inspect, on
// a real Redis.
func TestRows(t *testing.T) {
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	client, err := redisson.New(rdb)
	must(t, err)
	t.Cleanup(func() { client.Close() })
	for _, tc := range rowCases {
		tc.make(t, client, rdb)
	}
	// A free lock's unlock latch is no row, of its own or of the lock.
	h, err := client.Lock("row:free").Lock(t.Context())
	must(t, err)
	must(t, h.Unlock(t.Context()))
	must(t, rdb.Set(context.Background(), keys.UnlockLatchPrefix("row:free")+":"+latchID, "1", time.Minute).Err())

	ctx := context.Background()
	res, err := ls.List(ctx, rdb, ls.Options{Pattern: "*", MaxKeys: 10000, ScanCount: 1000})
	must(t, err)
	listed := map[string]ls.Object{}
	for _, o := range res.Objects {
		listed[o.Name] = o
	}
	for _, tc := range rowCases {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := listed[tc.name]
			if !ok {
				t.Fatalf("not listed; objects %v", listed)
			}
			if o.Kind != tc.kind || o.State != tc.state || o.Held != tc.held || !includes(o.Keys, tc.keys) {
				t.Errorf("ls: kind %q state %q held %v keys %v; want %q %q %v %v", o.Kind, o.State, o.Held, o.Keys, tc.kind, tc.state, tc.held, tc.keys)
			}
			rep, err := inspect.Inspect(ctx, rdb, tc.name)
			must(t, err)
			if rep.Kind != tc.kind {
				t.Errorf("inspect: kind %q, want %q", rep.Kind, tc.kind)
			}
		})
	}
	for name, o := range listed {
		if strings.Contains(name, "unlock_latch") || name == "row:free" {
			t.Errorf("%s listed: %+v", name, o)
		}
	}
	// The page counts the expired permit as ls does.
	rep, err := inspect.Inspect(ctx, rdb, "row:pes")
	must(t, err)
	if len(rep.Permits) != 1 || !rep.Permits[0].Expired || o(listed["row:pes"].Expired) != 1 || o(listed["row:pes"].Acquired) != 0 {
		t.Errorf("pes: inspect permits %+v, ls acquired %v expired %v", rep.Permits, listed["row:pes"].Acquired, listed["row:pes"].Expired)
	}
}

// waitRecorded waits until c's registration record lists its hold on key:
// the record is written in the background, soon after the hold.
func waitRecorded(t *testing.T, rdb *redis.Client, c *redisson.Client, key string) {
	t.Helper()
	redistest.Eventually(t, 30*time.Second, "the client's record to list its hold on "+key, func() bool {
		data, err := rdb.Get(context.Background(), registry.Key(c.ID())).Bytes()
		if err != nil {
			return false
		}
		rec, err := registry.Parse(data)
		if err != nil {
			return false
		}
		for _, h := range rec.Holds {
			if h.Key == key {
				return true
			}
		}
		return false
	})
}

func includes(got, want []string) bool {
	have := map[string]bool{}
	for _, k := range got {
		have[k] = true
	}
	for _, k := range want {
		if !have[k] {
			return false
		}
	}
	return true
}

func o(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}
