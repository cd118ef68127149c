package sandbox

import (
	"os"
	"strconv"
)

// wrapHelperArg marks the wrap helper, as os.Args[1].
const wrapHelperArg = "-sandtable-network-proxy-helper"

// wrapHelperConns carries the proxy's bound on connections at once, "none"
// for no bound; without it the helper takes the table's default.
const wrapHelperConns = "connections="

// wrapHelperExe is the program of a wrapped argv: the executable of the process
// that runs it. It is also the helper's argv[0], which the helper requires.
const wrapHelperExe = "/proc/self/exe"

// wrapHelperEnv, in a wrapped argv's environment, is the pid of the process that
// built it, which must be the helper's parent; the helper removes it.
const wrapHelperEnv = "SANDTABLE_WRAP_PARENT"

// wrapHelperParent is the wrapHelperEnv entry for a wrapped argv built here.
func wrapHelperParent() string { return wrapHelperEnv + "=" + strconv.Itoa(os.Getpid()) }

// The wrap helper's mode words, before its "--". Without one the mode is
// proxy, whose lists follow (NetworkHelperArgv's line has none).
const (
	wrapHelperHost  = "network=host"   // mode host: no proxy, no namespace helper
	wrapHelperOff   = "network=off"    // mode off: likewise
	wrapHelperScope = "scope=abstract" // mode host: bwrap starts in Landlock's abstract-unix-socket scope
)

// wrapHelperArgs is the wrapped argv after the program: the marker, the mode's
// words (in mode proxy the proxy's lists), "--", and bwrap's own argv from
// its path on.
func wrapHelperArgs(n Network, mode NetworkMode, scope bool, bwrap string, bwrapArgs []string) []string {
	args := make([]string, 0, 4+len(n.Allow)+len(n.Private)+len(bwrapArgs))
	args = append(args, wrapHelperArg)
	switch mode {
	case NetworkHost:
		args = append(args, wrapHelperHost)
		if scope {
			args = append(args, wrapHelperScope)
		}
	case NetworkOff:
		args = append(args, wrapHelperOff)
	default:
		for _, a := range n.Allow {
			args = append(args, "allow="+a)
		}
		for _, p := range n.Private {
			args = append(args, "private="+p)
		}
		switch {
		case n.conns > 0:
			args = append(args, wrapHelperConns+strconv.Itoa(n.conns))
		case n.conns < 0:
			args = append(args, wrapHelperConns+"none")
		}
	}
	args = append(args, "--", bwrap)
	return append(args, bwrapArgs...)
}

// NetworkHelperArgv is the words to put before bwrap's path to run a Linux
// argv built in network mode proxy ([PrefixFor]'s) through program as the
// wrap helper, which serves the proxy with n's lists. program must run the
// helper itself when its arguments start with these words
// ([RunNetworkHelper]; the package's init does not): sandtable explain
// names itself.
func NetworkHelperArgv(program string, n Network) []string {
	args := wrapHelperArgs(n, NetworkProxy, false, "", nil)
	return append([]string{program}, args[:len(args)-1]...)
}
