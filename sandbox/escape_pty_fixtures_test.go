//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/sandtable/sandtable/internal/testkit"
	"golang.org/x/sys/unix"
)

// The fixtures of the terminal attempts (escape_attempts_test.go's TIOCSTI
// and termios rows, escape_ttyflow_test.go, TestEscapeInteractiveJobControl):
// the programs, the pseudo-terminal and the runners that drive it.

// tiocstiPy pushes $INJECT and a newline into its stdin's terminal, one
// character at a time, as CVE-2017-5226 does.
const tiocstiPy = `
import fcntl, os, termios
for c in os.environ["INJECT"].encode() + b"\n":
    fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))
print("injected")
`

func setupTIOCSTI(e *escEnv) {
	e.secret = escToken("injected")
	e.vars["INJECT"] = e.secret
	e.vars["TIOCSTI_PY"] = tiocstiPy
}

// openPty opens a pseudo-terminal pair with the syscall package alone:
// posix_openpt is open("/dev/ptmx"), then unlock and ask for the number.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	rc, err := m.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n uint32
	var ioErr error
	rc.Control(func(fd uintptr) {
		var unlock int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
			ioErr = e
			return
		}
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
			ioErr = e
		}
	})
	if ioErr != nil {
		m.Close()
		t.Fatalf("ptmx: %v", ioErr)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, s
}

// ptyReader collects everything the master side receives.
type ptyReader struct{ *testkit.Capture }

func readPty(master *os.File) *ptyReader { return &ptyReader{testkit.CaptureFrom(master)} }

// has waits up to d for s to appear in the output after offset from.
func (r *ptyReader) has(from int, s string, d time.Duration) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		out := r.String()
		if strings.Contains(out[min(from, len(out)):], s) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// expect waits for s to appear in the output after offset from, and
// returns the offset just past it.
func (r *ptyReader) expect(t *testing.T, from int, s string, d time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		out := r.String()
		if i := strings.Index(out[min(from, len(out)):], s); i >= 0 {
			return from + i + len(s)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the terminal after %v:\n%s", s, d, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pendingInput returns what sits in the terminal's input queue: what the
// caller's shell would read, and run, next.
func pendingInput(slave *os.File) string {
	fd := int(slave.Fd())
	syscall.SetNonblock(fd, true)
	var out []byte
	b := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, b)
		if n <= 0 || err != nil {
			return string(out)
		}
		out = append(out, b[:n]...)
	}
}

// ptyCommand makes the pty's slave the command's stdio and controlling
// terminal: bwrap starts as the leader of a session whose terminal is the
// caller's, as under a login shell.
func ptyCommand(cmd *exec.Cmd, slave *os.File) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
}

// termPy attacks its stdout's terminal: "setd" sets the N_NULL line
// discipline (27), "excl" exclusive mode. Neither needs the terminal to be
// the caller's controlling one.
const termPy = `
import fcntl, struct, sys
req = {"setd": (0x5423, struct.pack("i", 27)), "excl": (0x540c, b"")}[sys.argv[1]]
try:
    fcntl.ioctl(1, req[0], req[1])
    print("ioctl done", file=sys.stderr)
except OSError as e:
    print("ioctl refused:", e, file=sys.stderr)
`

func setupTermAttack(e *escEnv) { e.vars["TERM_PY"] = termPy }

// runPtyState is runPty, and adds to the output the terminal's line
// discipline ("[ldisc] 0" is N_TTY) and exclusive mode as the caller finds
// them once the run is over.
func runPtyState(e *escEnv, cmd *exec.Cmd) *escResult {
	return runPtyThen(e, cmd, func(slave *os.File) string {
		ldisc, err1 := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCGETD)
		excl, err2 := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCGEXCL)
		if err1 != nil || err2 != nil {
			e.t.Fatalf("the terminal's state: %v, %v", err1, err2)
		}
		return fmt.Sprintf("\n[ldisc] %d\n[exclusive] %d\n", ldisc, excl)
	})
}

// runPty runs the command on a fresh terminal and reports what reached its
// master side (echoed input included) and what was left in its input queue.
func runPty(e *escEnv, cmd *exec.Cmd) *escResult { return runPtyThen(e, cmd, nil) }

// runPtyThen is runPty, adding what state reports of the terminal once
// the command has exited.
func runPtyThen(e *escEnv, cmd *exec.Cmd, state func(slave *os.File) string) *escResult {
	master, slave := openPty(e.t)
	defer master.Close()
	if e.u.cred != nil {
		os.Chown(slave.Name(), e.u.uid, e.u.gid)
	}
	ptyCommand(cmd, slave)
	out := readPty(master)
	err := cmd.Run()
	time.Sleep(20 * time.Millisecond)
	after := ""
	if state != nil {
		after = state(slave)
	}
	pending := pendingInput(slave)
	slave.Close()
	select {
	case <-out.Done: // at once, unless the machine is loaded
	case <-time.After(10 * time.Second):
	}
	s := out.String()
	return &escResult{out: s + "\n[input queue] " + pending + after, err: err, ran: strings.Contains(s, escRan)}
}
