package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeathSignal makes bwrap die with sandtable, even of SIGKILL;
// bwrap's --die-with-parent then takes the whole sandbox with it.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// checkPidfdEarly makes os run now the check it makes once per process
// before its first spawn, of whether pidfds work here: it forks and reaps a
// throwaway child, 0.2 to 0.3 ms. FindProcess is the exported call that
// runs it.
func checkPidfdEarly() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
}

// sandboxedProcess returns the host pid of the command that bwrap (pid)
// runs: bwrap forks a pid-namespace init, which forks the command. A signal
// must skip both: bwrap dies of it without passing it on, and a namespace's
// init ignores it. While the sandbox is still being set up there is no
// command yet, and pid itself is returned: killing bwrap then ends it all.
func sandboxedProcess(pid int) int {
	p := pid
	for comm(p) == "bwrap" {
		kids := children(p)
		if len(kids) == 0 {
			return pid
		}
		p = kids[0]
	}
	return p
}

func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

func children(pid int) []int {
	s := strconv.Itoa(pid)
	b, _ := os.ReadFile("/proc/" + s + "/task/" + s + "/children")
	var kids []int
	for _, f := range strings.Fields(string(b)) {
		if k, err := strconv.Atoi(f); err == nil {
			kids = append(kids, k)
		}
	}
	return kids
}
