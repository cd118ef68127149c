package sandbox

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopTimeoutTree is a python3 parent whose child sleeps. With "vfork" the
// parent makes the child with clone(CLONE_VFORK) and no CLONE_VM: the
// child has its own memory, and the parent waits in the kernel (state D)
// until the child exits, where SIGSTOP stays pending. Otherwise it forks
// and both sleep, so both stop. The child prints its pid first.
const stopTimeoutTree = `
import ctypes, os, sys, time
if sys.argv[2] == "vfork":
    pid = ctypes.CDLL(None, use_errno=True).syscall(int(sys.argv[1]), 0x4000 | 17, 0, 0, 0, 0)
else:
    pid = os.fork()
if pid == 0:
    os.write(1, b"child %d\n" % os.getpid())
    time.sleep(60)
    os._exit(0)
time.sleep(60)
`

// TestSuspendStopTimeout shows the suspend row's stop-timeout reaching
// stopTree: a sandbox's tree whose root stays in the kernel (a vfork
// parent) cannot be stopped, and with the row's stop-timeout set to
// 200ms Cmd.Suspend gives up after it (not after the table's), naming the
// rule and the bound, and continues the child it had stopped; the wrap
// helper's suspendWrapped kills the tree after it. The control is the
// same tree made with fork: Suspend stops it whole at once. The tree runs
// as root and as the unprivileged user.
func TestSuspendStopTimeout(t *testing.T) {
	python := escLook("python3")
	if python == "" {
		t.Fatalf("no python3 on %s: it makes the tree", escPath)
	}
	const within = 200 * time.Millisecond
	table := withStopTimeout(t, within)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			t.Run("vfork", func(t *testing.T) {
				py, child := startStopTimeoutTree(t, python, u, true)
				c := &Cmd{Cmd: py, wrapped: true}
				start := time.Now()
				_, err := c.Suspend()
				took := time.Since(start)
				if err == nil || !strings.Contains(err.Error(), "rule stop-with-caller") || !strings.Contains(err.Error(), "did not stop in "+within.String()) {
					t.Fatalf("Suspend of a tree with a vfork parent: %v, want the rule and %v named", err, within)
				}
				if took < within || took > within+time.Second {
					t.Errorf("Suspend gave up after %v, want after the row's %v (the table's is %v)", took, within, table)
				}
				if !waitState(child, func(s byte) bool { return s != 'T' }) {
					t.Errorf("the child Suspend stopped was not continued when it gave up: state %c", procState(child))
				}
				if procState(py.Process.Pid) == 0 {
					t.Error("Suspend killed the tree itself; the caller does")
				}
				t.Logf("Suspend gave up after %v: %v", took, err)
			})
			t.Run("wrap-helper", func(t *testing.T) {
				py, _ := startStopTimeoutTree(t, python, u, true)
				start := time.Now()
				suspendWrapped(py.Process.Pid)
				took := time.Since(start)
				if took < within || took > within+time.Second {
					t.Errorf("suspendWrapped gave up after %v, want after the row's %v", took, within)
				}
				done := make(chan error, 1)
				go func() { done <- py.Wait() }()
				select {
				case err := <-done:
					if ws, ok := py.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
						t.Errorf("the tree's root ended with %v, want killed", err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("suspendWrapped did not kill a tree it could not stop")
				}
			})
			t.Run("control", func(t *testing.T) {
				py, child := startStopTimeoutTree(t, python, u, false)
				c := &Cmd{Cmd: py, wrapped: true}
				resume, err := c.Suspend()
				if err != nil {
					t.Fatalf("control: Suspend of a tree made with fork: %v", err)
				}
				for _, pid := range []int{py.Process.Pid, child} {
					if s := procState(pid); s != 'T' {
						t.Errorf("control: pid %d in state %c after Suspend, want T", pid, s)
					}
				}
				resume()
				for _, pid := range []int{py.Process.Pid, child} {
					if !waitState(pid, func(s byte) bool { return s != 'T' }) {
						t.Errorf("control: pid %d still stopped after resume", pid)
					}
				}
			})
		})
	}
}

// withStopTimeout sets the suspend row's stop-timeout for one test and
// returns the table's.
func withStopTimeout(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	for i := range watchRows {
		if watchRows[i].of == watchSuspend && watchRows[i].rule != "" {
			orig := watchRows[i].stopTimeout
			watchRows[i].stopTimeout = d
			t.Cleanup(func() { watchRows[i].stopTimeout = orig })
			return orig
		}
	}
	t.Fatal("the watch section has no suspend row")
	return 0
}

// startStopTimeoutTree starts stopTimeoutTree with python as u and returns it with
// its child's pid, once the child runs (and, with vfork, the parent waits
// in the kernel). Cleanup kills both.
func startStopTimeoutTree(t *testing.T, python string, u *escUser, vfork bool) (*exec.Cmd, int) {
	t.Helper()
	mode := "fork"
	if vfork {
		mode = "vfork"
	}
	py := exec.Command(python, "-c", stopTimeoutTree, strconv.Itoa(syscall.SYS_CLONE), mode)
	py.Dir = "/"
	py.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	out, err := py.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := py.Start(); err != nil {
		t.Fatal(err)
	}
	child := 0
	t.Cleanup(func() {
		if child > 0 {
			syscall.Kill(child, syscall.SIGKILL)
		}
		py.Process.Kill()
		py.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if pid, err2 := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "child "))); err != nil || err2 != nil {
		t.Fatalf("the tree's child did not say its pid: %q, %v %v", line, err, err2)
	} else {
		child = pid
	}
	if vfork && !waitState(py.Process.Pid, func(s byte) bool { return s == 'D' }) {
		t.Fatalf("the vfork parent is in state %c, want D", procState(py.Process.Pid))
	}
	return py, child
}

// waitState waits up to 5s for pid's state to satisfy ok.
func waitState(pid int, ok func(byte) bool) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ok(procState(pid)) {
			return true
		}
	}
	return false
}
