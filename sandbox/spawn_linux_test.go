package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeBwrap writes an executable "bwrap" script into a fresh directory,
// puts that directory alone first on PATH, and returns a function that
// counts how many times the script has run. Each call makes a new path, so
// the process-wide knowledge about "this bwrap" starts empty.
func fakeBwrap(t *testing.T, base, body string) (count func() int) {
	t.Helper()
	bin, err := os.MkdirTemp(base, "bin-")
	if err != nil {
		t.Fatal(err)
	}
	counter := filepath.Join(bin, "count")
	script := "#!/bin/sh\necho x >> '" + counter + "'\n" + body
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		b, _ := os.ReadFile(counter)
		return bytes.Count(b, []byte("x"))
	}
}

func TestNewCmdStatusPassthrough(t *testing.T) {
	requireBwrap(t)
	_, ws := spawnEnv(t)
	cfg := Config{Workspace: ws}

	if err := newCmd(t, cfg, "true").Run(); err != nil {
		t.Errorf("true: %v", err)
	}
	for script, want := range map[string]int{"exit 7": 7, "exit 1": 1, "kill -9 $$": 137} {
		err := newCmd(t, cfg, "sh", "-c", script).Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != want || errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v, want exit status %d", script, err, want)
		}
	}

	out, err := newCmd(t, cfg, "sh", "-c", "pwd; echo oops >&2; exit 3").Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || string(out) != ws+"\n" || string(ee.Stderr) != "oops\n" {
		t.Errorf("Output: %q, %v (stderr %q)", out, err, ee)
	}
	out, err = newCmd(t, cfg, "sh", "-c", "echo out; echo err >&2").CombinedOutput()
	if err != nil || string(out) != "out\nerr\n" {
		t.Errorf("CombinedOutput: %q, %v", out, err)
	}

	var stderr bytes.Buffer
	c := newCmd(t, cfg, "sh", "-c", "read x; echo got $x >&2")
	c.Stdin, c.Stderr = strings.NewReader("line\n"), &stderr
	if err := c.Run(); err != nil || stderr.String() != "got line\n" {
		t.Errorf("stdin and stderr writer: %q, %v", stderr.String(), err)
	}

	c = newCmd(t, cfg, "echo", "piped")
	pipe, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(pipe)
	if err := c.Wait(); err != nil || string(got) != "piped\n" {
		t.Errorf("StdoutPipe: %q, %v", got, err)
	}
	if err := c.Wait(); err == nil {
		t.Error("a second Wait succeeded")
	}
	if err := c.Start(); err == nil {
		t.Error("a second Start succeeded")
	}
}

// TestNewCmdCannotRun checks the two exec failures in both modes: with a
// Stderr that is not a file (bwrap's message is read from the copy), and
// with an *os.File (the message goes straight there, and a re-run explains
// it).
func TestNewCmdCannotRun(t *testing.T) {
	requireBwrap(t)
	base, ws := spawnEnv(t)
	writeFile(t, ws, "notexec", "#!/bin/sh\n")
	cfg := Config{Workspace: ws}
	for _, tc := range []struct {
		name string
		want error
	}{
		{"sandtable-no-such-command", exec.ErrNotFound},
		{"./missing", exec.ErrNotFound},
		{"./notexec", fs.ErrPermission},
		{ws, fs.ErrPermission}, // a directory
	} {
		c := newCmd(t, cfg, tc.name)
		var buf bytes.Buffer
		c.Stderr = &buf
		err := c.Run()
		if !errors.Is(err, tc.want) || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "execvp") {
			t.Errorf("%s (copied stderr): %v, want %v", tc.name, err, tc.want)
		}
		if !strings.Contains(buf.String(), "bwrap: execvp") {
			t.Errorf("%s: bwrap's message did not reach Stderr: %q", tc.name, buf.String())
		}

		f, err := os.Create(filepath.Join(base, "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		c = newCmd(t, cfg, tc.name)
		c.Stderr = f
		err = c.Run()
		f.Close()
		if !errors.Is(err, tc.want) || errors.Is(err, ErrUnavailable) {
			t.Errorf("%s (file stderr): %v, want %v", tc.name, err, tc.want)
		}
		if b, _ := os.ReadFile(f.Name()); !bytes.Contains(b, []byte("bwrap: execvp")) {
			t.Errorf("%s: bwrap's message did not reach the file: %q", tc.name, b)
		}
	}
}

// TestNewCmdSetupFailsOnRealBwrap makes a real bwrap fail between creating
// the namespaces and executing the command: a hidden directory becomes a
// file after the facts were gathered, so --tmpfs cannot mount on it.
func TestNewCmdSetupFailsOnRealBwrap(t *testing.T) {
	requireBwrap(t)
	base, ws := spawnEnv(t)
	for _, direct := range []bool{false, true} {
		hidden := mkdir(t, base, "secret")
		c := newCmd(t, Config{Workspace: ws, Hidden: []string{hidden}}, "true")
		if err := os.Remove(hidden); err != nil {
			t.Fatal(err)
		}
		writeFile(t, base, "secret", "now a file")
		var buf bytes.Buffer
		c.Stderr = &buf
		if direct {
			f, err := os.Create(filepath.Join(base, "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c.Stderr = f
		}
		err := c.Run()
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), hidden) || !strings.Contains(err.Error(), PolicyVariable+"=off") {
			t.Errorf("direct=%v: %v, want ErrUnavailable naming %s", direct, err, hidden)
		}
		os.Remove(hidden)
	}
}

// TestNewCmdSetupFails stands in a bwrap that fails like one on a kernel
// without unprivileged user namespaces, before and after creating the
// sandbox's first process, and checks that its words reach the error.
func TestNewCmdSetupFails(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"before-clone", "echo 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"},
		{"after-clone", `while [ "$1" != --json-status-fd ]; do shift; done; fd=$2; eval "echo '{ \"child-pid\": 1 }' >&$fd"` + "\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realTempDir(t)
			t.Setenv("HOME", mkdir(t, dir, "home"))
			ws := mkdir(t, dir, "ws")
			count := fakeBwrap(t, dir, tc.body)
			c, err := NewCmd(t.Context(), Config{Workspace: ws}, "true")
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			c.Stderr = &stderr
			err = c.Run()
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("got %v, want ErrUnavailable", err)
			}
			for _, want := range []string{"cannot create a sandbox", "bwrap: setting up uid map: Permission denied", PolicyVariable + "=off"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%v\nlacks %q", err, want)
				}
			}
			if n := count(); n != 1 {
				t.Errorf("%d executions, want 1", n)
			}
			// A folded failure is not cached as the host's verdict: it
			// may be this config's, so Command still probes.
			if _, err := Command(t.Context(), Config{Workspace: ws}, "true"); !errors.Is(err, ErrUnavailable) || count() != 2 {
				t.Errorf("Command after: %v, %d executions", err, count())
			}
		})
	}
}

