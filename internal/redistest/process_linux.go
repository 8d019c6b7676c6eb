package redistest

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the server with SIGKILL when the
// process that started it dies, so servers never outlive a crashed or killed
// test binary. (Strictly, the signal fires when the starting OS thread exits;
// the Go runtime keeps its threads for the life of the process unless a
// goroutine exits while locked to one.) The server also gets its own process
// group, so a terminal's Ctrl-C reaches the program that started it (which
// then stops it in order) and not the server directly.
func setParentDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.SysProcAttr.Setpgid = true
}
