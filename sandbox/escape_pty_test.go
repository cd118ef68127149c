//go:build linux

package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestEscapeInteractiveJobControl: with Interactive the child keeps the
// caller's session, so an interactive shell on a terminal gets job control
// (background jobs, fg, ^Z). That is what Interactive buys; the price is
// the TIOCSTI protection (attempt tiocsti-interactive). By default the
// shell has no job control.
func TestEscapeInteractiveJobControl(t *testing.T) {
	requireBwrap(t)
	base := hostDir(t)
	newHome(t, base)
	ws := mkdir(t, base, "ws")
	run := func(t *testing.T, interactive bool, script func(t *testing.T, r *ptyReader, send func(string))) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd, err := Command(ctx, Config{Workspace: ws, Interactive: interactive}, "bash", "--norc", "--noprofile", "-i")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "PS1=sbx$ ", "TERM=dumb")
		master, slave := openPty(t)
		defer master.Close()
		ptyCommand(cmd, slave)
		r := readPty(master)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		send := func(s string) {
			if _, err := master.Write([]byte(s)); err != nil {
				t.Fatalf("write to the terminal: %v", err)
			}
		}
		script(t, r, send)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("the shell did not exit:\n%s", r.String())
		}
	}

	t.Run("interactive", func(t *testing.T) {
		run(t, true, func(t *testing.T, r *ptyReader, send func(string)) {
			at := r.expect(t, 0, "sbx$ ", 10*time.Second)
			send("sleep 30 &\n")
			at = r.expect(t, at, "[1] ", 5*time.Second)
			send("jobs\n")
			at = r.expect(t, at, "Running", 5*time.Second)
			send("fg\n")
			// After fg's echo: "Running ... sleep 30 &" above holds it
			// too. A ^Z before bash has read fg would flush it.
			at = r.expect(t, at, "fg", 5*time.Second)
			at = r.expect(t, at, "sleep 30", 5*time.Second)
			// ^Z: SIGTSTP to the foreground process group. bash echoes
			// the job before it hands it the terminal, and a ^Z before
			// that goes to bash, which ignores it: sent again each
			// second until the job stops, up to 10 times.
			for i := 0; ; i++ {
				send("\x1a")
				if r.has(at, "Stopped", time.Second) {
					break
				}
				if i == 9 {
					t.Fatalf("^Z did not stop the job in 10 tries:\n%s", r.String())
				}
			}
			at = r.expect(t, at, "Stopped", 5*time.Second)
			// jobs once the job is gone (the shell reaped it), not
			// after a fixed sleep: a stopped job left would keep exit
			// from exiting.
			send("kill -9 %1; for i in $(seq 100); do kill -0 %1 2>/dev/null || break; sleep 0.1; done; jobs; exit\n")
			r.expect(t, at, "Killed", 5*time.Second)
			if strings.Contains(r.String(), "no job control") {
				t.Errorf("interactive shell without job control:\n%s", r.String())
			}
		})
	})
	t.Run("default", func(t *testing.T) {
		run(t, false, func(t *testing.T, r *ptyReader, send func(string)) {
			r.expect(t, 0, "no job control", 10*time.Second)
			send("exit\n")
		})
	})
}