// TestNewCmdOldBwrap stands in a bwrap older than 0.8.0, which rejects
// --disable-userns before doing anything: the first spawn is retried
// without it (two executions, the rejection hidden from Stderr), every later
// one costs one. With a Stdin that a failed attempt would drain, the first
// spawn asks `--version` first instead.
func TestNewCmdOldBwrap(t *testing.T) {
	real := realBwrap(t)
	old := `for a in "$@"; do
  case "$a" in
    --disable-userns) echo "bwrap: Unknown option --disable-userns" >&2; exit 1;;
    --) break;;
  esac
done
exec '` + real + `' "$@"
`
	base, ws := spawnEnv(t)
	count := fakeBwrap(t, base, old)
	var stderr bytes.Buffer
	c := newCmd(t, Config{Workspace: ws}, "sh", "-c", "echo ran >&2")
	c.Stderr = &stderr
	if err := c.Run(); err != nil || stderr.String() != "ran\n" || count() != 2 {
		t.Fatalf("first spawn: %v, stderr %q, %d executions", err, stderr.String(), count())
	}
	if err := newCmd(t, Config{Workspace: ws}, "true").Run(); err != nil || count() != 3 {
		t.Errorf("second spawn: %v, %d executions", err, count())
	}
	if w, err := PrefixFor("linux", Config{Workspace: ws}); err != nil || strings.Contains(strings.Join(w.Args, " "), "--disable-userns") {
		t.Errorf("PrefixFor after learning: %v, %q", err, w.Args)
	}

	count = fakeBwrap(t, base, old) // a new path: nothing known about it
	c = newCmd(t, Config{Workspace: ws}, "cat")
	c.Stdin = strings.NewReader("all of it\n")
	out, err := c.Output()
	if err != nil || string(out) != "all of it\n" || count() != 2 {
		t.Errorf("reader stdin: %q, %v, %d executions (want --version, then the spawn)", out, err, count())
	}
}

// TestNewCmdOneExecution counts bwrap executions with a wrapper on PATH:
// NewCmd's first spawn is one, and proves the host, so a Command after it
// skips the probe. Command first costs two.
func TestNewCmdOneExecution(t *testing.T) {
	real := realBwrap(t)
	base, ws := spawnEnv(t)
	cfg := Config{Workspace: ws}

	count := fakeBwrap(t, base, "exec '"+real+"' \"$@\"\n")
	if err := newCmd(t, cfg, "true").Run(); err != nil || count() != 1 {
		t.Fatalf("NewCmd's first spawn: %v, %d executions, want 1", err, count())
	}
	cmd, err := Command(t.Context(), cfg, "true")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil || count() != 2 {
		t.Errorf("Command after NewCmd: %v, %d executions, want 2 in all", err, count())
	}

	count = fakeBwrap(t, base, "exec '"+real+"' \"$@\"\n")
	cmd, err = Command(t.Context(), cfg, "true")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil || count() != 2 {
		t.Errorf("Command first: %v, %d executions, want 2 (probe and command)", err, count())
	}
}

