package metrics_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// opsDir holds the alert rules and the Grafana files over /metrics.
const opsDir = "../../../extra/prometheus"

var (
	metricRef = regexp.MustCompile(`\bredisson_[a-z_]+\b`)
	byClause  = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	labelRef  = regexp.MustCompile(`\$labels\.([a-zA-Z_]+)|\{\{\s*([a-zA-Z_]+)\s*\}\}`)
	helpLine  = regexp.MustCompile(`(?m)^# HELP (\S+) `)
	labelPair = regexp.MustCompile(`([a-zA-Z_]+)="`)
)

// exported returns the metric and label names /metrics writes for a
// Redis with most kinds and every kind of holder; instance and job are
// the labels Prometheus adds.
func exported(t *testing.T) (metrics, labels map[string]bool) {
	t.Helper()
	metrics, labels = map[string]bool{}, map[string]bool{"instance": true, "job": true}
	for _, text := range []string{scrape(t), holdsScrape(t)} {
		for _, m := range helpLine.FindAllStringSubmatch(text, -1) {
			metrics[m[1]] = true
		}
		for _, line := range strings.Split(text, "\n") {
			if i := strings.IndexByte(line, '{'); i > 0 && !strings.HasPrefix(line, "#") {
				for _, m := range labelPair.FindAllStringSubmatch(line[i:], -1) {
					labels[m[1]] = true
				}
			}
		}
	}
	return metrics, labels
}

// checkNames fails for a metric or label in expr (and its texts) that
// /metrics does not export.
func checkNames(t *testing.T, where, expr string, texts []string, metrics, labels map[string]bool) {
	t.Helper()
	names := metricRef.FindAllString(expr, -1)
	if len(names) == 0 {
		t.Errorf("%s: %q names no metric", where, expr)
	}
	for _, m := range names {
		if !metrics[m] {
			t.Errorf("%s: %q: /metrics has no %s", where, expr, m)
		}
	}
	for _, b := range byClause.FindAllStringSubmatch(expr, -1) {
		for _, l := range strings.Split(b[1], ",") {
			if l = strings.TrimSpace(l); l != "" && !labels[l] {
				t.Errorf("%s: %q: /metrics has no label %s", where, expr, l)
			}
		}
	}
	for _, text := range texts {
		for _, m := range labelRef.FindAllStringSubmatch(text, -1) {
			if l := m[1] + m[2]; !labels[l] {
				t.Errorf("%s: %q: /metrics has no label %s", where, text, l)
			}
		}
	}
}

// grafanaRules is the part of Grafana's alerting provisioning format the
// test reads.
type grafanaRules struct {
	APIVersion int `json:"apiVersion"`
	Groups     []struct {
		Name, Folder, Interval string
		Rules                  []struct {
			UID, Title, Condition, For string
			Data                       []struct {
				RefID         string `json:"refId"`
				DatasourceUID string `json:"datasourceUid"`
				Model         struct {
					Expr, Type, Expression string
				}
			}
			Annotations map[string]string
			Labels      map[string]string
		}
	}
}

// TestGrafanaAlertRules: the Grafana alert rules parse, each rule's
// condition is one of its queries, and every metric and label their
// queries and texts name is one /metrics exports.
func TestGrafanaAlertRules(t *testing.T) {
	t.Parallel()
	metrics, labels := exported(t)
	data, err := os.ReadFile(filepath.Join(opsDir, "grafana-alert-rules.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g grafanaRules
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("grafana-alert-rules.json: %v", err)
	}
	if g.APIVersion != 1 || len(g.Groups) == 0 {
		t.Fatalf("apiVersion %d, %d groups", g.APIVersion, len(g.Groups))
	}
	uids := map[string]bool{}
	n := 0
	for _, grp := range g.Groups {
		if _, err := time.ParseDuration(grp.Interval); err != nil || grp.Name == "" || grp.Folder == "" {
			t.Errorf("group %q: interval %q (%v), folder %q", grp.Name, grp.Interval, err, grp.Folder)
		}
		for _, r := range grp.Rules {
			n++
			if r.UID == "" || uids[r.UID] || r.Title == "" {
				t.Errorf("rule %q: uid %q empty or repeated", r.Title, r.UID)
			}
			uids[r.UID] = true
			if _, err := time.ParseDuration(r.For); err != nil {
				t.Errorf("rule %s: for %q: %v", r.UID, r.For, err)
			}
			refs := map[string]bool{}
			for _, d := range r.Data {
				refs[d.RefID] = true
				switch {
				case d.DatasourceUID == "__expr__":
					if !refs[d.Model.Expression] {
						t.Errorf("rule %s: %s reads %q, not an earlier query", r.UID, d.RefID, d.Model.Expression)
					}
				default:
					checkNames(t, "rule "+r.UID, d.Model.Expr, []string{r.Annotations["summary"], r.Annotations["description"]}, metrics, labels)
				}
			}
			if !refs[r.Condition] {
				t.Errorf("rule %s: condition %q is none of its queries", r.UID, r.Condition)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d Grafana rules, want stuck lock, dead holder and queue growing", n)
	}
}

// TestGrafanaDashboard: the CLI's Grafana dashboard parses and its panels
// query only what /metrics exports.
func TestGrafanaDashboard(t *testing.T) {
	t.Parallel()
	metrics, labels := exported(t)
	data, err := os.ReadFile(filepath.Join(opsDir, "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string
		Panels []struct {
			ID      int
			Title   string
			Targets []struct{ Expr, LegendFormat string }
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	if d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("uid %q, %d panels", d.UID, len(d.Panels))
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			checkNames(t, "panel "+p.Title, q.Expr, []string{q.LegendFormat}, metrics, labels)
		}
	}
}

// TestPrometheusRulesNames: every expr of the Prometheus rule file names
// metrics and labels /metrics exports.
func TestPrometheusRulesNames(t *testing.T) {
	t.Parallel()
	metrics, labels := exported(t)
	f, err := os.Open(filepath.Join(opsDir, "redisson-cli.rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	var texts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "expr:"):
			n++
			checkNames(t, "rules", strings.TrimSpace(strings.TrimPrefix(line, "expr:")), nil, metrics, labels)
		case strings.HasPrefix(line, "summary:"), strings.HasPrefix(line, "description:"):
			texts = append(texts, line)
		}
	}
	checkNames(t, "rules", "redisson_up", texts, metrics, labels)
	if n < 3 {
		t.Errorf("%d rules, want stuck lock, dead holder and queue growing", n)
	}
}

// TestPrometheusRulesPromtool: "promtool check rules" accepts the rule
// file and "promtool test rules" passes its unit tests (series in, alerts
// out). Like TestMetricsPromtool it needs promtool under make test
// (REDISSON_REQUIRE_PROMTOOL) and skips elsewhere.
func TestPrometheusRulesPromtool(t *testing.T) {
	t.Parallel()
	tool := os.Getenv("PROMTOOL")
	if tool == "" {
		tool = "promtool"
	}
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("REDISSON_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("promtool not found (%v): run bash scripts/ensure-promtool.sh, or set PROMTOOL", err)
		}
		t.Skipf("promtool not found (%v)", err)
	}
	for _, args := range [][]string{
		{"check", "rules", "redisson-cli.rules.yml"},
		{"test", "rules", "redisson-cli.rules_test.yml"},
	} {
		cmd := exec.Command(path, args...)
		cmd.Dir = opsDir
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, msg)
		}
	}
}
