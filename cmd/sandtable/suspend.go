package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"

	"github.com/sandtable/sandtable/sandbox"
)

// runTerminals is the caller's terminal state the run restores, shared by
// the end of the run and the suspend handler (which saves it again when
// the run continues: the user may have changed it at the shell).
type runTerminals struct {
	mu    sync.Mutex
	saved []savedTerminal
}

func (r *runTerminals) restore() {
	r.mu.Lock()
	defer r.mu.Unlock()
	restoreTerminals(r.saved)
}

// suspendOnStop handles the run's job-control stops (sigs) until the
// channel is stopped: the sandbox stops first (Cmd.Suspend, the watch
// section's suspend row), then the caller's terminal settings go back, and
// sandtable stops itself. When it is continued, the terminal is saved
// again and, in the foreground, given the command's settings back, and
// the sandbox continues. A sandbox that cannot be stopped is killed.
func suspendOnStop(cmd *sandbox.Cmd, terms *runTerminals, sigs *signals) {
	goOn := true
	for range sigs.stop {
		sigs.during(func() { goOn = suspendRun(cmd, terms, sigs.stop) })
		if !goOn {
			return
		}
	}
}

// suspendRun is one stop of the run and its continuation; false when the
// sandbox could not be stopped, and was killed.
func suspendRun(cmd *sandbox.Cmd, terms *runTerminals, stop chan os.Signal) bool {
	resume, err := cmd.Suspend()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandtable: %v; killing the run\n", err)
		_ = cmd.Process.Kill()
		return false
	}
	terms.mu.Lock()
	running := saveTerminals()
	restoreTerminals(terms.saved)
	stopSelf()
	terms.saved = saveTerminals()
	if foreground(running) {
		restoreTerminals(running)
	}
	terms.mu.Unlock()
	// restoreTerminals resets SIGTTOU's handling: catch it again.
	signal.Notify(stop, stopSignals...)
	resume()
	return true
}
