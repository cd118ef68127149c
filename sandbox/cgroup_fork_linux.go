package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Moving another process into a cgroup (writing its pid to cgroup.procs)
// takes the kernel's global threadgroup lock for writing, which waits for
// an RCU grace period: 0 to 23 ms a run here (README, Performance), during
// which the sandbox waited on --block-fd. A thread that moves itself
// (writing 0 to a cgroup v1 "tasks" file) skips that lock. So for each
// run group of a cgroup v1 hierarchy, the thread that starts bwrap joins
// the group for the fork and leaves it at once: bwrap and everything it
// starts are born in the group, and nothing needs moving. Groups of a
// cgroup v2 hierarchy take the sandbox's first process after the fork, as
// before.

// bornGroup is a run group made before the fork, for bwrap to be born in.
type bornGroup struct {
	controller string
	g          *runGroup
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
		if _, v2, err := groupParent(controller); err != nil || v2 {
			return
		}
		g, err := newRunGroup(controller, file, file, value)
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
// groups meanwhile, and takes the thread out again. If it cannot leave
// them (its own group's file was open already, so this is not expected),
// run is killed and the thread stays locked to this goroutine, to end
// with it rather than fork anything else in a run's group.
func (w *window) fork(run *exec.Cmd, start func() error) error {
	if w == nil || len(w.born) == 0 {
		return start()
	}
	runtime.LockOSThread()
	var joined []*bornGroup
	var back []*os.File
	for _, b := range w.born {
		// Both files open first: leaving must not fail halfway.
		out, err := os.OpenFile(filepath.Join(filepath.Dir(b.g.dir), "tasks"), os.O_WRONLY, 0)
		if err != nil {
			continue
		}
		in, err := os.OpenFile(filepath.Join(b.g.dir, "tasks"), os.O_WRONLY, 0)
		if err == nil {
			_, err = in.Write([]byte("0"))
			in.Close()
		}
		if err != nil {
			out.Close()
			continue
		}
		joined = append(joined, b)
		back = append(back, out)
	}
	err := start()
	var leaveErr error
	for i, b := range joined {
		if _, werr := back[i].Write([]byte("0")); werr != nil {
			leaveErr = errors.Join(leaveErr, fmt.Errorf("sandbox: start %s: leave cgroup %s: %w", run.Path, b.g.dir, werr))
		}
		back[i].Close()
		b.joined = err == nil
	}
	if leaveErr == nil {
		runtime.UnlockOSThread()
		return err
	}
	if err == nil {
		_ = run.Process.Kill()
		_ = run.Wait()
	}
	return leaveErr
}

// bornIn returns the group of controller bwrap was forked in, or nil.
func (w *window) bornIn(controller string) *runGroup {
	for _, b := range w.born {
		if b.controller == controller && b.joined {
			return b.g
		}
	}
	return nil
}
