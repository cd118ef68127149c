package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunStdinWriteBack: a harness drives one long-lived bash through a
// pipe, a line at a time, as an agent does; one line runs sandtable, whose
// command writes a line into its stdin. Sandboxed, that reaches a pipe of
// the sandbox's own, and the host bash never reads it; the control (policy
// off, the pipe as it is) runs it on the host.
func TestRunStdinWriteBack(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	marker := filepath.Join(filepath.Dir(e.ws), "run-by-host-bash")
	run := func(policy string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash")
		cmd.Dir, cmd.Env = e.ws, e.environ()
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		r, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "%q run --policy %s -- sh -c 'echo touch %s > /proc/self/fd/0'; echo status $?\n", bin, policy, marker)
		var out bytes.Buffer
		buf := make([]byte, 256)
		for !strings.Contains(out.String(), "status") {
			n, err := r.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				t.Fatalf("harness (%s): %v: %s", policy, err, out.String())
			}
		}
		io.WriteString(w, "echo harness-done\n")
		w.Close()
		rest, _ := io.ReadAll(r)
		out.Write(rest)
		if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "harness-done") {
			t.Fatalf("harness (%s): %v: %s", policy, err, out.String())
		}
		return out.String()
	}
	out := run("required")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the host bash ran what the sandboxed command wrote into its stdin:\n%s", out)
	}
	run("off")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("control: the unsandboxed command's write-back did not run: %v", err)
	}
}

// TestRunStdinPipeCopied: through the copy, input arrives whole and its end
// is seen, the command's status is sandtable's, and a command that exits
// without reading does not wait for the caller's pipe to end.
func TestRunStdinPipeCopied(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	in := strings.Repeat("0123456789abcdef\n", 1<<14) // 272 KB, several pipe buffers
	r := e.run(t, in, "run", "--", "sh", "-c", "wc -c; exit 7")
	if r.code != 7 || strings.TrimSpace(r.stdout) != fmt.Sprint(len(in)) {
		t.Errorf("wc -c through the copy: exit %d, stdout %q, want 7 and %d", r.code, r.stdout, len(in))
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--", "true")
	cmd.Dir, cmd.Env, cmd.Stdin = e.ws, e.environ(), pr
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run true with an open stdin pipe: %v: %s", err, out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("run true waited %v for a stdin pipe nobody closed", d)
	}
}

// TestRunInteractivePipes: a long-lived command driven through pipes, one
// line at a time, answers each line before the next is sent.
func TestRunInteractivePipes(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--", "cat")
	cmd.Dir, cmd.Env = e.ws, e.environ()
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	for i := range 3 {
		line := fmt.Sprintf("line %d\n", i)
		io.WriteString(w, line)
		n, err := io.ReadAtLeast(r, buf, len(line))
		if err != nil || string(buf[:n]) != line {
			t.Fatalf("echo of %q: %q, %v", line, buf[:n], err)
		}
	}
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("cat after its input ended: %v", err)
	}
}

// TestRunStdoutReaderGone: when the reader of the caller's stdout pipe
// goes away, the command dies of SIGPIPE as it would writing to it
// directly, and sandtable says so in its status.
func TestRunStdoutReaderGone(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	cmd := exec.Command("bash", "-c", fmt.Sprintf("%q run -- yes | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}", bin))
	cmd.Dir, cmd.Env = e.ws, e.environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "141" {
		t.Errorf("yes | head: status %q, %v, want 141 (128+SIGPIPE); stderr %q", out, err, stderr.String())
	}
}
