package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// termAttackPy leaves the terminal on its stdout broken: echo and line
// editing off, and (refused by the sandbox's seccomp filter) the N_NULL
// line discipline and exclusive mode. Then, as argv[1] says, it exits,
// kills itself with SIGKILL, or prints "ready" and waits to be killed.
const termAttackPy = `
import fcntl, os, signal, struct, sys, termios, time
a = termios.tcgetattr(1)
a[3] &= ~(termios.ECHO | termios.ICANON)
termios.tcsetattr(1, termios.TCSANOW, a)
print("echo off", flush=True)
for req, arg in ((0x5423, struct.pack("i", 27)), (0x540c, b"")):
    try:
        fcntl.ioctl(1, req, arg)
    except OSError:
        pass
if sys.argv[1] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
if sys.argv[1] == "wait":
    print("ready", flush=True)
    time.sleep(60)
`

// TestRunRestoresTerminal: a command that turns its terminal's echo off
// (which tcsetattr allows, and full-screen programs do) and exits, is
// killed, or is stopped by a signal sandtable receives, leaves the
// caller's terminal as it found it, in both modes, for root and an
// unprivileged caller. The control runs the same program on the terminal
// without sandtable: echo stays off.
func TestRunRestoresTerminal(t *testing.T) {
	requireBwrap(t)
	// The system's, which every user can run (not a per-user shim).
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s is needed to attack the terminal: %v", python, err)
	}
	for _, u := range termUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			e := newEnv(t)
			root := filepath.Dir(e.ws)
			prog := filepath.Join(root, "sandtable")
			copyFile(t, bin, prog)
			for _, p := range []string{root, e.home, e.ws, prog} {
				os.Chmod(p, 0o755)
				if u.cred != nil {
					os.Chown(p, int(u.cred.Uid), int(u.cred.Gid))
				}
			}
			for _, c := range []struct {
				name  string
				flags []string
				how   string
				sig   syscall.Signal // sent to sandtable once the command is ready
			}{
				{"exits", nil, "exit", 0},
				{"exits, interactive", []string{"--interactive"}, "exit", 0},
				{"killed", nil, "kill", 0},
				{"killed, interactive", []string{"--interactive"}, "kill", 0},
				{"SIGTERM to sandtable", nil, "wait", syscall.SIGTERM},
				{"SIGHUP to sandtable", nil, "wait", syscall.SIGHUP},
			} {
				t.Run(c.name, func(t *testing.T) {
					args := append(append([]string{"run"}, c.flags...), "--", python, "-c", termAttackPy, c.how)
					cmd := exec.Command(prog, args...)
					cmd.Dir, cmd.Env = e.ws, e.environ()
					got := onTerminal(t, u, cmd, c.sig)
					if !strings.Contains(got.out, "echo off") {
						t.Fatalf("the command did not run: %q", got.out)
					}
					if want := (termState{echo: true, icanon: true}); got.termState != want {
						t.Errorf("after sandtable %q the terminal is %+v, want %+v; output %q", args, got.termState, want, got.out)
					}
				})
			}
			t.Run("control", func(t *testing.T) {
				cmd := exec.Command(python, "-c", termAttackPy, "exit")
				got := onTerminal(t, u, cmd, 0)
				if !strings.Contains(got.out, "echo off") || got.echo || got.icanon || got.ldisc != 27 || !got.excl {
					t.Errorf("without sandtable the attack left %+v (output %q), want echo and icanon off, N_NULL, exclusive", got.termState, got.out)
				}
			})
		})
	}
}

type termState struct {
	echo, icanon, excl bool
	ldisc              int
	nonblock, append   bool         // the shared open file's status flags
	winsize            unix.Winsize // a fresh terminal's is all zero
}

type termResult struct {
	termState
	out string
}

// onTerminal runs cmd as u with a fresh pseudo-terminal as its stdio and
// controlling terminal, sends it sig (if not 0) once it prints "ready",
// and returns what it printed and the terminal's state after it exited.
func onTerminal(t *testing.T, u termUser, cmd *exec.Cmd, sig syscall.Signal) termResult {
	t.Helper()
	master, slave := openPty(t)
	defer master.Close()
	defer slave.Close()
	if u.cred != nil {
		os.Chown(slave.Name(), int(u.cred.Uid), int(u.cred.Gid))
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Credential: u.cred}
	out := make(chan string, 1)
	var buf strings.Builder
	ready := make(chan struct{})
	go func() {
		b := make([]byte, 4096)
		signalled := false
		for {
			n, err := master.Read(b)
			buf.Write(b[:n])
			if !signalled && strings.Contains(buf.String(), "ready") {
				close(ready)
				signalled = true
			}
			if err != nil {
				out <- buf.String()
				return
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if sig != 0 {
		select {
		case <-ready:
			cmd.Process.Signal(sig)
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the command did not get ready in 20s")
		}
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the command did not exit in 20s")
	}
	// The status flags before slave.Fd(), which clears O_NONBLOCK.
	var flags int
	if rc, err := slave.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { flags, _ = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	}
	// The line discipline first: under N_NULL even the settings cannot
	// be read, until it is put back.
	// Each is retried on EINTR (as sandtable's restore is): TIOCSETD
	// fails with it whenever a signal, the runtime's own included, is
	// pending once output has drained.
	fd := int(slave.Fd())
	var ldisc, excl int
	err1 := retryEINTR(func() (err error) { ldisc, err = unix.IoctlGetInt(fd, unix.TIOCGETD); return err })
	err2 := retryEINTR(func() (err error) { excl, err = unix.IoctlGetInt(fd, unix.TIOCGEXCL); return err })
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if err := retryEINTR(func() error { return unix.IoctlSetPointerInt(fd, unix.TIOCSETD, 0) }); err != nil {
		t.Fatal(err)
	}
	tio, err := getTermios(fd)
	if err != nil {
		t.Fatal(err)
	}
	st := termState{echo: tio.Lflag&unix.ECHO != 0, icanon: tio.Lflag&unix.ICANON != 0, ldisc: ldisc, excl: excl != 0}
	st.nonblock, st.append = flags&unix.O_NONBLOCK != 0, flags&unix.O_APPEND != 0
	if ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ); err == nil {
		st.winsize = *ws
	}
	slave.Close()
	select {
	case s := <-out:
		return termResult{st, s}
	case <-time.After(2 * time.Second):
		return termResult{st, ""}
	}
}

// openPty opens a pseudo-terminal pair; the slave starts in the kernel's
// default settings (echo and line editing on).
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := retryEINTR(func() error { return unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0) }); err != nil {
		t.Fatal(err)
	}
	var n int
	err = retryEINTR(func() (err error) { n, err = unix.IoctlGetInt(fd, unix.TIOCGPTN); return err })
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

type termUser struct {
	label string
	cred  *syscall.Credential
}

// termUsers is the caller, and when that is root also the unprivileged
// sandtable-test (callers).
func termUsers(t *testing.T) []termUser {
	if os.Geteuid() != 0 {
		return []termUser{{label: "caller"}}
	}
	var users []termUser
	for _, c := range callers(t) {
		u := termUser{label: c.label}
		if a := c.attr(); a != nil {
			u.cred = a.Credential
		}
		users = append(users, u)
	}
	return users
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
