package integration

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// A row of the Markdown summary: one fault (or contention run) against one
// object, with what was measured.
type row struct {
	Fault, Object, Figure string
	Violations            int
}

var summary struct {
	mu   sync.Mutex
	rows []row
}

// record adds a row to the summary.
func record(fault, object string, violations int, format string, args ...any) {
	summary.mu.Lock()
	defer summary.mu.Unlock()
	summary.rows = append(summary.rows, row{fault, object, fmt.Sprintf(format, args...), violations})
}

// writeSummary writes the Markdown table to $REDISSON_INTEGRATION_SUMMARY,
// if set; nothing when no row was recorded.
func writeSummary() error {
	path := os.Getenv("REDISSON_INTEGRATION_SUMMARY")
	summary.mu.Lock()
	rows := append([]row(nil), summary.rows...)
	summary.mu.Unlock()
	if path == "" || len(rows) == 0 {
		return nil
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Fault < rows[j].Fault })
	var b strings.Builder
	b.WriteString("| Fault | Object | Measured | Violations |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", r.Fault, r.Object, r.Figure, r.Violations)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
