package cgroup

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestForkIn: a process forked inside ForkIn is born in the cgroup v1
// group, and the forking thread is back in its own group afterwards (this
// process's threads are in no run group). The control: the same fork
// outside ForkIn is not in the group.
func TestForkIn(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatal("moving a thread into a cgroup v1 group takes root here (SANDTABLE_REQUIRE_BWRAP=1 makes this a failure)")
		}
		t.Skip("moving a thread into a cgroup v1 group takes root here")
	}
	if _, v2, err := Parent("pids"); err != nil || v2 {
		t.Skipf("no cgroup v1 pids hierarchy holds this process (%v)", err)
	}
	g, err := New("pids", "pids.max", "pids.max", "64")
	if err != nil {
		t.Fatal(err)
	}
	name := g.Dir()[strings.LastIndexByte(g.Dir(), '/'):]
	in := func(pid int) bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
		return strings.Contains(string(b), name+"\n")
	}
	start := func() (*exec.Cmd, error) {
		c := exec.Command("sleep", "30")
		return c, c.Start()
	}
	var c *exec.Cmd
	joined, err, leaveErr := ForkIn([]*Group{g}, func() (err error) { c, err = start(); return err })
	if err != nil || leaveErr != nil {
		t.Fatal(err, leaveErr)
	}
	ctl, err := start()
	if err != nil {
		t.Fatal(err)
	}
	born, ctlBorn := in(c.Process.Pid), in(ctl.Process.Pid)
	for _, p := range []*exec.Cmd{c, ctl} {
		_ = p.Process.Signal(syscall.SIGKILL)
		_ = p.Wait()
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, e := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + e.Name() + "/cgroup")
		if strings.Contains(string(b), name+"\n") {
			t.Errorf("thread %s is still in %s", e.Name(), g.Dir())
		}
	}
	if err := g.Remove(); err != nil {
		t.Error(err)
	}
	if !joined[0] || !born {
		t.Errorf("joined %v, the fork in the group %v: want both", joined[0], born)
	}
	if ctlBorn {
		t.Error("control: a fork outside ForkIn is in the group too, so this proves nothing")
	}
}
