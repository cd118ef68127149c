//go:build linux

package sandbox

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The fixtures of the Command and NewCmd stdio attempts
// (escape_stdio_command_test.go): the unguarded stdin pipe, and the runner
// through NewCmd.

// unguardedStdin gives each run a fresh stdin pipe and no GuardStdio.
func unguardedStdin(e *escEnv) {
	e.vars["MARKER"] = filepath.Join(e.out, "run-by-host-bash")
	stdioPipes(e, 0)
	pipe := e.wrap
	e.wrap = func(cmd *exec.Cmd, m escMode) { pipe(cmd, escMode{kind: modeNone}) } // no GuardStdio
}

// runStdioNewCmd runs the sandbox mode's command through NewCmd (the same
// command line, environment, credentials and stdin pipe, on NewCmd's own
// Start), then plays the host bash that reads the rest of its script from
// the pipe, as runStdioHarness does; the other modes are runStdioHarness.
func runStdioNewCmd(e *escEnv, cmd *exec.Cmd) *escResult {
	if e.mode.kind != modeSandbox {
		return runStdioHarness(e, cmd)
	}
	v, _ := stdioRuns.LoadAndDelete(cmd)
	run := v.(*stdioRun)
	argv := cmd.Args
	if len(argv) > 1 && argv[1] == wrapHelperArg { // bwrap's argv follows the helper's "--"
		argv = argv[slices.Index(argv, "--")+1:]
	}
	end := slices.Index(argv, "--")
	c, err := NewCmd(e.t.Context(), e.cfg, argv[end+1], argv[end+2:]...)
	if err != nil {
		e.t.Fatalf("NewCmd: %v", err)
	}
	var buf bytes.Buffer
	c.Env, c.SysProcAttr, c.Stdin = cmd.Env, cmd.SysProcAttr, run.child
	c.Stdout, c.Stderr = &buf, &buf
	err = c.Run()
	hostBashRest(e, run, &buf)
	return &escResult{out: buf.String(), err: err, ran: strings.Contains(buf.String(), escRan)}
}
