//go:build linux || darwin

package cmdlookup

import "syscall"

// xOK is access(2)'s X_OK, the same on Linux and macOS.
const xOK = 1

// mayExecute asks the kernel whether this process may execute p.
func mayExecute(p string) bool { return syscall.Access(p, xOK) == nil }
