package sandbox

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// atSecure is AT_SECURE of <linux/auxvec.h>: non-zero when the kernel ran
// this execution with rights its caller did not have.
const atSecure = 23

// errSecureExec refuses a helper (the wrap helper, the network helper) in
// a secure execution: a set-user-ID or set-group-ID program, or one with
// file capabilities, that imports this package would otherwise run what
// its executor's argv or environment names with the rights the program
// gave (TestWrapHelperRefusesSecureExec, TestNetnsHelperRefusesSecureExec).
var errSecureExec = errors.New("this execution has rights its executor lacks (set-user-ID, set-group-ID or file capabilities): no helper runs in it")

// secureExec reports whether this execution is secure (AT_SECURE), where a
// helper's argv and environment were chosen by a less privileged user.
// Without the auxiliary vector it compares the real and effective ids.
func secureExec() bool {
	if auxv, err := unix.Auxv(); err == nil {
		for _, kv := range auxv {
			if kv[0] == atSecure {
				return kv[1] != 0
			}
		}
	}
	return os.Getuid() != os.Geteuid() || os.Getgid() != os.Getegid()
}
