package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/extra/redissonotel"
	"github.com/goredisson/redisson/localcache"
	"github.com/goredisson/redisson/observe"
)

// dashboard is the part of dashboard.json the tests read; panels and
// templating are walked as generic JSON so that no field is skipped.
type dashboard struct {
	Inputs []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		PluginID string `json:"pluginId"`
	} `json:"__inputs"`
	Panels     []map[string]any `json:"panels"`
	Templating struct {
		List []map[string]any `json:"list"`
	} `json:"templating"`
}

func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile("dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	return d
}

// panels returns every panel, those nested in (collapsed) rows included.
func panels(list []map[string]any) []map[string]any {
	var out []map[string]any
	for _, p := range list {
		out = append(out, p)
		if nested, ok := p["panels"].([]any); ok {
			out = append(out, panels(maps(nested))...)
		}
	}
	return out
}

func maps(list []any) []map[string]any {
	var out []map[string]any
	for _, v := range list {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// TestDashboardDataSource: the dashboard declares one data-source input,
// and every panel, query and template variable uses it, so that importing
// the dashboard asks for the Prometheus once and every panel shows it.
func TestDashboardDataSource(t *testing.T) {
	d := loadDashboard(t)
	if len(d.Inputs) != 1 || d.Inputs[0].Type != "datasource" || d.Inputs[0].PluginID != "prometheus" {
		t.Fatalf("want one Prometheus data-source input, got %+v", d.Inputs)
	}
	want := "${" + d.Inputs[0].Name + "}"
	check := func(where string, v any) {
		t.Helper()
		ds, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: datasource %v is not {type, uid}", where, v)
			return
		}
		if ds["uid"] != want || ds["type"] != "prometheus" {
			t.Errorf("%s: datasource %v, want {prometheus %s}", where, ds, want)
		}
	}
	var queries int
	for _, p := range panels(d.Panels) {
		title := p["type"].(string) + " " + p["title"].(string)
		targets := maps(asList(p["targets"]))
		if p["type"] == "row" {
			if _, ok := p["datasource"]; ok || len(targets) > 0 {
				t.Errorf("%s: a row has no data source nor queries", title)
			}
			continue
		}
		if len(targets) == 0 {
			t.Errorf("%s: no queries", title)
		}
		check(title, p["datasource"])
		for _, q := range targets {
			check(title+" query "+q["refId"].(string), q["datasource"])
			queries++
		}
	}
	for _, v := range d.Templating.List {
		if v["type"] == "datasource" {
			t.Errorf("variable %v: a second way to pick the data source", v["name"])
			continue
		}
		if v["type"] == "query" {
			check("variable "+v["name"].(string), v["datasource"])
		}
	}
	if queries == 0 {
		t.Fatal("no queries found")
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestDashboardMetricsExist: every metric and label a panel query or a
// template variable names is one the observer exports through the OTel
// Prometheus exporter, so renaming an instrument without the dashboard
// fails here; and the series carry otel_scope_version = redisson.Version.
func TestDashboardMetricsExist(t *testing.T) {
	metrics, labels := exported(t)
	d := loadDashboard(t)
	vars := map[string]bool{"__rate_interval": true}
	for _, v := range d.Templating.List {
		vars[v["name"].(string)] = true
	}
	var exprs []string
	for _, p := range panels(d.Panels) {
		for _, q := range maps(asList(p["targets"])) {
			exprs = append(exprs, q["expr"].(string))
		}
	}
	for _, v := range d.Templating.List {
		if q, ok := v["query"].(map[string]any); ok {
			exprs = append(exprs, q["query"].(string))
		}
		if def, ok := v["definition"].(string); ok {
			exprs = append(exprs, def)
		}
	}
	for _, e := range exprs {
		ms, ls := names(e)
		if len(ms)+len(ls) == 0 {
			t.Errorf("%s: names no metric and no label", e)
		}
		for _, m := range ms {
			if !metrics[m] {
				t.Errorf("%s: metric %s is not exported (exported: %v)", e, m, keys(metrics))
			}
		}
		for _, l := range ls {
			if !labels[l] {
				t.Errorf("%s: label %s is not exported (exported: %v)", e, l, keys(labels))
			}
		}
		for _, m := range varRef.FindAllStringSubmatch(e, -1) {
			if !vars[m[1]] {
				t.Errorf("%s: variable $%s is not declared", e, m[1])
			}
		}
	}
}

var (
	// matcherRe is a label matcher inside {...}; groupRe a by or without
	// clause; labelValues a template's label_values([metric,] label).
	matcherRe   = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"`)
	selectorRe  = regexp.MustCompile(`\{[^{}]*\}`)
	groupRe     = regexp.MustCompile(`\b(?:by|without)\s*\(([^()]*)\)`)
	labelValues = regexp.MustCompile(`^label_values\(\s*(?:([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$`)
	identRe     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	rangeRe     = regexp.MustCompile(`\[[^\]]*\]`)
	varRef      = regexp.MustCompile(`\$\{?([a-zA-Z_][a-zA-Z0-9_]*)`)
)

// names returns the metric names and the label names expr uses: labels
// are those of matchers, by/without clauses and label_values; every other
// identifier that is not a PromQL function or keyword is a metric.
func names(expr string) (metrics, labels []string) {
	if m := labelValues.FindStringSubmatch(expr); m != nil {
		if m[1] != "" {
			metrics = append(metrics, m[1])
		}
		return metrics, append(labels, m[2])
	}
	for _, sel := range selectorRe.FindAllString(expr, -1) {
		for _, m := range matcherRe.FindAllStringSubmatch(sel, -1) {
			labels = append(labels, m[1])
		}
	}
	rest := selectorRe.ReplaceAllString(expr, " ")
	for _, g := range groupRe.FindAllStringSubmatch(rest, -1) {
		for _, l := range strings.Split(g[1], ",") {
			labels = append(labels, strings.TrimSpace(l))
		}
	}
	rest = groupRe.ReplaceAllString(rest, " ")
	rest = rangeRe.ReplaceAllString(rest, " ")
	for _, id := range identRe.FindAllString(rest, -1) {
		if !promQLWords[id] {
			metrics = append(metrics, id)
		}
	}
	return metrics, labels
}

// promQLWords are the functions and aggregations the dashboard uses.
var promQLWords = map[string]bool{
	"sum": true, "count": true, "rate": true, "increase": true, "histogram_quantile": true,
	"max": true, "min": true, "avg": true,
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// exported returns the metric names (histograms with their _bucket, _sum
// and _count series) and the label names that the observer's every
// instrument exports through the OTel Prometheus exporter, as this
// program serves them, after one event of every sort.
func exported(t *testing.T) (metrics, labels map[string]bool) {
	t.Helper()
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	obs, err := redissonotel.NewObserver(redissonotel.WithMeterProvider(mp),
		redissonotel.WithNameMapping(func(_ observe.Kind, name string) string { return name }))
	if err != nil {
		t.Fatal(err)
	}
	everyEvent(obs)
	lc, err := redissonotel.NewLocalCacheMetrics(redissonotel.WithMeterProvider(mp),
		redissonotel.WithNameMapping(func(_ observe.Kind, name string) string { return name }))
	if err != nil {
		t.Fatal(err)
	}
	lc.Add(nearCache{})
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	metrics, labels = map[string]bool{}, map[string]bool{"le": true}
	for _, f := range families {
		name := f.GetName()
		metrics[name] = true
		if f.GetType() == dto.MetricType_HISTOGRAM {
			metrics[name+"_bucket"], metrics[name+"_sum"], metrics[name+"_count"] = true, true, true
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = true
				if l.GetName() == "otel_scope_version" && l.GetValue() != redisson.Version {
					t.Errorf("%s: otel_scope_version %q, want redisson.Version %q", name, l.GetValue(), redisson.Version)
				}
			}
		}
	}
	if !labels["otel_scope_version"] {
		t.Error("no series carries otel_scope_version")
	}
	return metrics, labels
}

// everyEvent sends obs one event of every sort, for every object kind
// where the kind matters, so that every instrument has a series.
func everyEvent(obs *observe.Observer) {
	ctx := context.Background()
	obs.Register(func() observe.Stats {
		return observe.Stats{Leases: 1, PubSubConnections: 1, PubSubChannels: 1, PubSubWaiters: 1}
	})
	kinds := []observe.Kind{observe.KindLock, observe.KindFairLock, observe.KindReadLock, observe.KindWriteLock,
		observe.KindFencedLock, observe.KindMultiLock, observe.KindRedLock, observe.KindGroupMultiLock,
		observe.KindSemaphore, observe.KindExpirableSemaphore, observe.KindLatch, observe.KindRateLimiter}
	failed := errors.New("dial tcp: connection refused")
	for _, k := range kinds {
		obs.AcquireEnd(ctx, observe.AcquireEnd{Kind: k, Name: "n", Outcome: observe.Acquired, Wait: time.Millisecond, HandOff: true})
		obs.AcquireEnd(ctx, observe.AcquireEnd{Kind: k, Name: "n", Outcome: observe.TimedOut, Wait: time.Second})
		obs.AcquireTry(ctx, observe.AcquireTry{Kind: k, Name: "n", Try: 1, Err: failed, Reason: observe.RetryConnection})
		obs.Retry(ctx, observe.Retry{Kind: k, Name: "n", Reason: observe.RetryConnection, Attempt: 1, Delay: time.Second, Err: failed})
	}
	for _, cause := range []observe.EndCause{observe.Released, observe.Lost, observe.Expired, observe.Closed} {
		obs.HoldEnd(ctx, observe.HoldEnd{Kind: observe.KindLock, Name: "n", Cause: cause, Held: time.Second})
	}
	obs.ReleaseEnd(ctx, observe.ReleaseEnd{Kind: observe.KindLock, Name: "n", Full: true, HandOff: true})
	obs.Subscription(observe.Subscription{Channel: "c", Confirm: time.Millisecond})
	obs.Renewal(observe.Renewal{Leases: 1, Scripts: 1, Duration: time.Millisecond, Renewed: 1})
	obs.Permits(ctx, observe.Permits{Kind: observe.KindSemaphore, Name: "n", Op: observe.PermitsTaken, Count: 1})
	obs.RateLimit(ctx, observe.RateLimit{Name: "n", Permits: 1, Granted: true})
	obs.CountDown(ctx, observe.CountDown{Name: "n"})
	obs.LocalCache(observe.LocalCache{Name: "n", Cause: observe.LocalCacheInvalidate, Entries: 1})
}

// nearCache is a local cached map's counters, for LocalCacheMetrics.
type nearCache struct{}

func (nearCache) Name() string { return "n" }
func (nearCache) Stats() localcache.Stats {
	return localcache.Stats{Hits: 3, Misses: 1, Invalidations: 1, Messages: 1}
}
func (nearCache) CachedSize() int { return 1 }
