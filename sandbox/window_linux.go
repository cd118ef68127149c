package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/sandtable/sandtable/internal/cgroup"
	"golang.org/x/sys/unix"
)

// window is the pipe bwrap waits on (--block-fd) once it has built the
// sandbox and before it runs the command, and what was applied to the
// sandbox's first process meanwhile: the run-time limits, which the
// command and everything it starts inherit. Nothing but that process is
// touched, and the thread that forks bwrap into a cgroup v1 group (see
// cgroup.ForkIn), which leaves it at once: no rlimit or cgroup of
// this process changes.
type window struct {
	r, w    *os.File
	groups  []*cgroup.Group // removed after the run
	born    []*bornGroup    // made before the fork; removed after the run
	skipped []string        // defaults this machine could not enforce, and why
}

// openWindow returns the pipe for a spawn with run-time limits, nil for
// one without.
func openWindow(p *plan) (*window, error) {
	if !p.run.any() {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: block pipe: %w", err)
	}
	return &window{r: r, w: w}, nil
}

// started closes this process's copy of bwrap's end.
func (w *window) started() {
	if w != nil && w.r != nil {
		w.r.Close()
		w.r = nil
	}
}

// close closes both ends: only once bwrap is gone or released, since bwrap
// reads an end of file as a release.
func (w *window) close() {
	if w == nil {
		return
	}
	w.started()
	if w.w != nil {
		w.w.Close()
		w.w = nil
	}
}

// apply applies p's run-time limits to pid, the sandbox's first process,
// waits for ready, and releases it. root says whether the sandbox runs as
// uid 0, which RLIMIT_NPROC does not bound. A limit that cannot be
// applied is an error when required, and recorded in skipped otherwise;
// after an error (ready's too) the caller kills bwrap and then closes the
// window.
func (w *window) apply(p *plan, pid int, root bool, ready func() error) error {
	l := &p.run
	fail := func(i int, why, hint string) error {
		if l.required[i] {
			return limitError(i, l.value(i), why, hint)
		}
		w.skipped = append(w.skipped, fmt.Sprintf("%s limit %d (rule %s) not enforced: %s", limitNames[i], l.value(i), limitTable[i].rule, why))
		return nil
	}
	group := func(i int, controller, file, file2, value, also string) error {
		if w.bornIn(controller) != nil {
			return nil // bwrap was forked in it, and its child with it
		}
		g, err := cgroup.New(controller, file, file2, value)
		if err == nil {
			w.groups = append(w.groups, g)
			err = g.Add(pid)
		}
		if err != nil {
			return fail(i, also+"no "+controller+" cgroup this process can create beneath its own: "+err.Error(),
				"run as root on a host whose "+controller+" cgroup is writable, or where the caller's cgroup v2 group delegates "+controller)
		}
		return nil
	}
	if n := l.procs; n != 0 {
		// RLIMIT_NPROC, counted in the sandbox's user namespace, binds
		// any uid but 0; setting it on another uid's process takes
		// CAP_SYS_RESOURCE. Otherwise a pids cgroup.
		also := "uid 0 is exempt from RLIMIT_NPROC, and "
		var err error = unix.EPERM
		if !root {
			err = unix.Prlimit(pid, unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}, nil)
			also = "RLIMIT_NPROC: " + fmt.Sprint(err) + ", and "
		}
		if err != nil {
			if err := group(limitProcesses, "pids", "pids.max", "pids.max", strconv.FormatUint(n, 10), also); err != nil {
				return err
			}
		}
	}
	if n := l.memory; n != 0 {
		if err := group(limitMemory, "memory", "memory.limit_in_bytes", "memory.max", strconv.FormatUint(n, 10), ""); err != nil {
			return err
		}
	}
	if n := l.cpuSecs; n != 0 {
		if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
			if err := fail(limitCPUTime, "RLIMIT_CPU: "+err.Error(), ""); err != nil {
				return err
			}
		}
	}
	if ready != nil {
		if err := ready(); err != nil {
			return err
		}
	}
	// A write error means bwrap's child has gone: its setup failed after
	// all, which Wait reports.
	_, _ = w.w.Write([]byte{0})
	w.w.Close()
	w.w = nil
	return nil
}

