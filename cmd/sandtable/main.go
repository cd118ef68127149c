// Command sandtable runs a command inside the OS sandbox that the rule table
// under rules/ describes (bwrap on Linux, sandbox-exec on macOS), and shows
// what that sandbox is: the exact command line, the rule behind each part of
// it, and whether it works on this machine.
//
// Exit statuses follow env(1) and timeout(1), so a script can tell a failing
// command from a failing sandbox: see exit.go.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sandtable/sandtable/sandbox"
)

// command is one subcommand. run gets the arguments after its name and
// returns the process's exit status.
type command struct {
	name    string
	summary string
	run     func(args []string) int
}

var commands = []command{
	{"run", "run a command in the sandbox and exit with its status", cmdRun},
	{"explain", "print the sandbox command line (or macOS profile) run would use", cmdExplain},
	{"probe", "say whether the sandbox works here, and the fix if it does not", cmdProbe},
	{"why", "say what the sandbox decides about a path, host or variable, and which row", cmdWhy},
	{"rules", "print the rule table: id, condition and why", cmdRules},
	{"version", "print the version and commit this binary was built from", cmdVersion},
}

func main() {
	hugeHeap()
	// sandbox.Exit: a run's watch closes after the exit, not before it.
	sandbox.Exit(dispatch(os.Args[1:]))
}

func dispatch(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return exitUsage
	}
	// The wrap helper of a line explain printed for network mode proxy:
	// the package's init serves only Command's and Prefix's re-execs.
	if status, ok := sandbox.RunNetworkHelper(args); ok {
		return status
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(os.Stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:])
		}
	}
	fmt.Fprintf(os.Stderr, "sandtable: unknown command %q\n\n", args[0])
	usage(os.Stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: sandtable <command> [flags] [-- CMD [ARGS...]]

sandtable runs CMD in an OS sandbox (bwrap on Linux, sandbox-exec on macOS)
where it can write only to the workspace and cannot read the hidden paths.

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
example:
  sandtable run -- make test

Run 'sandtable <command> --help' for its flags and an example.
`)
}
