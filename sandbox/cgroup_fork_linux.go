package sandbox

import (
	"fmt"
	"os/exec"

	"github.com/sandtable/sandtable/internal/cgroup"
)

// The run's cgroup v1 groups are made before the fork, and bwrap is born
// in them (cgroup.ForkIn says why); cgroup v2 groups take the sandbox's
// first process after the fork (window.apply).

// bornGroup is a run group made before the fork, for bwrap to be born in.
type bornGroup struct {
	controller string
	g          *cgroup.Group
	joined     bool // bwrap was forked in it
}

// prepareBorn makes the v1 groups that p's limits will need, before the
// fork. Any failure leaves that group to apply, which reports it as
// before.
func (w *window) prepareBorn(p *plan, root bool) {
	if w == nil {
		return
	}
	l := &p.run
	want := func(controller, file, value string) {
		if _, v2, err := cgroup.Parent(controller); err != nil || v2 {
			return
		}
		g, err := cgroup.New(controller, file, file, value)
		if err != nil {
			return
		}
		w.born = append(w.born, &bornGroup{controller: controller, g: g})
	}
	if l.procs != 0 && root {
		want("pids", "pids.max", fmt.Sprint(l.procs))
	}
	if l.memory != 0 {
		want("memory", "memory.limit_in_bytes", fmt.Sprint(l.memory))
	}
}

// fork starts run with start, with the calling thread in the prepared
// groups meanwhile (cgroup.ForkIn). If the thread cannot leave them, run
// is killed.
func (w *window) fork(run *exec.Cmd, start func() error) error {
	if w == nil || len(w.born) == 0 {
		return start()
	}
	groups := make([]*cgroup.Group, len(w.born))
	for i, b := range w.born {
		groups[i] = b.g
	}
	joined, err, leaveErr := cgroup.ForkIn(groups, start)
	for i, b := range w.born {
		b.joined = joined[i]
	}
	if leaveErr == nil {
		return err
	}
	if err == nil {
		_ = run.Process.Kill()
		_ = run.Wait()
	}
	return fmt.Errorf("sandbox: start %s: %w", run.Path, leaveErr)
}

// bornIn returns the group of controller bwrap was forked in, or nil.
func (w *window) bornIn(controller string) *cgroup.Group {
	for _, b := range w.born {
		if b.controller == controller && b.joined {
			return b.g
		}
	}
	return nil
}
