package sandbox

import (
	"fmt"
	"os"
)

// A process this package re-executes is caught here, before main: the
// takeovers below are every way an importing program can become one of
// this package's helpers, each with the whole of what must hold before it
// does. The environment or the argv alone never makes one: whoever sets a
// program's environment or its first arguments would otherwise turn any
// program that imports this package into a helper.
var takeovers = [...]struct {
	name  string
	match func(args []string) bool
	run   func(args []string) int
}{
	// The closer holds what Exit handed it until its stdin ends
	// (exit_linux.go; TestCloserNeedsItsArgv).
	{"closer", func(args []string) bool {
		v, ok := os.LookupEnv(closerEnv)
		return ok && v == "1" && len(args) == 1 && args[0] == closerArg0
	}, runCloser},
	// The network helper of mode proxy makes the sandbox's user and
	// network namespace and becomes bwrap (netns_linux.go;
	// TestNetnsHelperNeedsArg0).
	{"network helper", func(args []string) bool {
		_, ok := os.LookupEnv(netnsEnv)
		return ok && len(args) > 0 && args[0] == netnsArg0
	}, func([]string) int { return runNetnsHelper(os.Getenv(netnsEnv)) }},
	// The wrap helper stands in front of bwrap in every mode
	// (wraphelper_linux.go; TestWrapHelperNeedsReexec).
	{"wrap helper", func(args []string) bool {
		return len(args) >= 2 && args[1] == wrapHelperArg && os.Getenv(netnsEnv) == "" && args[0] == wrapHelperExe
	}, called("wrap helper", func(args []string) int { return runWrapHelper(args[2:]) })},
	// The landlock helper starts the reduced backend's command
	// (backend_landlock_linux.go).
	{"landlock helper", func(args []string) bool {
		return len(args) >= 2 && args[1] == landlockHelperArg && args[0] == wrapHelperExe
	}, called("landlock helper", func(args []string) int { return runLandlockHelper(args[2:]) })},
}

func init() {
	for _, t := range takeovers {
		if t.match(os.Args) {
			os.Exit(t.run(os.Args))
		}
	}
}

// called runs a helper only for what a deliberate re-exec by Command or
// Prefix has (wrapHelperCalled); anything else exits 125 saying why.
func called(name string, run func([]string) int) func([]string) int {
	return func(args []string) int {
		if err := wrapHelperCalled(); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: %s: %v\n", name, err)
			return 125
		}
		return run(args)
	}
}
