package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandtable/sandtable/sandbox"
)

// bin is the sandtable binary TestMain builds once: every test runs the
// real command, as a user would, so exit statuses and signals are real.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sandtable-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "sandtable")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build sandtable:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireBwrap skips a test that needs a real bwrap when there is none,
// unless SANDTABLE_REQUIRE_BWRAP=1 (CI), where a missing bwrap must fail
// rather than let the sandbox tests vanish.
func requireBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("bwrap not found on PATH and SANDTABLE_REQUIRE_BWRAP=1: %v", err)
		}
		t.Skipf("bwrap not found on PATH (install bubblewrap, or set SANDTABLE_REQUIRE_BWRAP=1 to fail): %v", err)
	}
}

// env is where a test runs sandtable: an empty HOME, so the default hidden
// set does not depend on the machine's, and a workspace (with a space in
// its name, to exercise quoting) as the current directory. Both are
// resolved, as the sandbox resolves them, and outside /tmp.
type env struct {
	home, ws string
	vars     []string // extra KEY=value, overriding the defaults
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(hostDir(t))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{home: filepath.Join(root, "home"), ws: filepath.Join(root, "work space")}
	for _, d := range []string{e.home, e.ws} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// hostDir is a fresh directory outside /tmp, which is a private tmpfs
// inside the sandbox: a write "refused" under /tmp would prove nothing.
func hostDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "sandtable-cmd-test-")
	if err != nil {
		t.Logf("no directory outside /tmp (%v); using %s", err, os.TempDir())
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// derivedVars are the variables the table's derived hidden rows read
// ($env:NAME and $env-list:NAME), from the rule listing.
func derivedVars() map[string]bool {
	vars := map[string]bool{}
	for _, r := range sandbox.Rules() {
		rest, ok := strings.CutPrefix(r.Emits, "hide $env:")
		if !ok {
			rest, ok = strings.CutPrefix(r.Emits, "hide $env-list:")
		}
		if ok {
			name, _, _ := strings.Cut(rest, "/")
			vars[name] = true
		}
	}
	return vars
}

func (e *env) environ() []string {
	var vars []string
	for _, kv := range os.Environ() {
		// XDG_CACHE_HOME would move the caches out of the test's home.
		// A variable a derived hidden row reads (TF_CLI_CONFIG_FILE, say)
		// would add the host's paths to the hidden set.
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, sandbox.PolicyVariable+"=") && !derivedVars()[name] {
			vars = append(vars, kv)
		}
	}
	return append(append(vars, "HOME="+e.home), e.vars...)
}

func (e *env) command(args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.ws
	cmd.Env = e.environ()
	return cmd
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs sandtable to completion with stdin as its input.
func (e *env) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := e.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("sandtable %q: %v", args, err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

func (e *env) write(t *testing.T, name, content string, mode os.FileMode) string {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestHelp(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"run", "--help"}, {"run", "-h"},
		{"explain", "--help"}, {"explain", "-h"}, {"probe", "--help"}, {"probe", "-h"}, {"rules", "--help"}, {"rules", "-h"}} {
		r := e.run(t, "", args...)
		if r.code != 0 || !strings.Contains(r.stdout, "usage: sandtable") || !strings.Contains(r.stdout, "example:\n  sandtable ") || r.stderr != "" {
			t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want 0, usage with an example on stdout", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestUsageOnStderr(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{}, {"frobnicate"}, {"-x"}} {
		r := e.run(t, "", args...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "usage: sandtable <command>") {
			t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want 2 and usage on stderr", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestUsageErrors checks that a mistake on the command line costs one line
// on stderr and exit 2, and spawns nothing: each command would create a
// file in the workspace.
func TestUsageErrors(t *testing.T) {
	e := newEnv(t)
	spawn := []string{"--", "sh", "-c", "touch spawned"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"run", "-x"}, spawn...), "sandtable run: flag provided but not defined: -x (run 'sandtable run --help' for usage)"},
		{[]string{"explain", "--bogus"}, "sandtable explain: flag provided but not defined: -bogus"},
		{[]string{"probe", "extra"}, `sandtable probe: unexpected argument "extra"`},
		{[]string{"rules", "--os", "plan9"}, `sandtable rules: --os "plan9": want linux, darwin or any`},
		{[]string{"explain", "--os", "windows"}, `sandtable explain: --os "windows": want linux or darwin`},
		{[]string{"run"}, "sandtable run: missing command"},
		{append([]string{"run", "--policy", "maybe"}, spawn...), `sandtable run: --policy: sandbox: policy "maybe": bad policy`},
		{append([]string{"run", "--workspace", "/nonexistent/ws"}, spawn...), `sandtable run: sandbox: workspace "/nonexistent/ws": does not exist`},
		{append([]string{"run", "--read", "missing-dir"}, spawn...), `sandtable run: sandbox: read path "` + e.ws + `/missing-dir": does not exist`},
		{append([]string{"run", "--write", ""}, spawn...), "sandtable run: --write: empty path: bad path"},
		{append([]string{"run", "--hide", "~bob/.ssh"}, spawn...), "sandtable run: --hide ~bob/.ssh: only ~ and ~/ are expanded: bad path"},
		{append([]string{"run", "--reveal", "/etc/passwd"}, spawn...), "sandtable run: sandbox: reveal path"},
		{append([]string{"run", "--hide", "/a/../b"}, spawn...), "sandtable run: sandbox: hidden path"},
		{append([]string{"explain", "--hide", "/x\"y"}, spawn...), "sandtable explain: sandbox: hidden path"},
	} {
		r := e.run(t, "", c.args...)
		if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want 2 and one line starting %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "spawned")); err == nil {
		t.Error("a command was spawned despite a usage error")
	}
}
