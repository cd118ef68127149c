package sandbox

import (
	"os"
	"strconv"
)

// netWrapArg marks the wrap helper, as os.Args[1].
const netWrapArg = "-sandtable-network-proxy-helper"

// netWrapConns carries the proxy's bound on connections at once, "none"
// for no bound; without it the helper takes the table's default.
const netWrapConns = "connections="

// netWrapExe is the program of a wrapped argv: the executable of the process
// that runs it. It is also the helper's argv[0], which the helper requires.
const netWrapExe = "/proc/self/exe"

// netWrapEnv, in a wrapped argv's environment, is the pid of the process that
// built it, which must be the helper's parent; the helper removes it.
const netWrapEnv = "SANDTABLE_WRAP_PARENT"

// netWrapParent is the netWrapEnv entry for a wrapped argv built here.
func netWrapParent() string { return netWrapEnv + "=" + strconv.Itoa(os.Getpid()) }

// The wrap helper's mode words, before its "--". Without one the mode is
// proxy, whose lists follow (NetworkHelperArgv's line has none).
const (
	netWrapHost  = "network=host"   // mode host: no proxy, no namespace helper
	netWrapOff   = "network=off"    // mode off: likewise
	netWrapScope = "scope=abstract" // mode host: bwrap starts in Landlock's abstract-unix-socket scope
)

// netWrapArgs is the wrapped argv after the program: the marker, the mode's
// words (in mode proxy the proxy's lists), "--", and bwrap's own argv from
// its path on.
func netWrapArgs(n Network, mode NetworkMode, scope bool, bwrap string, bwrapArgs []string) []string {
	args := make([]string, 0, 4+len(n.Allow)+len(n.Private)+len(bwrapArgs))
	args = append(args, netWrapArg)
	switch mode {
	case NetworkHost:
		args = append(args, netWrapHost)
		if scope {
			args = append(args, netWrapScope)
		}
	case NetworkOff:
		args = append(args, netWrapOff)
	default:
		for _, a := range n.Allow {
			args = append(args, "allow="+a)
		}
		for _, p := range n.Private {
			args = append(args, "private="+p)
		}
		switch {
		case n.conns > 0:
			args = append(args, netWrapConns+strconv.Itoa(n.conns))
		case n.conns < 0:
			args = append(args, netWrapConns+"none")
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
	args := netWrapArgs(n, NetworkProxy, false, "", nil)
	return append([]string{program}, args[:len(args)-1]...)
}