// finish removes the run's groups once bwrap has exited.
func (w *window) finish() error {
	if w == nil {
		return nil
	}
	w.close()
	var first error
	for _, b := range w.born {
		w.groups = append(w.groups, b.g)
	}
	w.born = nil
	for _, g := range w.groups {
		if err := g.Remove(); err != nil && first == nil {
			first = fmt.Errorf("sandbox: %w", err)
		}
	}
	w.groups = nil
	return first
}

// childPID is the pid in bwrap's child-pid line.
func (s *status) childPIDValue() (int, bool) {
	_, rest, ok := bytes.Cut(s.buf, []byte(`"child-pid"`))
	if !ok {
		return 0, false
	}
	rest = bytes.TrimLeft(rest, " \t:")
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(string(rest[:end]))
	return n, err == nil && n > 0
}

// openWindow prepares this attempt's window, and the host facts' blockFD
// for the argv: fd, the descriptor after the status pipe; and the groups
// bwrap is to be forked in.
func (f *checkedSpawn) openWindow(c *Cmd, fd int) error {
	w, err := openWindow(f.plan)
	f.win = w
	if w != nil {
		f.hf.blockFD = strconv.Itoa(fd)
		w.prepareBorn(f.plan, sandboxRoot(c))
	}
	return err
}

// sandboxRoot reports whether c's sandbox runs as uid 0, which
// RLIMIT_NPROC does not bound.
func sandboxRoot(c *Cmd) bool {
	if a := c.SysProcAttr; a != nil && a.Credential != nil {
		return a.Credential.Uid == 0
	}
	return os.Geteuid() == 0
}

// release applies the run-time limits to the sandbox's first process and
// lets bwrap run the command. If they cannot be, it kills bwrap before
// it closes the window, and the command never runs.
func (f *checkedSpawn) release(c *Cmd) error {
	if f.win == nil {
		return nil
	}
	root := sandboxRoot(c)
	pid, ok := f.st.childPIDValue()
	if !ok || !childOf(pid, c.Process.Pid) {
		// bwrap's child has gone (its setup failed), or bwrap names a
		// process that is not its own: touch nothing. A bwrap whose
		// setup failed exits at once, and Wait reports what it said;
		// one still there after a while is killed before the window
		// closes, since it would read the end of file as a release.
		if !exitsWithin(c.Process.Pid, 2*time.Second) {
			_ = c.Process.Kill()
		}
		f.win.close()
		return nil
	}
	var err error
	pidfd := -1
	if ok {
		// A handle on the blocked child first: if the limits fail, it is
		// what must die, and bwrap's death alone does not wake it.
		pidfd, _ = unix.PidfdOpen(pid, 0)
		err = f.win.apply(f.plan, pid, root, f.readyToRun)
	}
	if pidfd >= 0 {
		if err != nil {
			_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
		}
		unix.Close(pidfd)
	}
	if err == nil {
		return nil
	}
	_ = c.Process.Kill()
	_ = c.Cmd.Wait()
	f.stopNet() // the thread that forked it, and the helper's listeners
	_ = f.win.finish()
	f.pr.Close()
	f.pr = nil
	return err
}

// exitsWithin reports whether the child pid exits within d, without
// reaping it: exec.Cmd's Wait does that.
func exitsWithin(pid int, d time.Duration) bool {
	done := make(chan bool, 1)
	go func() {
		var info unix.Siginfo
		done <- unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == nil
	}()
	select {
	case ok := <-done:
		return ok
	case <-time.After(d):
		return false
	}
}

// childOf reports whether pid's parent is ppid: the sandbox's first
// process is bwrap's child, and nothing else may be moved or limited.
func childOf(pid, ppid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(b[i+1:])
	return len(f) > 1 && string(f[1]) == strconv.Itoa(ppid)
}

// unenforced lists the default limits this spawn could not apply.
func (f *checkedSpawn) unenforced() []string {
	if f == nil || f.win == nil {
		return nil
	}
	return f.win.skipped
}
