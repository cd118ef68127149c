package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// testClone starts true in a new user namespace and waits for it: the
// diagnosis's test of whether a seccomp filter refuses the clone. It
// returns the start's error unwrapped to its errno, or nil; a machine
// without true reports that as the error.
func testClone() error {
	prog := ""
	for _, p := range []string{"/usr/bin/true", "/bin/true"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			prog = p
			break
		}
	}
	if prog == "" {
		return os.ErrNotExist
	}
	cmd := exec.Command(prog)
	cmd.Dir, cmd.Env = "/", []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	if err := cmd.Start(); err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return errno
		}
		return err
	}
	return cmd.Wait()
}
