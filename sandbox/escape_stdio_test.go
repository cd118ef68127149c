//go:build linux

package sandbox

import (
	"path/filepath"
)

// The stdio attempts: a caller's pipe reopened through /proc/self/fd. In
// the sandbox the command runs as a caller of Command is told to run it,
// with GuardStdio after its streams are set; the control passes the same
// pipe as it is (the real argv, every rule in, no GuardStdio, and the wrap
// helper's stdio=as-is).
var stdioAttempts = []*attempt{
	&attempt{
		name: "stdin-write-back",
		what: "write a command into the caller's stdin pipe, which a host bash reads its script from",
		setup: func(e *escEnv) {
			e.vars["MARKER"] = filepath.Join(e.out, "run-by-host-bash")
			stdioPipes(e, 0)
		},
		script:  `printf 'touch %s\n' "$MARKER" > /proc/self/fd/0`,
		run:     runStdioHarness,
		escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["MARKER"]) },
		control: func(e *escEnv) escMode { return asIsCtl("stdin passed as it is") },
	},
	&attempt{
		name: "stdout-read-back",
		what: "reopen the caller's stdout pipe for reading and take what another host writer put in it",
		setup: func(e *escEnv) {
			e.secret = escToken("stdout-pipe")
			stdioPipes(e, 1)
		},
		// The marker goes to stderr as well: the read may take part of
		// its stdout copy back out of the sandbox's own pipe before
		// that pipe's copier does.
		script:  "echo " + escRan + " >&2; " + `read -t 2 -r line < /proc/self/fd/1; echo "took: $line" >&2`,
		run:     runStdioHarness,
		control: func(e *escEnv) escMode { return asIsCtl("stdout passed as it is") },
	},
}
