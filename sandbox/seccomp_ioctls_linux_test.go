package sandbox

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// seccompIoctlProbe calls ioctl on /dev/null with each request it is given
// and prints the errno: ENOTTY from the kernel (null is no terminal), EPERM
// from the filter.
const seccompIoctlProbe = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
null = open("/dev/null", "rb")
fd = null.fileno()
for req in sys.argv[2:]:
    r = libc.syscall(ctypes.c_long(int(sys.argv[1])), ctypes.c_long(fd), ctypes.c_ulong(int(req)), b"xxxx")
    print("%x" % int(req), ctypes.get_errno() if r < 0 else 0)
`

// TestSeccompIoctlsUnderBwrap: every ioctl request the table refuses,
// including those the kernel itself keeps from a process without
// capabilities (TIOCCONS, TIOCVHANGUP, TIOCSLCKTRMIOS), is refused by the
// filter before the kernel looks at the descriptor, for root and the
// unprivileged user. The control, without the filter, gets the kernel's
// ENOTTY for /dev/null; TCSETS, which the table leaves open, gets ENOTTY
// with the filter too.
func TestSeccompIoctlsUnderBwrap(t *testing.T) {
	bwrap, filter, python := filterProbeSetup(t)
	args := []string{python, "-c", seccompIoctlProbe, fmt.Sprint(unix.SYS_IOCTL), fmt.Sprint(unix.TCSETS)}
	for _, io := range seccompIoctls {
		args = append(args, fmt.Sprint(io.Request))
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			got := probeLines(t, underFilter(t, u, bwrap, filter, true, nil, args))
			control := probeLines(t, underFilter(t, u, bwrap, filter, false, nil, args))
			enotty := int(unix.ENOTTY)
			tcsets := fmt.Sprintf("%x", unix.TCSETS)
			if got[tcsets] != enotty || control[tcsets] != enotty {
				t.Errorf("TCSETS: errno %d with the filter, %d without; want ENOTTY (%d) both", got[tcsets], control[tcsets], enotty)
			}
			for _, io := range seccompIoctls {
				k := fmt.Sprintf("%x", io.Request)
				if got[k] != int(io.Errno) || control[k] != enotty {
					t.Errorf("%s (%s): errno %d with the filter, %d without; want %d and ENOTTY (%d)", io.Name, io.Rule, got[k], control[k], io.Errno, enotty)
				}
			}
		})
	}
}
