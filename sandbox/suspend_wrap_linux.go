package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

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

// wait waits for run, passing each caught signal on to it and suspending
// the sandbox under it on each stop meanwhile.
func (h helperSignals) wait(run *exec.Cmd) {
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
	_ = run.Wait()
	close(done)
}

// exitAs is the helper's exit status for its ended run: run's own, or,
// when a signal killed run, the helper dies by the same signal (its
// caller sees the same death), after before, since its deferred cleanups
// would not run.
func exitAs(run *exec.Cmd, before func()) int {
	ws, _ := run.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	signal.Reset(sig)
	before()
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(100 * time.Millisecond)
	return 128 + int(sig)
}
