package main

import (
	"context"
	"fmt"

	"github.com/goredisson/redisson"
)

// runLocal runs the local cached map's modes (lcmwatch, lcmput).
func runLocal(_ context.Context, _ *redisson.Client, _ *checker, mode, _ string, _ []string) error {
	return fmt.Errorf("unknown mode %q", mode)
}
