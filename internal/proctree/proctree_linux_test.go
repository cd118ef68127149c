package proctree

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopContinue stops a tree of three levels (a shell, a shell it
// started, and their sleeps) and finds every process of it stopped, the
// grandchildren too, and a process outside the tree running; Continue
// runs them all again. The tree is killed as a process group at the end.
func TestStopContinue(t *testing.T) {
	c := exec.Command("/bin/sh", "-c", `sleep 30 & /bin/sh -c 'sleep 30 & sleep 30 & wait' & wait`)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		_ = c.Wait()
	}()
	outside := exec.Command("sleep", "30")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = outside.Process.Kill(); _ = outside.Wait() }()
	var tree []int
	for deadline := time.Now().Add(5 * time.Second); len(tree) < 5; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the tree has %d processes, want 5", len(tree))
		}
		tree = treePids(c.Process.Pid)
	}
	stopped, err := Stop(c.Process.Pid, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(stopped)
	slices.Sort(tree)
	if !slices.Equal(stopped, tree) {
		t.Errorf("Stop stopped %v, want the tree %v", stopped, tree)
	}
	for _, pid := range tree {
		if s := state(pid); s != 'T' {
			t.Errorf("pid %d is in state %c after Stop, want T", pid, s)
		}
	}
	if s := state(outside.Process.Pid); s == 'T' {
		t.Errorf("a process outside the tree was stopped")
	}
	Continue(stopped)
	for _, pid := range tree {
		for deadline := time.Now().Add(5 * time.Second); state(pid) == 'T'; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("pid %d still stopped after Continue", pid)
				break
			}
		}
	}
}

// state is the state letter of pid in /proc, 0 when it is gone.
func state(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0
	}
	return s[i+2]
}
