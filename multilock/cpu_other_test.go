//go:build !unix

package multilock_test

import "time"

// processCPU is 0 where getrusage is not available: the benchmark's
// cpu-µs/op then reads 0.
func processCPU() time.Duration { return 0 }
