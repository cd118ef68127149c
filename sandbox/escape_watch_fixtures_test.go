//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The fixtures of the watch attempts (escape_watch_test.go): the snippet
// that reads a hidden file twice, and the runner that changes it between.

// hostSwapScript reads the hidden file, says READY, waits for the host to
// say it replaced it ($OUT/go), and reads it again.
const hostSwapScript = `echo "before:[$(cat "$CRED" 2>&1)]"
echo READY
for i in $(seq 200); do [ -e "$OUT/go" ] && break; sleep 0.05; done
echo "after:[$(cat "$CRED" 2>&1)]"`

// hostSwap runs the snippet (through NewCmd for the sandbox run, as cmd
// otherwise), calls change on the host once it said READY, and then lets
// it read again. A run the watch stopped reports what Wait said.
func (e *escEnv) hostSwap(cmd *exec.Cmd, change func()) *escResult {
	e.t.Helper()
	return e.hostSwapAt(cmd, nil, change)
}

// hostSwapAt is hostSwap that calls before, if not nil, on the host after
// NewCmd planned the sandbox run and before it starts.
func (e *escEnv) hostSwapAt(cmd *exec.Cmd, before, change func()) *escResult {
	e.t.Helper()
	os.Remove(filepath.Join(e.out, "go"))
	var out bytes.Buffer
	start, wait := cmd.Start, cmd.Wait
	r, w := io.Pipe()
	if e.mode.kind == modeSandbox {
		ctx, cancel := context.WithTimeout(e.t.Context(), 20*time.Second)
		defer cancel()
		c, err := NewCmd(ctx, e.cfg, "bash", "-c", cmd.Args[len(cmd.Args)-1])
		if err != nil {
			e.t.Fatal(err)
		}
		c.Env, c.SysProcAttr = cmd.Env, cmd.SysProcAttr
		c.Stdout, c.Stderr = w, w
		start, wait = c.Start, c.Wait
	} else {
		cmd.Stdout, cmd.Stderr = w, w
	}
	if before != nil {
		before()
	}
	if err := start(); err != nil {
		return &escResult{out: err.Error(), err: err}
	}
	var err error
	waited := make(chan struct{})
	go func() {
		err = wait()
		w.Close()
		close(waited)
	}()
	sc := bufio.NewScanner(r)
	changed := time.Time{}
	said := make(chan struct{})
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if sc.Text() == "READY" && changed.IsZero() {
			change()
			changed = time.Now()
			// Time for the watch to act, so the test shows the run
			// stopped rather than a race the snippet lost (README, the
			// race): in the sandbox, until the run ends, bounded as the
			// snippet's own wait is, so a watch that never acts still
			// lets it read; in the control, which nothing stops, a
			// moment. The output is read meanwhile.
			grace := 200 * time.Millisecond
			if e.mode.kind == modeSandbox {
				grace = 10 * time.Second
			}
			go func() {
				defer close(said)
				select {
				case <-waited:
				case <-time.After(grace):
				}
				os.WriteFile(filepath.Join(e.out, "go"), nil, 0o644)
			}()
		}
	}
	<-waited
	if !changed.IsZero() {
		<-said // before the next run removes it
	}
	if err != nil {
		out.WriteString("wait: " + err.Error() + "\n")
	}
	if !changed.IsZero() {
		e.t.Logf("%s: run ended %v after the host's change: %v", e.mode, time.Since(changed).Round(time.Millisecond), err)
	}
	s := out.String()
	return &escResult{out: s, err: err, ran: strings.Contains(s, escRan)}
}
