package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// TestSuspendWrapHelper is the ^Z attack on Command's argv (the wrap
// helper): the helper runs a command that keeps reading the terminal it
// was given, in a session of its own, and the terminal's ^Z stops the
// helper. Then a line is typed: the sandbox must not read it while the
// helper is stopped (rule stop-with-caller), and once the helper is
// continued the command resumes, reads the line and prints after it. As
// root and unprivileged. The control stops the helper with SIGSTOP, which
// it cannot catch (the helper stopped alone, as a ^Z's default action
// stops it in a shell's job): the sandbox reads the line meanwhile. (Here
// the helper leads a session of its own, an orphaned process group, where
// the kernel discards a ^Z's default stop: without the handling the
// helper would not stop at all, so the control cannot be the ^Z itself.)
func TestSuspendWrapHelper(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			for _, control := range []bool{false, true} {
				name := "fixed"
				if control {
					name = "control"
				}
				t.Run(name, func(t *testing.T) {
					ws := wrapHelperWorkspace(t, base, u)
					suspendHelperAttack(t, u, ws, control)
				})
			}
		})
	}
}

func suspendHelperAttack(t *testing.T, u *escUser, ws string, control bool) {
	ptmx, pts := openPTY(t)
	if u.cred != nil {
		os.Chown(pts.Name(), u.uid, u.gid)
	}
	cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: NetworkOff}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Command(ctx, cfg, "sh", "-c", "echo started; cat > stolen; echo ended")
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != wrapHelperExe {
		t.Fatalf("Command's argv is not the wrap helper's: %q", c.Args)
	}
	c.Stdin, c.Stdout, c.Stderr = pts, pts, pts
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Credential: u.cred}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	defer func() {
		c.Process.Kill() // bwrap dies with the helper, the sandbox with bwrap
		<-done
	}()
	term := testkit.CaptureFrom(ptmx)
	output := term.String
	stolen := filepath.Join(ws, "stolen")
	read := func() string { b, _ := os.ReadFile(stolen); return string(b) }
	waitFor := func(what string, ok func() bool) bool {
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ok() {
				return true
			}
		}
		t.Fatalf("%s: not within 15s; terminal %q, the sandbox read %q", what, output(), read())
		return false
	}
	waitFor("the command starts", func() bool { return strings.Contains(output(), "started") })
	time.Sleep(200 * time.Millisecond) // cat is reading
	if control {
		c.Process.Signal(syscall.SIGSTOP)
	} else {
		ptmx.Write([]byte("\x1a"))
	}
	waitFor("the helper stops", func() bool { return procState(c.Process.Pid) == 'T' })
	ptmx.Write([]byte("hunter2\n"))
	if control {
		waitFor("control: the sandbox reads the line while the helper is stopped", func() bool { return read() != "" })
		t.Logf("control: with the helper stopped by SIGSTOP the sandbox read %q", read())
		return
	}
	time.Sleep(time.Second)
	if s := read(); s != "" {
		t.Fatalf("while the helper was stopped the sandbox read %q", s)
	}
	c.Process.Signal(syscall.SIGCONT)
	waitFor("the command resumes and reads the line", func() bool { return read() == "hunter2\n" })
	ptmx.Write([]byte("\x04"))
	waitFor("the command prints after cat", func() bool { return strings.Contains(output(), "ended") })
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the helper did not exit after the command")
	}
	if code := c.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the helper exited %d, want 0; terminal %q", code, output())
	}
}

// procState is the state letter of pid in /proc, 0 when it is gone.
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) == 0 {
		return 0
	}
	return f[0][0]
}
