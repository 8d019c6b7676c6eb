package watch

import "testing"

// TestMarkChanges: durations and times are not changes; other lines are,
// once each.
func TestMarkChanges(t *testing.T) {
	_, prev := markChanges("a ttl 29.5s\nb 1\nb 1\n", nil)
	got, _ := markChanges("a ttl 1m2.003s\nb 1\nb 2\nc at 2025-01-01T00:00:00.000Z\n", prev)
	want := "  a ttl 1m2.003s\n  b 1\n* b 2\n* c at 2025-01-01T00:00:00.000Z\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
