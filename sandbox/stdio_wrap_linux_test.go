package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWrapStdioCommand: the wrap helper's copy of a caller's pipes keeps
// what a pipe does. The input reaches the command whole and its end closes
// at the caller's EOF (cat ends), a command that exits does not wait for
// the caller's input to end, output reaches the caller's pipe, and the
// status is the command's.
func TestWrapStdioCommand(t *testing.T) {
	requireBwrap(t)
	_, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Policy: Required, Network: Network{Mode: NetworkProxy}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pipe := func() (*os.File, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r, w
	}
	run := func(script string, stdin *os.File) (string, error) {
		t.Helper()
		c, err := Command(ctx, cfg, "bash", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		if c.Path != wrapHelperExe {
			t.Fatalf("Command's program is %s, want the wrap helper %s", c.Path, wrapHelperExe)
		}
		or, ow := pipe()
		c.Stdin, c.Stdout, c.Stderr = stdin, ow, ow
		err = c.Run()
		ow.Close()
		b := make([]byte, 4096)
		n, _ := or.Read(b)
		return string(b[:n]), err
	}

	t.Run("eof", func(t *testing.T) {
		r, w := pipe()
		w.WriteString("line one\nline two\n")
		w.Close()
		out, err := run(`cat; echo "stdin: $(readlink /proc/self/fd/0)"`, r)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !strings.HasPrefix(out, "line one\nline two\n") {
			t.Errorf("output %q, want the input whole", out)
		}
		fi, err := r.Stat()
		if err != nil {
			t.Fatal(err)
		}
		callers := fmt.Sprintf("pipe:[%d]", fi.Sys().(*syscall.Stat_t).Ino)
		inner := strings.TrimSpace(strings.TrimPrefix(out, "line one\nline two\nstdin: "))
		if !strings.HasPrefix(inner, "pipe:[") || inner == callers {
			t.Errorf("the command's stdin is %s, want a pipe other than the caller's %s", inner, callers)
		}
	})

	t.Run("exit-before-eof", func(t *testing.T) {
		r, _ := pipe() // the write end stays open: the caller never ends it
		done := make(chan struct{})
		var out string
		var err error
		go func() { out, err = run("exit 3", r); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("Command waited for the caller's input after the command exited")
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("exit: %v (%s), want status 3", err, out)
		}
	})
}
