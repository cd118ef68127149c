package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/sandtable/sandtable/internal/proctree"
)

// wrapHelperStops are the job-control stops the wrap helper handles itself:
// a ^Z on the caller's terminal reaches the helper, not the sandbox in its
// session of its own.
var wrapHelperStops = []os.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// suspendWrapped stops the sandbox under bwrap (pid) as the watch
// section's suspend row asks (Cmd.Suspend), then the helper itself, and
// continues the sandbox once the helper is continued. A sandbox that
// cannot be stopped within the row's stop-timeout is killed. A helper stopped by SIGSTOP, which it
// cannot catch, stops alone.
func suspendWrapped(pid int) {
	var stopped []int
	if row := suspendRow(); row.rule != "" {
		var err error
		if stopped, err = proctree.Stop(pid, row.stopTimeout); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: wrap helper: suspend (rule %s): %v; killing the sandbox\n", row.rule, err)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			proctree.Continue(stopped)
			return
		}
	}
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	<-cont
	signal.Stop(cont)
	proctree.Continue(stopped)
}

// helperSignals are what a helper catches before it starts its child:
// the signals it passes on (wrapHelperSignals) and the stops it handles
// itself (wrapHelperStops).
type helperSignals struct{ sigs, stops chan os.Signal }

func catchHelperSignals() helperSignals {
	h := helperSignals{sigs: make(chan os.Signal, 8), stops: make(chan os.Signal, 4)}
	signal.Notify(h.sigs, wrapHelperSignals...)
	signal.Notify(h.stops, wrapHelperStops...)
	return h
}

// forward passes each caught signal on to run, and suspends the sandbox
// under it on each stop, until the returned stop is called.
func (h helperSignals) forward(run *exec.Cmd) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-h.sigs:
				_ = run.Process.Signal(s)
			case <-h.stops:
				suspendWrapped(run.Process.Pid)
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}
