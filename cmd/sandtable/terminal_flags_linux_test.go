package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// termFlagsPy leaves what termios does not hold changed: O_NONBLOCK and
// O_APPEND on the open file its stdin shares with the caller (the
// caller's next read of the terminal fails with EAGAIN), and a 1x1
// window, which the caller's editors and pagers draw into until the
// next resize.
const termFlagsPy = `
import fcntl, os, struct, termios
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK | os.O_APPEND)
fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 1, 1, 0, 0))
print("flags set", flush=True)
`

// TestRunRestoresTerminalFlags: after the command sets O_NONBLOCK and
// O_APPEND on its terminal and shrinks the window, sandtable run leaves
// the caller's open file and window as it found them, in both modes, for
// root and an unprivileged caller. The control runs the program on the
// terminal without sandtable: the flags and the size stay.
func TestRunRestoresTerminalFlags(t *testing.T) {
	requireBwrap(t)
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
			for _, flags := range [][]string{nil, {"--interactive"}} {
				args := append(append([]string{"run"}, flags...), "--", python, "-c", termFlagsPy)
				cmd := exec.Command(prog, args...)
				cmd.Dir, cmd.Env = e.ws, e.environ()
				got := onTerminal(t, u, cmd, 0)
				if !strings.Contains(got.out, "flags set") {
					t.Fatalf("%q: the command did not run: %q", args, got.out)
				}
				if got.nonblock || got.append || got.winsize != (unix.Winsize{}) {
					t.Errorf("after sandtable %q: O_NONBLOCK %v, O_APPEND %v, window %+v; want neither flag and the window unset", args, got.nonblock, got.append, got.winsize)
				}
			}
			t.Run("control", func(t *testing.T) {
				got := onTerminal(t, u, exec.Command(python, "-c", termFlagsPy), 0)
				if !strings.Contains(got.out, "flags set") || !got.nonblock || !got.append || got.winsize.Row != 1 {
					t.Errorf("without sandtable the attack left O_NONBLOCK %v, O_APPEND %v, window %+v (output %q); want both flags and a 1x1 window", got.nonblock, got.append, got.winsize, got.out)
				}
			})
		})
	}
}
