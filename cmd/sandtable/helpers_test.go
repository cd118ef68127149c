package main

import (
	"bytes"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sandtable/sandtable/internal/testkit"
	"github.com/sandtable/sandtable/sandbox"
)

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

// hostDir is a fresh directory the sandbox shows as the host's
// (testkit.HostDir): /tmp is a private tmpfs inside the sandbox, so a
// write "refused" under /tmp would prove nothing.
func hostDir(t *testing.T) string {
	t.Helper()
	return testkit.HostDir(t)
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

// caller is one user the limit tests run sandtable as: self is the test
// process's own credentials (root, or a developer who is not root), which
// need no setuid and so no capability.
type caller struct {
	label    string
	root     bool
	self     bool
	uid, gid uint32
}

func (u caller) attr() *syscall.SysProcAttr {
	if u.self {
		return nil
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: []uint32{}}}
}

// own gives the user e's directories and a copy of the binary it can run.
func (u caller) own(t *testing.T, e *env) string {
	t.Helper()
	dir := filepath.Dir(e.home)
	dst := filepath.Join(dir, "sandtable")
	// Written once per env: a run's closer (a child re-executing the
	// binary) may still run it after the run, and a write then fails
	// with ETXTBSY.
	if _, err := os.Stat(dst); err != nil {
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if !u.self {
		for _, d := range []string{dir, e.home, e.ws} {
			if err := os.Chown(d, int(u.uid), int(u.gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// callers are root and the unprivileged sandtable-test user, when the
// test runs as root; the current user otherwise.
func callers(t *testing.T) []caller {
	if os.Geteuid() != 0 {
		return []caller{{label: "uid-" + strconv.Itoa(os.Geteuid()), self: true, uid: uint32(os.Geteuid()), gid: uint32(os.Getegid())}}
	}
	us := []caller{{label: "root", root: true, self: true}}
	u, err := user.Lookup("sandtable-test")
	if err != nil {
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("no sandtable-test user: %v", err)
		}
		t.Logf("no sandtable-test user: the unprivileged run is skipped: %v", err)
		return us
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return append(us, caller{label: "unprivileged", uid: uint32(uid), gid: uint32(gid)})
}
