// Package integration holds the cross-process and fault tests of every
// object: several OS processes (the test binary re-executed as workers) and
// several clients contend on each object while the tests check invariants
// by data (no lost update of a non-atomic counter, no gauge above the
// permits, fair-queue order, every latch waiter released), and faults (a
// holder killed with SIGKILL, pub/sub connections killed, a stalled or cut
// network, a redis-server restart) are injected with bounds in time and
// count.
//
// `go test ./integration` runs a short subset; `make integration` sets
// REDISSON_INTEGRATION=full for every row and fault and prints a Markdown
// summary of the measured figures (REDISSON_INTEGRATION_SUMMARY names the
// file it is written to).
package integration
