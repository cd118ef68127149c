// Package proctree stops and continues a tree of processes as a unit:
// Stop sends SIGSTOP to a process and everything below it until every one
// is stopped (or parked on a vfork child), Continue undoes it. It owns
// reading /proc for a tree and nothing of the sandbox's policy: the
// caller (package sandbox's suspend row) decides when and for how long.
// Linux only; elsewhere Stop stops nothing. It imports only the standard
// library.
package proctree

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Stop sends SIGSTOP to root and every process descended from it (the
// whole sandbox: an orphan is adopted by the sandbox's pid-namespace
// init, a descendant too), again and again until a pass finds every one
// stopped, so that one forked meanwhile is stopped as well. A process
// below root that waits in the kernel for its vfork child to exec or exit
// (as sh does for each command it runs) cannot stop there, and counts as
// stopped once that child, in the tree too, is: it runs again only when
// the child is continued. It returns the pids it stopped; an error once
// passes have run for within and some process still would not stop.
func Stop(root int, within time.Duration) ([]int, error) {
	var stopped []int
	seen := map[int]bool{}
	wait := 50 * time.Microsecond
	for deadline := time.Now().Add(within); ; {
		running := 0
		for _, pid := range treePids(root) {
			st := stopState(pid, pid != root)
			if st == treeStopped {
				continue
			}
			if st == treeRunning && running == 0 {
				running = pid
			}
			if syscall.Kill(pid, syscall.SIGSTOP) == nil && !seen[pid] {
				seen[pid] = true
				stopped = append(stopped, pid)
			}
		}
		if running == 0 {
			return stopped, nil
		}
		if time.Now().After(deadline) {
			return stopped, fmt.Errorf("a process of the sandbox did not stop in %v (%s)", within, describePid(running))
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Millisecond)
	}
}

// describePid names pid by its command (quoted: the sandbox chooses it)
// and the state of its threads that are not stopped, as /proc shows them.
func describePid(pid int) string {
	p := strconv.Itoa(pid)
	comm, _ := os.ReadFile("/proc/" + p + "/comm")
	s := "pid " + p + " " + strconv.Quote(strings.TrimSuffix(string(comm), "\n"))
	tasks, _ := os.ReadDir("/proc/" + p + "/task")
	for _, t := range tasks {
		if state, _, ok := procStat(p + "/task/" + t.Name()); ok && !strings.ContainsRune("TtZX", state) {
			s += ", thread " + t.Name() + " in state " + string(state)
		}
	}
	return s
}

// Continue sends SIGCONT to pids, the ones Stop stopped.
func Continue(pids []int) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}

// treePids lists root and every process below it, from one pass over
// /proc.
func treePids(root int) []int {
	ents, _ := os.ReadDir("/proc")
	kids := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, ok := procStat(strconv.Itoa(pid)); ok {
			kids[ppid] = append(kids[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// The states of a process for Stop.
const (
	treeStopped = iota // every thread stopped, or gone
	treeParked         // stopped but for threads waiting on a vfork child
	treeRunning
)

// stopState says whether every thread of pid is stopped (or gone; a
// thread group whose leader has exited still runs its other threads) and,
// with vforkOK, whether those that are not wait for a vfork child.
func stopState(pid int, vforkOK bool) int {
	p := strconv.Itoa(pid)
	tasks, err := os.ReadDir("/proc/" + p + "/task")
	if err != nil {
		return treeStopped // gone
	}
	st := treeStopped
	for _, t := range tasks {
		task := p + "/task/" + t.Name()
		state, _, ok := procStat(task)
		switch {
		case !ok || strings.ContainsRune("TtZX", state):
		case vforkOK && state == 'D' && vforkWait(task):
			st = treeParked
		default:
			return treeRunning
		}
	}
	return st
}

// vforkWait reports whether the task at /proc/TASK sleeps in the kernel
// waiting for its vfork child (wchan names the function, inlined in
// kernel_clone on recent kernels).
func vforkWait(task string) bool {
	b, _ := os.ReadFile("/proc/" + task + "/wchan")
	switch string(b) {
	case "wait_for_vfork_done", "kernel_clone", "_do_fork", "do_fork":
		return true
	}
	return false
}

// procStat reads the state and parent pid from /proc/PATH/stat.
func procStat(path string) (state rune, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + path + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 || f[0] == "" {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return rune(f[0][0]), ppid, err == nil
}
