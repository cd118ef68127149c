//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// A Command whose caller sets a pipe as Stdin and does not call
// GuardStdio. In every network mode the argv starts with the wrap helper,
// which copies its own stdin into bwrap by the stdio rows: the attack is
// blocked, and the control turns the helper's copy off (its stdio=as-is
// word), which passes the caller's pipe as it is (stdin-write-back is the
// same attack with GuardStdio).
func init() {
	for _, mode := range []NetworkMode{NetworkProxy, NetworkHost, NetworkOff} {
		name := "stdin-write-back-unguarded"
		if mode != NetworkProxy {
			name += "-" + mode.String()
		}
		escAttempts = append(escAttempts, &attempt{
			name: name,
			what: "write a command into the caller's stdin pipe through Command in network mode " + mode.String() + ", whose caller did not call GuardStdio (the wrap helper copies it)",
			setup: func(e *escEnv) {
				e.cfg.Network = Network{Mode: mode}
				unguardedStdin(e)
			},
			script:  `printf 'touch %s\n' "$MARKER" > /proc/self/fd/0`,
			run:     runStdioHarness,
			escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["MARKER"]) },
			control: func(e *escEnv) escMode { return helperCtl([]string{netWrapStdioAsIs}, nil) },
		})
	}
}

// unguardedStdin gives each run a fresh stdin pipe and no GuardStdio.
func unguardedStdin(e *escEnv) {
	e.vars["MARKER"] = filepath.Join(e.out, "run-by-host-bash")
	stdioPipes(e, 0)
	pipe := e.wrap
	e.wrap = func(cmd *exec.Cmd, m escMode) { pipe(cmd, escMode{kind: modeNone}) } // no GuardStdio
}

// stdin-write-back-newcmd is the attack on NewCmd's path: the caller sets
// its pipe as Stdin and calls nothing else; Start copies it. The control
// passes the same pipe as it is (the real argv, no copy).
func init() {
	escAttempts = append(escAttempts, &attempt{
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
	})
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
	if len(argv) > 1 && argv[1] == netWrapArg { // bwrap's argv follows the helper's "--"
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
	run.host.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	host := exec.CommandContext(ctx, e.bash)
	host.Stdin = run.child
	host.Dir, host.Env = e.out, []string{"PATH=" + escPath}
	if e.u.cred != nil {
		host.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	out, herr := host.CombinedOutput()
	buf.WriteString("host bash: " + string(out))
	if herr != nil {
		buf.WriteString(" (" + herr.Error() + ")")
	}
	return &escResult{out: buf.String(), err: err, ran: strings.Contains(buf.String(), escRan)}
}
