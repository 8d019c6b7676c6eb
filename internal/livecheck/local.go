package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/localcache"
)

// runLocal runs the local cached map's modes:
//
//	lcmwatch NAME KEY SECONDS [SYNC]: get(KEY) once, then every 1 ms for
//	SECONDS, printing each change seen;
//	lcmput NAME KEY N INTERVAL_MS [SYNC]: put(KEY, Msg{i, "go", "v<i>"}),
//	i = 1..N, INTERVAL_MS apart, "put <i> <ts>" just before each;
//	lcmclear NAME [SYNC]: clearLocalCache(), which returns once every
//	other instance released its permit: "cleared <ms> <ts>".
func runLocal(ctx context.Context, c *redisson.Client, ck *checker, mode, name string, a []string) error {
	switch mode {
	case "lcmwatch":
		if len(a) < 2 {
			return fmt.Errorf("lcmwatch NAME KEY SECONDS [SYNC]")
		}
		m, err := localCached(ctx, c, name, a, 2)
		if err != nil {
			return err
		}
		defer m.Close()
		secs, err := atoi(a, 1, 0)
		if err != nil {
			return err
		}
		return lcmWatch(ctx, m, ck, a[0], time.Duration(secs)*time.Second)
	case "lcmclear":
		m, err := localCached(ctx, c, name, a, 0)
		if err != nil {
			return err
		}
		defer m.Close()
		if err := m.Start(ctx); err != nil {
			return err
		}
		start := time.Now()
		if err := m.ClearLocalCache(ctx); err != nil {
			return err
		}
		out("cleared %d %d", time.Since(start).Milliseconds(), now())
		return nil
	case "lcmput":
		if len(a) < 3 {
			return fmt.Errorf("lcmput NAME KEY N INTERVAL_MS [SYNC]")
		}
		m, err := localCached(ctx, c, name, a, 3)
		if err != nil {
			return err
		}
		defer m.Close()
		n, err := atoi(a, 1, 0)
		if err != nil {
			return err
		}
		interval, err := atoi(a, 2, 0)
		if err != nil {
			return err
		}
		for i := int64(1); i <= n; i++ {
			if i > 1 {
				time.Sleep(time.Duration(interval) * time.Millisecond)
			}
			out("put %d %d", i, now())
			if _, _, err := m.Put(ctx, a[0], Msg{ID: i, From: "go", Text: fmt.Sprintf("v%d", i)}); err != nil {
				return err
			}
		}
		out("cachedSize %d", m.CachedSize())
		return nil
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// localCached is Contend's local cached map: JSON keys and values, SYNC
// (a[i], default INVALIDATE), 1000 entries; started, so it listens before
// the first line is printed.
func localCached(ctx context.Context, c *redisson.Client, name string, a []string, i int) (*localcache.LocalCachedMap[string, any], error) {
	o := localcache.Options{CacheSize: 1000}
	if len(a) > i {
		switch strings.ToUpper(a[i]) {
		case "INVALIDATE":
			o.Sync = localcache.SyncInvalidate
		case "UPDATE":
			o.Sync = localcache.SyncUpdate
		case "NONE":
			o.Sync = localcache.SyncNone
		default:
			return nil, fmt.Errorf("SYNC: INVALIDATE, UPDATE or NONE, got %q", a[i])
		}
	}
	m := redisson.NewLocalCachedMap[string, any](c, name, jsonCodec(), o)
	if err := m.Start(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// show is Contend's show: "<from>:<id> <text>", "null", or "" (not a Msg).
func show(v any, ok bool) string {
	if !ok {
		return "null"
	}
	x, isMsg := v.(Msg)
	if !isMsg {
		return ""
	}
	return fmt.Sprintf("%s:%d %s", x.From, x.ID, x.Text)
}

func lcmWatch(ctx context.Context, m *localcache.LocalCachedMap[string, any], ck *checker, key string, d time.Duration) error {
	v, ok, err := m.Get(ctx, key)
	if err != nil {
		return err
	}
	cur := show(v, ok)
	if cur == "" {
		ck.problem("violation go:0 unexpected %T %d", v, now())
		cur = "?"
	}
	out("ready %d %s", now(), cur)
	end := time.Now().Add(d)
	var polls, changes int64
	for time.Now().Before(end) {
		v, ok, err := m.Get(ctx, key)
		if err != nil {
			return err
		}
		polls++
		s := show(v, ok)
		if s == "" {
			s = fmt.Sprintf("? %T", v)
		}
		if s != cur {
			t := now()
			changes++
			out("changed %d %s", t, s)
			if strings.HasPrefix(s, "? ") {
				ck.problem("violation go:0 unexpected %T %d", v, t)
			}
			cur = s
		}
		time.Sleep(time.Millisecond)
	}
	out("polls %d changes %d %d", polls, changes, now())
	st := m.Stats()
	// A clear from another instance shows as a miss more and its entries
	// as invalidations, the value read back unchanged.
	out("cachedSize %d misses %d invalidations %d messages %d", m.CachedSize(), st.Misses, st.Invalidations, st.Messages)
	return nil
}
