//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// RunNetworkHelper runs the wrap helper when args, a program's arguments
// after its name, start with the words [NetworkHelperArgv] renders, and
// returns its exit status; ok is false, and nothing ran, otherwise. The
// helper exists on Linux only: here it fails with status 125.
func RunNetworkHelper(args []string) (status int, ok bool) {
	if len(args) == 0 || args[0] != wrapHelperArg {
		return 0, false
	}
	fmt.Fprintf(os.Stderr, "sandbox: wrap helper: none on %s\n", runtime.GOOS)
	return 125, true
}

// wrapCommand leaves Command's exec.Cmd as it is: the wrap helper is Linux's.
func wrapCommand(*exec.Cmd, *plan) error { return nil }

// wrapPrefix leaves Prefix's Wrap as it is.
func wrapPrefix(w Wrap, _ *plan) Wrap { return w }
