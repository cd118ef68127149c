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
// GuardStdio. In network mode proxy, the default, the argv starts with the
// wrap helper, which copies its own stdin into bwrap by the stdio rows: the
// attack is blocked, and the control turns the helper's copy off (its
// stdio=as-is word). In modes host and off the argv is bwrap's own and
// nothing runs before the command: the pipe reaches it as it is
// (documented; stdin-write-back is the same attack with GuardStdio).
func init() {
	escAttempts = append(escAttempts,
		&attempt{
			name: "stdin-write-back-unguarded",
			what: "write a command into the caller's stdin pipe through Command in network mode proxy, whose caller did not call GuardStdio (the wrap helper copies it)",
			setup: func(e *escEnv) {
				e.cfg.Network = Network{Mode: NetworkProxy}
				unguardedStdin(e)
				pipe := e.wrap
				e.wrap = func(cmd *exec.Cmd, m escMode) {
					pipe(cmd, m)
					if m.kind == modeSandbox && m.note != "" {
						// The control: the wrap helper passes its stdin as it is.
						if len(cmd.Args) < 2 || cmd.Args[1] != netWrapArg {
							e.t.Fatalf("no wrap helper in %q", cmd.Args)
						}
						cmd.Args = slices.Insert(cmd.Args, 2, netWrapStdioAsIs)
					}
				}
			},
			script:  `printf 'touch %s\n' "$MARKER" > /proc/self/fd/0`,
			run:     runStdioHarness,
			escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["MARKER"]) },
			control: func(e *escEnv) escMode {
				return escMode{kind: modeSandbox, note: "the wrap helper's " + netWrapStdioAsIs}
			},
		},
		&attempt{
			name:       "stdin-write-back-unguarded-host",
			what:       "write a command into the caller's stdin pipe through Command in network mode host, whose caller did not call GuardStdio",
			documented: "in modes host and off Command's argv is bwrap's own, which nothing runs before the command: the caller calls GuardStdio (NewCmd's Start does it itself)",
			setup:      unguardedStdin,
			script:     `printf 'touch %s\n' "$MARKER" > /proc/self/fd/0`,
			run:        runStdioHarness,
			escaped:    func(e *escEnv, r *escResult) bool { return exists(e.vars["MARKER"]) },
		},
	)
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
		control: func(e *escEnv) escMode { return realArgvCtl("stdin passed as it is") },
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
	end := slices.Index(cmd.Args, "--")
	c, err := NewCmd(e.t.Context(), e.cfg, cmd.Args[end+1], cmd.Args[end+2:]...)
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
