//go:build unix

package redissonotel_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user and system): the
// client's share of a benchmark, redis-server being another process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
