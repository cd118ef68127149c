package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunExitStatus(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	e.write(t, filepath.Join(e.ws, "noexec"), "#!/bin/sh\n", 0o644)
	if err := os.Mkdir(filepath.Join(e.ws, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(e.home, "bin")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(t, filepath.Join(binDir, "sandtable-noexec-tool"), "#!/bin/sh\n", 0o644)
	empty := t.TempDir()

	for _, c := range []struct {
		name   string
		vars   []string
		args   []string
		code   int
		stderr string
	}{
		{"success", nil, []string{"true"}, 0, ""},
		{"status", nil, []string{"sh", "-c", "exit 3"}, 3, ""},
		{"signal", nil, []string{"sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM), ""},
		{"not found on PATH", nil, []string{"sandtable-no-such-command"}, exitNotFound, "sandtable: sandtable-no-such-command: command not found\n"},
		{"not found by path", nil, []string{"./missing"}, exitNotFound, "sandtable: ./missing: no such file or directory\n"},
		{"not executable", nil, []string{"./noexec"}, exitCannotRun, "sandtable: ./noexec: permission denied\n"},
		{"directory", nil, []string{"./adir"}, exitCannotRun, "sandtable: ./adir: is a directory\n"},
		{"not executable on PATH", []string{"PATH=" + binDir + ":" + os.Getenv("PATH")}, []string{"sandtable-noexec-tool"}, exitCannotRun, "sandtable: sandtable-noexec-tool: permission denied\n"},
		{"no bwrap", []string{"PATH=" + empty}, []string{"/bin/true"}, exitSetup, "sandtable: sandbox: unavailable: bwrap not found on PATH"},
		{"no bwrap, policy from env", []string{"PATH=" + empty, "ASTRID_SANDBOX_POLICY=required"}, []string{"/bin/true"}, exitSetup, "sandtable: sandbox: unavailable: "},
		{"bad policy in env", []string{"ASTRID_SANDBOX_POLICY=sometimes"}, []string{"true"}, exitSetup, `sandtable: sandbox: ASTRID_SANDBOX_POLICY="sometimes": bad policy`},
		{"policy off without bwrap", []string{"PATH=" + empty, "ASTRID_SANDBOX_POLICY=off"}, []string{"/bin/sh", "-c", "exit 5"}, 5, ""},
		{"policy off, not found", []string{"PATH=" + empty}, []string{"--policy", "off", "--", "sandtable-no-such-command"}, exitNotFound, "sandtable: sandtable-no-such-command: command not found\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.vars = c.vars
			args := append([]string{"run"}, c.args...)
			if c.args[0] != "--policy" {
				args = append([]string{"run", "--"}, c.args...)
			}
			r := e.run(t, "", args...)
			if r.code != c.code || !strings.HasPrefix(r.stderr, c.stderr) || (c.stderr == "" && r.stderr != "") {
				t.Errorf("sandtable %q: exit %d, stderr %q; want %d, stderr starting %q", args, r.code, r.stderr, c.code, c.stderr)
			}
			if c.code == exitSetup && !strings.Contains(r.stderr, "ASTRID_SANDBOX_POLICY") {
				t.Errorf("stderr %q has no hint", r.stderr)
			}
		})
	}
}

// TestRunSetupFailure runs the real bwrap on a plan it cannot set up: the
// read path /proc/self/fd resolves to sandtable's own /proc/PID/fd, which
// the sandbox's /proc, that of a new PID namespace, does not have, so bwrap
// fails to create the mount point. That is the sandbox failing here (125)
// with bwrap's own reason and a hint, not the command failing, and the
// command, which would create a file in the workspace, never runs.
func TestRunSetupFailure(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	args := []string{"run", "--read", "/proc/self/fd", "--", "sh", "-c", "touch spawned"}
	r := e.run(t, "", args...)
	if r.code != exitSetup || r.stdout != "" {
		t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want %d and no output", args, r.code, r.stdout, r.stderr, exitSetup)
	}
	// bwrap prints its reason on the stderr it shares with sandtable, and
	// sandtable repeats it in its own line, with the hint.
	report := regexp.MustCompile(`(?m)^sandtable: sandbox: unavailable: .*bwrap: [^;\n]*/proc/[0-9]+/fd[^\n]*$`).FindString(r.stderr)
	if report == "" {
		t.Errorf("stderr %q has no line from sandtable carrying bwrap's message about /proc/PID/fd", r.stderr)
	} else if !strings.Contains(report, "ASTRID_SANDBOX_POLICY") {
		t.Errorf("sandtable's line %q has no hint", report)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "spawned")); err == nil {
		t.Error("the command ran although bwrap could not set up the sandbox")
	}
}

// TestRunSandbox checks what the flags mean inside the sandbox: the
// workspace is the writable working directory, HOME is read-only, stdin
// and stdout pass through, and --hide, --reveal, --write and --workspace
// resolve ~ and relative paths as a shell user expects.
func TestRunSandbox(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	e.write(t, filepath.Join(e.home, ".netrc"), "machine example.com password hunter2\n", 0o600)
	e.write(t, filepath.Join(e.ws, "secret.txt"), "workspace secret\n", 0o600)
	for _, d := range []string{filepath.Join(e.home, "proj"), filepath.Join(e.ws, "sub"), filepath.Join(e.home, "cache")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		stdout      string
	}{
		{"write in workspace", "", []string{"--", "sh", "-c", "echo hi > out.txt && cat out.txt && pwd"}, 0, "hi\n" + e.ws + "\n"},
		{"write in home fails", "", []string{"--", "sh", "-c", `{ echo x > "$HOME/x"; } 2>/dev/null || echo refused`}, 0, "refused\n"},
		{"stdin passes through", "hello\n", []string{"--", "cat"}, 0, "hello\n"},
		{"default hidden file reads empty", "", []string{"--", "sh", "-c", `cat "$HOME/.netrc"; echo end`}, 0, "end\n"},
		{"--reveal ~/x", "", []string{"--reveal", "~/.netrc", "--", "sh", "-c", `cat "$HOME/.netrc"`}, 0, "machine example.com password hunter2\n"},
		{"--hide relative", "", []string{"--hide", "secret.txt", "--", "sh", "-c", "cat secret.txt; echo end"}, 0, "end\n"},
		{"--write ~/x", "", []string{"--write", "~/cache", "--", "sh", "-c", `echo c > "$HOME/cache/c" && cat "$HOME/cache/c"`}, 0, "c\n"},
		{"--workspace relative", "", []string{"--workspace", "sub", "--", "sh", "-c", "pwd; touch ../nope 2>/dev/null || echo refused"}, 0, filepath.Join(e.ws, "sub") + "\nrefused\n"},
		{"--workspace ~/x", "", []string{"--workspace", "~/proj", "--", "pwd"}, 0, filepath.Join(e.home, "proj") + "\n"},
		{"--no-network", "", []string{"--no-network", "--", "sh", "-c", "cat /proc/net/dev | grep -c :"}, 0, "1\n"},
		{"--interactive", "", []string{"--interactive", "--", "true"}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run"}, c.args...)
			r := e.run(t, c.stdin, args...)
			if r.code != c.code || r.stdout != c.stdout {
				t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want %d, %q", args, r.code, r.stdout, r.stderr, c.code, c.stdout)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(e.home, "x")); err == nil {
		t.Error("the sandboxed command wrote to $HOME")
	}
}

// TestRunSignals sends a signal to sandtable while the sandboxed command
// runs, and checks the exit status and that no process is left: every
// process of the sandbox carries a marker in its argv.
func TestRunSignals(t *testing.T) {
	requireBwrap(t)
	for _, c := range []struct {
		name   string
		flags  []string
		script string
		sig    syscall.Signal
		code   int // -1: killed by sig itself
	}{
		{"TERM reaches a trap", nil, `trap "exit 42" TERM; echo ready; while :; do sleep 0.1; done`, syscall.SIGTERM, 42},
		{"INT ends the command", nil, `echo ready; while :; do sleep 0.1; done`, syscall.SIGINT, 128 + int(syscall.SIGINT)},
		{"INT reaches a trap", nil, `trap "exit 7" INT; echo ready; while :; do sleep 0.1; done`, syscall.SIGINT, 7},
		{"TERM reaches a trap, interactive", []string{"--interactive"}, `trap "exit 43" TERM; echo ready; while :; do sleep 0.1; done`, syscall.SIGTERM, 43},
		{"KILL leaves nothing", nil, `echo ready; sleep 60`, syscall.SIGKILL, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			marker := "sandtable-test-marker-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			args := append(append([]string{"run"}, c.flags...), "--", "sh", "-c", c.script, marker)
			cmd := e.command(args...)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ready := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(stdout).ReadString('\n')
				ready <- line
			}()
			select {
			case line := <-ready:
				if line != "ready\n" {
					t.Fatalf("first line %q, want ready; stderr %q", line, stderr.String())
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the sandboxed command did not start in 10s")
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("sandtable did not exit within 10s of %v", c.sig)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case c.code < 0 && !(ws.Signaled() && ws.Signal() == c.sig):
				t.Errorf("sandtable ended with %v, want killed by %v", cmd.ProcessState, c.sig)
			case c.code >= 0 && cmd.ProcessState.ExitCode() != c.code:
				t.Errorf("sandtable exit %d, want %d; stderr %q", cmd.ProcessState.ExitCode(), c.code, stderr.String())
			}
			if left := waitGone(marker, 15*time.Second); len(left) > 0 { // a liveness bound; usually milliseconds
				t.Errorf("processes left running after %v: %v", c.sig, left)
			}
		})
	}
}

// waitGone polls /proc until no process has marker in its argv, and
// returns the command lines of those still there at the deadline.
func waitGone(marker string, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		left := withMarker(marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func withMarker(marker string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var found []string
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && bytes.Contains(b, []byte(marker)) {
			found = append(found, filepath.Base(d)+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// TestRunNotInSandbox runs a script that exists and is executable on the
// host, but in /tmp, which the sandbox replaces by a private tmpfs, and in
// a hidden directory: inside, there is nothing at that path, so the status
// is "not found" (127), not "cannot execute" (126). The control runs the
// same script from the workspace.
func TestRunNotInSandbox(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	tmp, err := os.MkdirTemp("/tmp", "sandtable-hostonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	hidden := filepath.Join(e.home, "tools")
	if err := os.Mkdir(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	const script = "#!/bin/sh\nexit 0\n"
	for _, c := range []struct {
		name string
		path string
		args []string
	}{
		{"private /tmp", filepath.Join(tmp, "tool.sh"), nil},
		{"hidden directory", filepath.Join(hidden, "tool.sh"), []string{"--hide", hidden}},
	} {
		e.write(t, c.path, script, 0o755)
		args := append(append([]string{"run"}, c.args...), "--", c.path)
		r := e.run(t, "", args...)
		// Decided before the spawn, as for any missing command.
		if want := "sandtable: " + c.path + ": no such file or directory\n"; r.code != exitNotFound || r.stderr != want {
			t.Errorf("%s: sandtable %q: exit %d, stderr %q; want %d, %q", c.name, args, r.code, r.stderr, exitNotFound, want)
		}
	}
	e.write(t, filepath.Join(e.ws, "tool.sh"), script, 0o755)
	if r := e.run(t, "", "run", "--", "./tool.sh"); r.code != 0 {
		t.Errorf("control: the script in the workspace: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRunNotInSandboxThroughLinks: a link in the workspace to a link in a
// hidden directory that leads back to a real program is as missing inside
// as the hidden link itself.
func TestRunNotInSandboxThroughLinks(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	hidden := filepath.Join(e.home, "hid")
	if err := os.Mkdir(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/true", filepath.Join(hidden, "inner")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(hidden, "inner"), filepath.Join(e.ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	if r := e.run(t, "", "run", "--hide", hidden, "--", "./lnk"); r.code != exitNotFound {
		t.Errorf("exit %d, stderr %q; want %d", r.code, r.stderr, exitNotFound)
	}
	if r := e.run(t, "", "run", "--", "./lnk"); r.code != 0 {
		t.Errorf("control, nothing hidden: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRunStdinFile: a file redirected in as stdin reaches the command
// through a pipe, not as a descriptor it could reopen read-write through
// /proc/self/fd/0; its content still arrives. The control, under policy
// off, shows the write through the descriptor.
func TestRunStdinFile(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	victim := e.write(t, filepath.Join(filepath.Dir(e.ws), "victim.txt"), "original\n", 0o644)
	run := func(policy string) string {
		f, err := os.Open(victim)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := e.command("run", "--policy", policy, "--", "sh", "-c", "cat; echo pwned >> /proc/self/fd/0")
		cmd.Stdin = f
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := run("required"); !strings.Contains(out, "original") {
		t.Errorf("the file's content did not reach the command: %q", out)
	}
	if b, _ := os.ReadFile(victim); string(b) != "original\n" {
		t.Errorf("the sandboxed command wrote the stdin file: %q", b)
	}
	run("off")
	if b, _ := os.ReadFile(victim); !strings.Contains(string(b), "pwned") {
		t.Errorf("control: the unsandboxed command did not write through its stdin: %q", b)
	}
}

// TestRunOutputDirectory: a directory given as stdout would open the tree
// under it, hidden paths included, through /proc/self/fd/1. It is not
// passed on; a file given as stdout still gets the output, through a pipe.
// The control, under policy off, reads the hidden file through it.
func TestRunOutputDirectory(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	e.write(t, filepath.Join(e.home, ".netrc"), "machine x password SECRET\n", 0o600)
	run := func(policy string, stdout *os.File) string {
		cmd := e.command("run", "--policy", policy, "--", "sh", "-c", "exec 3>&1 1>&2; cat /proc/self/fd/3/.netrc; echo out >&3")
		cmd.Stdout = stdout
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		return stderr.String()
	}
	dir, err := os.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if out := run("required", dir); strings.Contains(out, "SECRET") {
		t.Errorf("the hidden file was read through stdout: %q", out)
	}
	if out := run("off", dir); !strings.Contains(out, "SECRET") {
		t.Errorf("control: %q", out)
	}
	file, err := os.Create(filepath.Join(e.ws, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	run("required", file)
	if b, _ := os.ReadFile(file.Name()); string(b) != "out\n" {
		t.Errorf("stdout file got %q, want the output", b)
	}
}

// TestRunReadOnlyHint: a command that fails writing outside the workspace
// gets its own error and then the --write that would grant the path (and
// the mkdir it needs); following the hint works. Control: a failure that
// names no read-only path gets no hint, nor does a success.
func TestRunReadOnlyHint(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	dir := filepath.Join(e.home, "newdir")
	r := e.run(t, "", "run", "--", "sh", "-c", `mkdir "$HOME/newdir"`)
	want := "sandtable: hint: " + dir + " is read-only in the sandbox"
	grant := "run again with --write " + dir + " (create it first: touch " + dir + " for a file, mkdir -p " + dir + " for a directory)"
	i, j := strings.Index(r.stderr, "Read-only file system"), strings.Index(r.stderr, want)
	if r.code == 0 || i < 0 || j < i || !strings.Contains(r.stderr, grant) {
		t.Fatalf("exit %d, stderr:\n%s\nwant the command's error, then %q ... %q", r.code, r.stderr, want, grant)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := e.run(t, "", "run", "--write", dir, "--", "sh", "-c", `echo ok > "$HOME/newdir/f"`); r.code != 0 || strings.Contains(r.stderr, "hint") {
		t.Errorf("following the hint: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, script := range []string{`echo "no path here: Read-only file system" >&2; exit 3`, `echo "/etc/x: Read-only file system" >&2; exit 0`} {
		if r := e.run(t, "", "run", "--", "sh", "-c", script); strings.Contains(r.stderr, "hint") {
			t.Errorf("%s: a hint without a failure on a path: %q", script, r.stderr)
		}
	}
}

// TestRunHiddenHint: a command that fails reading a file the sandbox hides
// (a key under ~/.ssh, "No such file or directory") gets its own error and
// then the row that hides it and the --reveal that shows it; following
// the hint shows the file. Control: a path missing on the host too gets no
// hint.
func TestRunHiddenHint(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	key := filepath.Join(e.home, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	e.write(t, key, "KEY\n", 0o600)
	r := e.run(t, "", "run", "--", "cat", key)
	want := "sandtable: hint: " + key + " is hidden in the sandbox by rule hide-ssh (rules/common.yaml:"
	reveal := "run again with --reveal " + filepath.Dir(key)
	i, j := strings.Index(r.stderr, "No such file or directory"), strings.Index(r.stderr, want)
	if r.code == 0 || i < 0 || j < i || !strings.Contains(r.stderr, reveal) {
		t.Fatalf("exit %d, stderr:\n%s\nwant the command's error, then %q ... %q", r.code, r.stderr, want, reveal)
	}
	if r := e.run(t, "", "run", "--reveal", filepath.Dir(key), "--", "cat", key); r.code != 0 || r.stdout != "KEY\n" {
		t.Errorf("following the hint: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	missing := filepath.Join(e.home, "no-such-file")
	if r := e.run(t, "", "run", "--", "cat", missing); r.code == 0 || strings.Contains(r.stderr, "hint") {
		t.Errorf("control, %s missing on the host: exit %d, stderr %q; want no hint", missing, r.code, r.stderr)
	}
}

// TestRunHintNoEscapes: CMD's stderr names a read-only path with terminal
// escapes in it (clear the screen, a colour, an 8-bit CSI, a byte that is
// not UTF-8); the hint, sandtable's own words, does not repeat it, as root
// and as the unprivileged user. Control: the same line with a plain path
// gets its hint.
func TestRunHintNoEscapes(t *testing.T) {
	requireBwrap(t)
	for _, u := range callers(t) {
		t.Run(u.label, func(t *testing.T) {
			e := newEnv(t)
			sandtable := u.own(t, e)
			run := func(path string) string {
				t.Helper()
				cmd := exec.Command(sandtable, "run", "--", "sh", "-c", `printf '%s: Read-only file system\n' "$P" >&2; exit 1`)
				cmd.Dir, cmd.Env = e.ws, append(e.environ(), "P="+path)
				cmd.SysProcAttr = u.attr()
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				cmd.Run()
				var hints []string
				for _, l := range strings.Split(stderr.String(), "\n") {
					if strings.HasPrefix(l, "sandtable: hint:") {
						hints = append(hints, l)
					}
				}
				return strings.Join(hints, "\n")
			}
			for _, p := range []string{"/var/tmp/x\x1b[2J\x1b[31mY", "/var/tmp/\u009b2J", "/var/tmp/x\x9b2J", "/var/tmp/x\x07"} {
				if h := run(p); h != "" {
					t.Errorf("%q: the hint repeats it: %q", p, h)
				}
			}
			if h := run("/var/tmp/plain-name"); !strings.Contains(h, "/var/tmp/plain-name is read-only") {
				t.Errorf("control, a plain path: hint %q, want one", h)
			}
		})
	}
}

// TestRunHintNoDotGrant: CMD's stderr claims ~/.bashrc and
// ~/.ssh/authorized_keys are read-only; the hint, which an agent host may
// follow, suggests no --write for them (a shell startup file, an ssh key
// runs outside the sandbox later), as root and as the unprivileged user.
// Control: a plain directory in the home gets its --write.
func TestRunHintNoDotGrant(t *testing.T) {
	requireBwrap(t)
	for _, u := range callers(t) {
		t.Run(u.label, func(t *testing.T) {
			e := newEnv(t)
			sandtable := u.own(t, e)
			e.write(t, filepath.Join(e.home, ".bashrc"), "", 0o644)
			if !u.self {
				os.Chown(filepath.Join(e.home, ".bashrc"), int(u.uid), int(u.gid))
			}
			run := func(path string) string {
				t.Helper()
				cmd := exec.Command(sandtable, "run", "--", "sh", "-c", `printf '%s: Read-only file system\n' "$P" >&2; exit 1`)
				cmd.Dir, cmd.Env = e.ws, append(e.environ(), "P="+path)
				cmd.SysProcAttr = u.attr()
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				cmd.Run()
				return stderr.String()
			}
			for _, p := range []string{filepath.Join(e.home, ".bashrc"), filepath.Join(e.home, ".ssh/authorized_keys")} {
				if h := run(p); strings.Contains(h, "--write") && !strings.Contains(h, "no --write") || !strings.Contains(h, "hint") {
					t.Errorf("%s: want a hint without a --write, got %q", p, h)
				}
			}
			if h := run(filepath.Join(e.home, "data/out.txt")); !strings.Contains(h, "--write "+filepath.Join(e.home, "data")) {
				t.Errorf("control, a plain directory: hint %q, want its --write", h)
			}
		})
	}
}
