//go:build linux

package sandbox

import (
	"golang.org/x/sys/unix"
)

// The fixtures of the main table's socket-family attempts
// (escape_attempts_test.go's vsock rows): the AF_VSOCK check and the
// i386 socketcall program.

// setupVsock skips where this kernel has no AF_VSOCK: there is nothing to
// refuse, and no control could open one.
func setupVsock(e *escEnv) {
	fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
	if err != nil {
		e.t.Skipf("no AF_VSOCK on this host: %v", err)
	}
	unix.Close(fd)
	e.secret = escToken("vsock")
	e.vars["MARK"] = e.secret
}

// socketcallPy enters the kernel through the i386 ABI, as a 32-bit program
// does, and asks socketcall for an AF_VSOCK socket; it prints $MARK when it
// gets one.
const socketcallPy = i386CallPy + `
ctypes.memmove(page + 2048, struct.pack("<3I", 40, 1, 0), 12)
fd = i386(102, 1, page + 2048, 0)
print(os.environ["MARK"] if fd >= 0 else "refused", fd)
`

func setupVsockSocketcall(e *escEnv) {
	if on, why := i386Entry(e.t, e.py); !on {
		e.t.Skipf("no i386 system call entry here, nothing to hold to the families: %s", why)
	}
	needSeccomp(e)
	setupVsock(e)
	e.vars["SOCKETCALL_PY"] = socketcallPy
}