// TestNewCmdContext: a cancelled spawn is the context's error, not a
// verdict on the sandbox. The context is cancelled once the command runs:
// a fixed 300 ms could end, on a loaded machine, while bwrap was still
// setting up, where killing it leaves its child waiting for it forever.
func TestNewCmdContext(t *testing.T) {
	requireBwrap(t)
	_, ws := spawnEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := NewCmd(ctx, Config{Workspace: ws}, "sh", "-c", "echo running; exec sleep 30")
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// A liveness bound: a loaded machine may take seconds to start it.
	for i := 0; i < 1500 && !strings.Contains(out.String(), "running"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	cancel()
	err = c.Wait()
	if err == nil || errors.Is(err, ErrUnavailable) || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled: %v after %v (output %q)", err, time.Since(start), out.String())
	}
}

// TestNewCmdWithoutBwrap keeps Command's contract: Required refuses with the
// install hint before anything runs; Off needs no bwrap.
func TestNewCmdWithoutBwrap(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	t.Setenv("PATH", mkdir(t, dir, "emptybin"))
	c, err := NewCmd(t.Context(), Config{Workspace: ws}, "true")
	if c != nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bwrap not found") {
		t.Errorf("Required without bwrap: %v, %v", c, err)
	}
	if c, err := NewCmd(t.Context(), Config{Workspace: ws, Policy: Off}, "/bin/sh", "-c", "exit 0"); err != nil || c.Run() != nil {
		t.Errorf("Off without bwrap: %v", err)
	}
}

// TestNewCmdStatusFDRule records the argv NewCmd starts bwrap with: the
// status-fd rule's --json-status-fd comes last before "--", numbered after
// every ExtraFiles entry (the caller's too), and only for that spawn.
func TestNewCmdStatusFDRule(t *testing.T) {
	real := realBwrap(t)
	base, ws := spawnEnv(t)
	argv := filepath.Join(base, "argv")
	fakeBwrap(t, base, `printf '%s\n' "$@" > '`+argv+`'`+"\nexec '"+real+"' \"$@\"\n")
	c := newCmd(t, Config{Workspace: ws}, "true")
	extra, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	c.ExtraFiles = append(c.ExtraFiles, extra)
	want := strconv.Itoa(3 + len(c.ExtraFiles))
	before := slices.Clone(c.Args)
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(argv)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	// The block-fd rule's pipe, for the default processes limit, comes
	// after the status pipe; it is checked, then set aside.
	if i := slices.Index(got, "--block-fd"); i < 0 || got[i+1] != strconv.Itoa(4+len(c.ExtraFiles)) {
		t.Errorf("bwrap ran with\n%q\nwant --block-fd %d", got, 4+len(c.ExtraFiles))
	} else {
		got = slices.Delete(got, i, i+2)
	}
	end := slices.Index(got, "--")
	if end < 2 || !slices.Equal(got[end-2:end], []string{"--json-status-fd", want}) || slices.Index(got, "--json-status-fd") != end-2 {
		t.Errorf("bwrap ran with\n%q\nwant --json-status-fd %s once, right before --", got, want)
	}
	if !slices.Equal(c.Args, before) || slices.Contains(c.Args, "--json-status-fd") {
		t.Errorf("Args after Start: %q, want them as NewCmd built them, %q", c.Args, before)
	}
	if !slices.Equal(slices.Concat(got[:end-2], got[end:]), before[1:]) {
		t.Errorf("bwrap ran with\n%q\nwhich is not NewCmd's argv\n%q\nwith the status descriptor added", got, before[1:])
	}
}

// TestRenewKeepsPointer retries a spawn as an old bwrap's rejected option
// does: the exec.Cmd a caller took from Cmd before Start is the one that
// runs, so its Process and ProcessState are the retry's.
func TestRenewKeepsPointer(t *testing.T) {
	c := &Cmd{Cmd: exec.Command("/bin/sh", "-c", "exit 3"), ctx: context.Background()}
	held := c.Cmd
	if err := c.Cmd.Run(); err == nil {
		t.Fatal("exit 3 succeeded")
	}
	c.renew([]string{"/bin/sh", "-c", "exit 0"})
	if c.Cmd != held {
		t.Fatal("renew replaced the embedded exec.Cmd")
	}
	if err := c.Cmd.Run(); err != nil {
		t.Fatalf("the renewed command: %v", err)
	}
	if held.ProcessState == nil || !held.ProcessState.Success() {
		t.Errorf("the caller's pointer does not see the retry: %v", held.ProcessState)
	}
}
