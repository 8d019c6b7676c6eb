package dashboard

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/metrics"
)

// TestDashboardMetricsTop: --metrics-top reaches /metrics, which then
// gives that many holds an age series of their own; a negative one is a
// usage error.
func TestDashboardMetricsTop(t *testing.T) {
	t.Parallel()
	if code := Command([]string{"--metrics-top", "-1"}); code != cliflag.ExitUsage {
		t.Errorf("--metrics-top -1: exit %d, want %d", code, cliflag.ExitUsage)
	}
	_, rdb := server(t)
	holdLock(t, rdb, "top:a")
	holdLock(t, rdb, "top:b")
	srv, _ := dashServer(t, rdb, dashOptions{metrics: metrics.Options{Top: 1}})
	get := func() string {
		res, err := srv.Client().Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return string(body)
	}
	// The holders' clients list their holds at their next record refresh.
	var out string
	for deadline := time.Now().Add(30 * time.Second); ; {
		out = get()
		if strings.Contains(out, "\nredisson_held_objects_with_age 2\n") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out, "\nredisson_held_objects_with_age 2\n") || !strings.Contains(out, "\nredisson_hold_age_top 1\n") {
		t.Fatalf("/metrics:\n%s", out)
	}
	if n := strings.Count(out, "\nredisson_hold_age_seconds{"); n != 1 {
		t.Errorf("%d hold-age series, want 1 (--metrics-top 1):\n%s", n, out)
	}
}
