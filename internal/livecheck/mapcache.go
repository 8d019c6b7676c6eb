package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/mapcache"
)

// mapCachePut is Contend's mapcacheput: put("k<i>", Msg{i, "go", "k<i>"})
// with TTL_MS (and IDLE_MS) for i = 1..N; 0 = none.
func mapCachePut(ctx context.Context, c *redisson.Client, name string, a []string) error {
	n, err := atoi(a, 0, -1)
	if err != nil || n < 0 {
		return fmt.Errorf("mapcacheput NAME N TTL_MS [IDLE_MS]")
	}
	ttl, err := atoi(a, 1, 0)
	if err != nil {
		return err
	}
	idle, err := atoi(a, 2, 0)
	if err != nil {
		return err
	}
	m := redisson.NewMapCache[string, any](c, name, jsonCodec())
	opts := []mapcache.EntryOption{mapcache.WithTTL(time.Duration(ttl) * time.Millisecond),
		mapcache.WithMaxIdle(time.Duration(idle) * time.Millisecond)}
	for i := int64(1); i <= n; i++ {
		k := "k" + strconv.FormatInt(i, 10)
		if _, _, err := m.Put(ctx, k, Msg{ID: i, From: "go", Text: k}, opts...); err != nil {
			return err
		}
	}
	out("put %d %d", n, now())
	return nil
}

// mapCacheCheck is Contend's mapcachecheck: get each "<PREFIX><i>", check
// the Msg, print the TTL spread, and with --expect-gone wait (polling the
// entries' remaining TTL every 5 ms) until every entry is gone.
func mapCacheCheck(ctx context.Context, c *redisson.Client, ck *checker, name string, a []string) error {
	a, expectGone := without(a, "--expect-gone")
	n, err := atoi(a, 0, -1)
	if err != nil || n < 0 {
		return errors.New("mapcachecheck NAME N [PREFIX] [--expect-gone]")
	}
	prefix := "g"
	if len(a) > 1 {
		prefix = a[1]
	}
	m := redisson.NewMapCache[string, any](c, name, jsonCodec())
	var found, decoded, mismatched int
	var missing, bad, wrong, present []string
	from := map[string]int{}
	for i := int64(1); i <= n; i++ {
		k := prefix + strconv.FormatInt(i, 10)
		v, ok, err := m.Get(ctx, k)
		switch {
		case err != nil:
			found++
			present = append(present, k)
			bad = append(bad, k+"("+err.Error()+")")
			continue
		case !ok:
			missing = append(missing, k)
			continue
		}
		found++
		present = append(present, k)
		x, isMsg := v.(Msg)
		if !isMsg {
			bad = append(bad, fmt.Sprintf("%s(%T)", k, v))
			continue
		}
		decoded++
		from[x.From]++
		if x.ID != i || x.Text != k {
			mismatched++
			wrong = append(wrong, fmt.Sprintf("%s(%s:%d %s)", k, x.From, x.ID, x.Text))
		}
	}
	out("checked %d found %d decoded %d mismatched %d %d", n, found, decoded, mismatched, now())
	var fb strings.Builder
	for _, f := range slices.Sorted(maps.Keys(from)) {
		if fb.Len() > 0 {
			fb.WriteByte(',')
		}
		fmt.Fprintf(&fb, "%s=%d", f, from[f])
	}
	out("from %s", fb.String())
	tmin, tmax := int64(-2), int64(-2)
	for j, k := range present {
		t, err := remainMillis(ctx, m, k)
		if err != nil {
			return err
		}
		if j == 0 || t < tmin {
			tmin = t
		}
		if j == 0 || t > tmax {
			tmax = t
		}
	}
	out("ttl min %d max %d", tmin, tmax)
	for _, v := range []struct {
		what string
		l    []string
	}{{"missing", missing}, {"undecoded", bad}, {"mismatched", wrong}} {
		if len(v.l) > 0 {
			ck.problem("violation go:0 %s %d first %s %d", v.what, len(v.l), v.l[0], now())
		}
	}
	if expectGone {
		return waitGone(ctx, m, ck, prefix, n)
	}
	return nil
}

// remainMillis is Redisson's remainTimeToLive of one entry in ms: -2
// absent, -1 no expiry.
func remainMillis(ctx context.Context, m *mapcache.MapCache[string, any], k string) (int64, error) {
	d, err := m.EntryRemainTTL(ctx, k)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return int64(d), nil
	}
	return d.Milliseconds(), nil
}

func waitGone(ctx context.Context, m *mapcache.MapCache[string, any], ck *checker, prefix string, n int64) error {
	var pending []string
	for i := int64(1); i <= n; i++ {
		pending = append(pending, prefix+strconv.FormatInt(i, 10))
	}
	deadline := now() + 60_000
	var firstGone, lastGone int64
	for len(pending) > 0 {
		var still []string
		for _, k := range pending {
			t, err := remainMillis(ctx, m, k)
			if err != nil {
				return err
			}
			if t != -2 {
				still = append(still, k)
			}
		}
		t := now()
		if len(still) < len(pending) && firstGone == 0 {
			firstGone = t
		}
		pending = still
		if len(pending) == 0 {
			lastGone = t
			break
		}
		if t > deadline {
			ck.problem("timeout %d left %d first %s", now(), len(pending), pending[0])
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	back, firstBack := 0, ""
	for i := int64(1); i <= n; i++ {
		k := prefix + strconv.FormatInt(i, 10)
		if _, ok, err := m.Get(ctx, k); err != nil {
			return err
		} else if ok {
			if back == 0 {
				firstBack = k
			}
			back++
		}
	}
	out("gone %d first %d last %d", n, firstGone, lastGone)
	if back > 0 {
		ck.problem("violation go:0 notgone %d first %s %d", back, firstBack, now())
	}
	return nil
}
