package sandbox

import "fmt"

// Suspend stops every process of a running sandbox, as the watch
// section's suspend row (rules/linux.yaml) asks, and returns the function
// that continues them. A caller that stops itself (a ^Z, SIGTSTP) calls it
// first: a sandbox left running keeps the caller's terminal, and outside
// the terminal's session it reads what is typed next without SIGTTIN.
// Without the row, an unwrapped command, or off Linux, it stops nothing.
// An error means the sandbox could not be stopped; the caller should kill
// the run rather than stop without it.
func (c *Cmd) Suspend() (resume func(), err error) {
	rule := suspendRule()
	if rule == "" || !c.wrapped || c.Process == nil {
		return func() {}, nil
	}
	stopped, err := stopTree(c.Process.Pid)
	resume = func() { continueAll(stopped) }
	if err != nil {
		resume()
		return func() {}, fmt.Errorf("sandbox: suspend (rule %s): %w", rule, err)
	}
	return resume, nil
}

// suspendRule is the id of the watch row that stops the sandbox with its
// caller, or "".
func suspendRule() string {
	for _, row := range watchRows {
		if row.of == watchSuspend {
			return row.rule
		}
	}
	return ""
}
