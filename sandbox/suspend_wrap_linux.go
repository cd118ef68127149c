package sandbox

import (
	"fmt"
	"os"
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
