package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stopTree sends SIGSTOP to root and every process descended from it (the
// whole sandbox: an orphan is adopted by the sandbox's pid-namespace
// init, a descendant too), again and again until a pass finds every one
// stopped, so that one forked meanwhile is stopped as well. It returns the
// pids it stopped; an error once passes have run for within (the suspend
// row's stop-timeout) and some process still would not stop.
func stopTree(root int, within time.Duration) ([]int, error) {
	var stopped []int
	seen := map[int]bool{}
	wait := 50 * time.Microsecond
	for deadline := time.Now().Add(within); ; {
		running := false
		for _, pid := range treePids(root) {
			if allStopped(pid) {
				continue
			}
			running = true
			if syscall.Kill(pid, syscall.SIGSTOP) == nil && !seen[pid] {
				seen[pid] = true
				stopped = append(stopped, pid)
			}
		}
		if !running {
			return stopped, nil
		}
		if time.Now().After(deadline) {
			return stopped, fmt.Errorf("a process of the sandbox did not stop in %v", within)
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Millisecond)
	}
}

// continueAll sends SIGCONT to pids, the ones stopTree stopped.
func continueAll(pids []int) {
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

// allStopped reports whether every thread of pid is stopped (or gone):
// a thread group whose leader has exited still runs its other threads.
func allStopped(pid int) bool {
	p := strconv.Itoa(pid)
	tasks, err := os.ReadDir("/proc/" + p + "/task")
	if err != nil {
		return true // gone
	}
	for _, t := range tasks {
		state, _, ok := procStat(p + "/task/" + t.Name())
		if ok && !strings.ContainsRune("TtZX", state) {
			return false
		}
	}
	return true
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
