package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// runTiny runs one scenario group in a tiny configuration (one round, 50
// ops, every library) on a private server, logs the printed report and
// returns it with the printed text; tweak adjusts the configuration.
func runTiny(t *testing.T, group string, tweak func(*Config)) (*Report, string) {
	t.Helper()
	srv := redistest.StartServer(t)
	var log bytes.Buffer
	cfg := Config{
		Addr: srv.Addr(), Rounds: 1, Libs: allLibs, Ops: 50, OpsTimeout: 20 * time.Second,
		Only: map[string]bool{group: true}, Log: &log,
	}
	if tweak != nil {
		tweak(&cfg)
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.Print(&out)
	t.Logf("report:\n%s", out.String())
	return rep, out.String()
}
