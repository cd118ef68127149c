package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Moving another process into a cgroup (writing its pid to cgroup.procs)
// takes the kernel's global threadgroup lock for writing, which waits for
// an RCU grace period: 0 to 23 ms a run here (docs/performance.md), during
// which the sandbox waited on --block-fd. A thread that moves itself
// (writing 0 to a cgroup v1 "tasks" file) skips that lock. So the thread
// that starts bwrap joins each cgroup v1 run group for the fork and leaves
// it at once: bwrap and everything it starts are born in the groups, and
// nothing needs moving. Groups of a cgroup v2 hierarchy take the sandbox's
// first process after the fork.

// ForkIn calls start, which forks, with the calling thread in groups
// meanwhile (cgroup v1 groups; one it cannot join is skipped), and takes
// the thread out again. joined says which groups the fork happened in.
// leaveErr means the thread could not leave them (its own group's file
// was open already, so this is not expected): it then stays locked to the
// calling goroutine, to end with it rather than fork anything else in a
// run's group, and the caller kills what start started.
func ForkIn(groups []*Group, start func() error) (joined []bool, startErr, leaveErr error) {
	joined = make([]bool, len(groups))
	runtime.LockOSThread()
	var in []int
	var back []*os.File
	for i, g := range groups {
		// Both files open first: leaving must not fail halfway.
		out, err := os.OpenFile(filepath.Join(filepath.Dir(g.dir), "tasks"), os.O_WRONLY, 0)
		if err != nil {
			continue
		}
		f, err := os.OpenFile(filepath.Join(g.dir, "tasks"), os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write([]byte("0"))
			f.Close()
		}
		if err != nil {
			out.Close()
			continue
		}
		in = append(in, i)
		back = append(back, out)
	}
	startErr = start()
	for k, i := range in {
		if _, err := back[k].Write([]byte("0")); err != nil {
			leaveErr = errors.Join(leaveErr, fmt.Errorf("cgroup: leave %s: %w", groups[i].dir, err))
		}
		back[k].Close()
		joined[i] = startErr == nil
	}
	if leaveErr == nil {
		runtime.UnlockOSThread()
	}
	return joined, startErr, leaveErr
}
