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

// stopTimeoutTree is a python3 process tree, by its second argument:
//
//   - "vfork-out": the root makes its child with clone(CLONE_VFORK |
//     CLONE_PARENT), so the child is the caller's, outside the tree, and
//     the root waits in the kernel (state D) until that child exits: it
//     cannot stop, the SIGSTOP stays pending;
//   - "vfork-in": the root forks a parent that does the same without
//     CLONE_PARENT, so its vfork child is in the tree, as sh's are;
//   - "fork": the root forks a child; both sleep and stop.
//
// No CLONE_VM: the vfork child has its own memory. The waiting parent, if
// any, prints "parent PID", then the child "child PID"; the child sleeps.
const stopTimeoutTree = `
import ctypes, os, sys, time
clone = lambda flags: ctypes.CDLL(None, use_errno=True).syscall(int(sys.argv[1]), flags | 17, 0, 0, 0, 0)
mode = sys.argv[2]
if mode == "vfork-in" and os.fork() != 0:
    time.sleep(60)
    os._exit(0)
if mode != "fork":
    os.write(1, b"parent %d\n" % os.getpid())
pid = {"vfork-out": lambda: clone(0x4000 | 0x8000), "vfork-in": lambda: clone(0x4000), "fork": os.fork}[mode]()
if pid == 0:
    os.write(1, b"child %d\n" % os.getpid())
    time.sleep(60)
    os._exit(0)
time.sleep(60)
`

// TestSuspendStopTimeout shows the suspend row's stop-timeout reaching
// proctree.Stop. A tree whose root waits in the kernel for a vfork child
// outside the tree cannot be stopped: with the row's stop-timeout set to
// 200ms Cmd.Suspend gives up after it (not after the table's), naming the
// rule, the bound and the process in state D, and continues what it had
// stopped; the wrap helper's suspendWrapped kills the tree after it. A
// vfork parent below the root (as sh is while its child starts) is
// stopped with its child, which is in the tree; and the control, the
// tree made with fork, stops whole at once. The tree runs as root and as
// the unprivileged user.
func TestSuspendStopTimeout(t *testing.T) {
	python := escLook("python3")
	if python == "" {
		t.Fatalf("no python3 on %s: it makes the tree", escPath)
	}
	const within = 200 * time.Millisecond
	table := withStopTimeout(t, within)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			t.Run("vfork-out", func(t *testing.T) {
				tr := startStopTimeoutTree(t, python, u, "vfork-out")
				c := &Cmd{Cmd: tr.cmd, wrapped: true}
				start := time.Now()
				_, err := c.Suspend()
				took := time.Since(start)
				if err == nil || !strings.Contains(err.Error(), "rule stop-with-caller") || !strings.Contains(err.Error(), "did not stop in "+within.String()) || !strings.Contains(err.Error(), "in state D") {
					t.Fatalf("Suspend of a tree whose root waits on a vfork child: %v, want the rule, %v and the process in state D named", err, within)
				}
				if took < within || took > within+time.Second {
					t.Errorf("Suspend gave up after %v, want after the row's %v (the table's is %v)", took, within, table)
				}
				if procState(tr.cmd.Process.Pid) != 'D' {
					t.Errorf("Suspend left the root in state %c, want it still waiting (D): the caller kills it", procState(tr.cmd.Process.Pid))
				}
				t.Logf("Suspend gave up after %v: %v", took, err)
			})
			t.Run("wrap-helper", func(t *testing.T) {
				tr := startStopTimeoutTree(t, python, u, "vfork-out")
				start := time.Now()
				suspendWrapped(tr.cmd.Process.Pid)
				took := time.Since(start)
				if took < within || took > within+time.Second {
					t.Errorf("suspendWrapped gave up after %v, want after the row's %v", took, within)
				}
				done := make(chan error, 1)
				go func() { done <- tr.cmd.Wait() }()
				select {
				case err := <-done:
					if ws, ok := tr.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
						t.Errorf("the tree's root ended with %v, want killed", err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("suspendWrapped did not kill a tree it could not stop")
				}
			})
			t.Run("vfork-in", func(t *testing.T) {
				tr := startStopTimeoutTree(t, python, u, "vfork-in")
				suspendResumeTree(t, tr, "a tree with a vfork parent below its root")
				if s := procState(tr.parent); s != 'D' {
					t.Errorf("the vfork parent in state %c after resume, want D (waiting on its child again)", s)
				}
			})
			t.Run("control", func(t *testing.T) {
				tr := startStopTimeoutTree(t, python, u, "fork")
				suspendResumeTree(t, tr, "control: a tree made with fork")
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

// stopTimeoutRun is a started stopTimeoutTree: the root, the vfork
// parent (0 with fork) and the child.
type stopTimeoutRun struct {
	cmd           *exec.Cmd
	parent, child int
}

// startStopTimeoutTree starts stopTimeoutTree with python as u, in mode,
// and returns it once the child runs and the vfork parent, if any, waits
// in the kernel. Cleanup kills every process of it (and reaps a child
// that is the test's own).
func startStopTimeoutTree(t *testing.T, python string, u *escUser, mode string) *stopTimeoutRun {
	t.Helper()
	tr := &stopTimeoutRun{cmd: exec.Command(python, "-c", stopTimeoutTree, strconv.Itoa(syscall.SYS_CLONE), mode)}
	tr.cmd.Dir = "/"
	tr.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	out, err := tr.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range []int{tr.child, tr.parent} {
			if pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		tr.cmd.Process.Kill()
		tr.cmd.Wait()
		if mode == "vfork-out" && tr.child > 0 {
			var ws syscall.WaitStatus
			syscall.Wait4(tr.child, &ws, 0, nil)
		}
	})
	r := bufio.NewReader(out)
	for _, want := range []string{"parent", "child"} {
		if want == "parent" && mode == "fork" {
			continue
		}
		line, err := r.ReadString('\n')
		word, num, _ := strings.Cut(strings.TrimSpace(line), " ")
		pid, err2 := strconv.Atoi(num)
		if err != nil || err2 != nil || word != want {
			t.Fatalf("the tree did not say its %s's pid: %q, %v %v", want, line, err, err2)
		}
		if want == "parent" {
			tr.parent = pid
		} else {
			tr.child = pid
		}
	}
	if tr.parent > 0 && !waitState(tr.parent, func(s byte) bool { return s == 'D' }) {
		t.Fatalf("the vfork parent is in state %c, want D", procState(tr.parent))
	}
	return tr
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

// suspendResumeTree suspends tr's root and child through Suspend, checks
// both stopped, resumes them and checks both run again; what names the
// tree in errors.
func suspendResumeTree(t *testing.T, tr *stopTimeoutRun, what string) {
	t.Helper()
	c := &Cmd{Cmd: tr.cmd, wrapped: true}
	resume, err := c.Suspend()
	if err != nil {
		t.Fatalf("Suspend of %s: %v", what, err)
	}
	pids := []int{tr.cmd.Process.Pid, tr.child}
	for _, pid := range pids {
		if s := procState(pid); s != 'T' {
			t.Errorf("%s: pid %d in state %c after Suspend, want T", what, pid, s)
		}
	}
	resume()
	for _, pid := range pids {
		if !waitState(pid, func(s byte) bool { return s != 'T' }) {
			t.Errorf("%s: pid %d still stopped after resume", what, pid)
		}
	}
}
