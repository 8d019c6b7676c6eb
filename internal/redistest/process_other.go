//go:build !linux

package redistest

import "os/exec"

// setParentDeathSignal does nothing: only Linux can kill a child when its
// parent dies. Servers are stopped by Stop and the test cleanups.
func setParentDeathSignal(*exec.Cmd) {}
