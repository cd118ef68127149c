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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fixtures of the placeholder attempt (escape_placeholder_test.go):
// the racer program and the runner that starts the two runs.

// placeholderRacer says READY, then tries to create .mcp.json until it
// does or the host says it is over ($OUT/done).
const placeholderRacer = `"$PY" -c '
import os, time
end, n = time.time() + 8, 0
print("READY", flush=True)
while time.time() < end:
    n += 1
    if n % 512 == 0 and os.path.exists(os.environ["OUT"] + "/done"):
        break
    try:
        fd = os.open(os.environ["WS"] + "/.mcp.json", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except OSError:
        continue
    os.write(fd, os.environ["PAYLOAD"].encode())
    os.close(fd)
    print("WROTE .mcp.json", flush=True)
    break
'`

// placeholderRace starts a first run through NewCmd, which makes the
// placeholders, then the racer (through NewCmd for the sandbox run, as
// cmd otherwise), ends the first run once the racer said READY, and lets
// the racer go on until the first run's Wait, which removes what it may,
// is 300 ms past (the control's, until it wrote).
func (e *escEnv) placeholderRace(cmd *exec.Cmd) *escResult {
	e.t.Helper()
	mcp := filepath.Join(e.ws, ".mcp.json")
	os.Remove(mcp)
	for _, f := range []string{"done", "end-first"} {
		os.Remove(filepath.Join(e.out, f))
	}
	ctx, cancel := context.WithTimeout(e.t.Context(), 20*time.Second)
	defer cancel()
	first, err := NewCmd(ctx, e.cfg, "bash", "-c", `echo READY; for i in $(seq 200); do [ -e "$OUT/end-first" ] && exit 0; sleep 0.05; done`)
	if err != nil {
		e.t.Fatal(err)
	}
	first.Env, first.SysProcAttr = cmd.Env, cmd.SysProcAttr
	firstOut, err := first.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		e.t.Fatalf("the first run: %v", err)
	}
	if line, _ := bufio.NewReader(firstOut).ReadString('\n'); line != "READY\n" {
		e.t.Fatalf("the first run said %q", line)
	}
	if fi, err := os.Lstat(mcp); err != nil || fi.Size() != 0 {
		e.t.Fatalf("the first run made no placeholder at %s: %v", mcp, err)
	}

	start, wait := cmd.Start, cmd.Wait
	r, w := io.Pipe()
	if e.mode.kind == modeSandbox {
		c, err := NewCmd(ctx, e.cfg, "bash", "-c", cmd.Args[len(cmd.Args)-1])
		if err != nil {
			e.t.Fatal(err)
		}
		c.Env, c.SysProcAttr = cmd.Env, cmd.SysProcAttr
		c.Stdout, c.Stderr = w, w
		start, wait = c.Start, c.Wait
	} else {
		// Without its protect= words the wrap helper takes no lock and
		// removes nothing: the plain exec.Cmd of before.
		cmd.Args = slices.DeleteFunc(cmd.Args, func(a string) bool { return strings.HasPrefix(a, wrapHelperProtect) })
		cmd.Stdout, cmd.Stderr = w, w
	}
	if err := start(); err != nil {
		first.Process.Kill()
		first.Wait()
		return &escResult{out: err.Error(), err: err}
	}
	var racerErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		racerErr = wait()
		w.Close()
	}()
	var out bytes.Buffer
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if sc.Text() == "READY" {
			e.file(filepath.Join(e.out, "end-first"), "", 0o644)
			if err := first.Wait(); err != nil {
				out.WriteString("first run: " + err.Error() + "\n")
			}
			// The control's racer goes on until it wrote (or its own
			// 8s), however long a loaded machine keeps it waiting;
			// the sandbox run's has 300 ms more.
			if e.mode.kind == modeSandbox {
				time.Sleep(300 * time.Millisecond)
				e.file(filepath.Join(e.out, "done"), "", 0o644)
			}
		}
	}
	wg.Wait()
	if racerErr != nil {
		out.WriteString("wait: " + racerErr.Error() + "\n")
	}
	if e.mode.kind == modeSandbox {
		// The first run left its placeholders, recorded; the racer, last
		// out, removes them.
		left := false
		for _, name := range []string{".mcp.json", ".claude", ".vscode"} {
			if _, err := os.Lstat(filepath.Join(e.ws, name)); err == nil {
				e.t.Errorf("%s is left in the workspace after both runs", name)
				left = true
			}
		}
		if left {
			e.t.Logf("who holds a lock now:\n%s", lockHolders(e.t))
			if dirs := journalDirs(""); len(dirs) > 0 {
				names, _ := filepath.Glob(filepath.Join(dirs[0], "*"))
				e.t.Logf("journal %s: %d names", dirs[0], len(names))
			}
		}
	}
	s := out.String()
	return &escResult{out: s, err: racerErr, ran: strings.Contains(s, escRan)}
}

// lockHolders lists /proc/locks with each holder's command line, for a
// failure's message.
func lockHolders(t *testing.T) string {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return err.Error()
	}
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		argv := ""
		if len(f) > 4 {
			c, _ := os.ReadFile("/proc/" + f[4] + "/cmdline")
			argv = strings.ReplaceAll(string(c), "\x00", " ")
			if len(argv) > 120 {
				argv = argv[:120]
			}
		}
		out.WriteString(l + "  " + argv + "\n")
	}
	return out.String()
}
