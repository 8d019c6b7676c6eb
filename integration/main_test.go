package integration

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		workerMain()
	}
	code := m.Run()
	if err := writeSummary(); err != nil {
		fmt.Fprintln(os.Stderr, "integration: summary:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// full reports whether the long variants run (make integration).
func full() bool { return os.Getenv("REDISSON_INTEGRATION") == "full" }
