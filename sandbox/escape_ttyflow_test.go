//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
)

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

var ttyFlowAttempts = []*attempt{
	{
		name:    "tcxonc",
		what:    "stop output on the caller's terminal (tcflow TCOOFF): the caller's writes wait after the run",
		needs:   []string{"python3"},
		setup:   func(e *escEnv) { e.vars["FLOW_PY"] = ttyFlowPy },
		script:  `"$PY" -c "$FLOW_PY"`,
		run:     runPtyFlow,
		escaped: func(e *escEnv, r *escResult) bool { return !strings.Contains(r.out, "[output] flows\n") },
		control: func(e *escEnv) escMode { return dropSeccomp("refuse-tcxonc") },
	},
}

func init() { escAttempts = append(escAttempts, ttyFlowAttempts...) }
