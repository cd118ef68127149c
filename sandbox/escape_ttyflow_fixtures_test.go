//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
)

// The fixtures of the terminal flow attempt (escape_ttyflow_test.go): the
// program that stops output, and the runner that sees whether it flows.

// ttyFlowPy stops output on its stdout's terminal (tcflow TCOOFF, the
// TCXONC ioctl) and exits without writing again, so nothing of its own
// waits on the stopped terminal.
const ttyFlowPy = `
import termios
try:
    termios.tcflow(1, termios.TCOOFF)
except OSError as e:
    import sys
    print("tcflow refused:", e, file=sys.stderr)
`

// runPtyFlow is runPty, and adds whether the caller's next write to the
// terminal goes through once the run is over ("[output] flows") or
// would wait for a ^Q that may never come ("[output] stopped").
func runPtyFlow(e *escEnv, cmd *exec.Cmd) *escResult {
	return runPtyThen(e, cmd, func(slave *os.File) string {
		fd := int(slave.Fd())
		syscall.SetNonblock(fd, true)
		if _, err := syscall.Write(fd, []byte("after\n")); err != nil {
			return "\n[output] stopped: " + err.Error() + "\n"
		}
		return "\n[output] flows\n"
	})
}
