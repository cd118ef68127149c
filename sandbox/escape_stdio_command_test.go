//go:build linux

package sandbox

import (
	"os/exec"
	"path/filepath"
)

// A Command whose caller sets a pipe as Stdin and does not call
// GuardStdio. In every network mode the argv starts with the wrap helper,
// which copies its own stdin into bwrap by the stdio rows: the attack is
// blocked, and the control turns the helper's copy off (its stdio=as-is
// word), which passes the caller's pipe as it is (stdin-write-back is the
// same attack with GuardStdio).
var stdinCommandAttempts = func() (as []*attempt) {
	for _, mode := range []NetworkMode{NetworkProxy, NetworkHost, NetworkOff} {
		name := "stdin-write-back-unguarded"
		if mode != NetworkProxy {
			name += "-" + mode.String()
		}
		as = append(as, &attempt{
			name: name,
			what: "write a command into the caller's stdin pipe through Command in network mode " + mode.String() + ", whose caller did not call GuardStdio (the wrap helper copies it)",
			setup: func(e *escEnv) {
				e.cfg.Network = Network{Mode: mode}
				unguardedStdin(e)
			},
			script:  `printf 'touch %s\n' "$MARKER" > /proc/self/fd/0`,
			run:     runStdioHarness,
			escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["MARKER"]) },
			control: func(e *escEnv) escMode { return helperCtl([]string{wrapHelperStdioAsIs}, nil) },
		})
	}
	return as
}()

// stdin-write-back-newcmd is the attack on NewCmd's path: the caller sets
// its pipe as Stdin and calls nothing else; Start copies it. The control
// passes the same pipe as it is (the real argv, no copy).
var stdinNewCmdAttempts = []*attempt{{
	name: "stdin-write-back-newcmd",
	what: "write a command into the caller's stdin pipe through NewCmd, whose Start copies it (the caller calls nothing else)",
	setup: func(e *escEnv) {
		e.vars["MARKER"] = filepath.Join(e.out, "run-by-host-bash")
		stdioPipes(e, 0)
		pipe := e.wrap
		e.wrap = func(cmd *exec.Cmd, m escMode) { pipe(cmd, escMode{kind: modeNone}) }
	},
	script:  `printf 'touch %s\n' "$MARKER" > /proc/self/fd/0`,
	run:     runStdioNewCmd,
	escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["MARKER"]) },
	control: func(e *escEnv) escMode { return asIsCtl("stdin passed as it is") },
},
}
