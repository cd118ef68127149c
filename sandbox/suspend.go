package sandbox

import (
	"fmt"

	"github.com/sandtable/sandtable/internal/proctree"
)

// Suspend stops every process of a running sandbox, as the watch
// section's suspend row (rules/linux.yaml) asks, and returns the function
// that continues them. A caller that stops itself (a ^Z, SIGTSTP) calls it
// first: a sandbox left running keeps the caller's terminal, and outside
// the terminal's session it reads what is typed next without SIGTTIN.
// Without the row, an unwrapped command, or off Linux (the macOS sandbox
// has no session of its own, so the terminal's ^Z reaches the command
// itself), it stops nothing.
// An error means the sandbox could not be stopped within the row's
// stop-timeout; the caller should kill the run rather than stop without
// it.
func (c *Cmd) Suspend() (resume func(), err error) {
	row := suspendRow()
	if row.rule == "" || !c.wrapped || c.Process == nil {
		return func() {}, nil
	}
	stopped, err := proctree.Stop(c.Process.Pid, row.stopTimeout)
	resume = func() { proctree.Continue(stopped) }
	if err != nil {
		resume()
		return func() {}, fmt.Errorf("sandbox: suspend (rule %s): %w", row.rule, err)
	}
	return resume, nil
}

// suspendRow is the watch row that stops the sandbox with its caller, or
// one with no rule.
func suspendRow() watchRow {
	for _, row := range watchRows {
		if row.of == watchSuspend && row.rule != "" {
			return row
		}
	}
	return watchRow{}
}
