//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The fixtures of the stdio attempts (escape_stdio_test.go,
// escape_stdio_command_test.go): the runs each attempt makes, the caller's
// pipes, and the runner that feeds and reads them.

// stdioRun is one run's caller-side pipe: the end the command gets (child)
// and the caller's other end (host).
type stdioRun struct {
	stream      int
	child, host *os.File
}

var stdioRuns sync.Map // *exec.Cmd -> *stdioRun

// stdioPipes gives every run of the attempt a fresh pipe on stream (0 or
// 1), owned by the user as a pipe its own shell made would be, and applies
// GuardStdio in the sandbox mode. On stdout, another writer's secret is
// already in the pipe when the command starts, as in `(producer &
// sandtable run -- cmd) | consumer`.
func stdioPipes(e *escEnv, stream int) {
	e.wrap = func(cmd *exec.Cmd, m escMode) {
		r, w, err := os.Pipe()
		if err != nil {
			e.t.Fatal(err)
		}
		e.t.Cleanup(func() { r.Close(); w.Close() })
		if e.u.cred != nil {
			if err := syscall.Fchown(int(r.Fd()), e.u.uid, e.u.gid); err != nil {
				e.t.Fatal(err)
			}
		}
		run := &stdioRun{stream: stream}
		if stream == 0 {
			run.child, run.host = r, w
			cmd.Stdin = r
		} else {
			run.child, run.host = w, r
			w.WriteString(e.secret + "\n")
			cmd.Stdout = w
		}
		if m.kind == modeSandbox {
			if err := GuardStdio(cmd); err != nil {
				e.t.Fatal(err)
			}
		}
		stdioRuns.Store(cmd, run)
	}
}

// runStdioHarness runs the command with the run's pipe, then plays the
// caller: on stdin, a host bash that reads the rest of its script from the
// pipe; on stdout, the consumer that reads what reached it.
func runStdioHarness(e *escEnv, cmd *exec.Cmd) *escResult {
	v, _ := stdioRuns.LoadAndDelete(cmd)
	run := v.(*stdioRun)
	var buf bytes.Buffer
	if run.stream == 0 {
		cmd.Stdout = &buf
	}
	cmd.Stderr = &buf
	err := cmd.Run()
	if run.stream == 0 {
		// The harness's bash carries on with its script: whatever is left
		// in the pipe the command had as stdin, once the harness has
		// written everything.
		hostBashRest(e, run, &buf)
	} else {
		run.child.Close()
		run.host.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(run.host)
		buf.WriteString("consumer got: " + strings.ReplaceAll(string(b), e.secret, "[the other writer's line]"))
	}
	return &escResult{out: buf.String(), err: err, ran: strings.Contains(buf.String(), escRan)}
}

// hostBashRest closes the harness's end of run's stdin pipe and runs the
// harness's bash on what is left in it, as the caller's shell would carry
// on with its script, writing what that bash printed to buf.
func hostBashRest(e *escEnv, run *stdioRun, buf *bytes.Buffer) {
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
}
