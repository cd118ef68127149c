package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// realTempDir is t.TempDir with its symlinks resolved (macOS's /var is one).
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// requireBwrap skips a test that needs a working bwrap when there is none,
// and fails it instead when SANDTABLE_REQUIRE_BWRAP=1 (CI), so a broken
// install cannot turn the security tests into silent skips.
func requireBwrap(t *testing.T) {
	t.Helper()
	fail := t.Skipf
	if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
		fail = t.Fatalf
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		fail("bwrap not on PATH (install bubblewrap; SANDTABLE_REQUIRE_BWRAP=1 makes this a failure): %v", err)
		return
	}
	if _, err := Prefix(Config{Workspace: hostDir(t)}); err != nil {
		fail("bwrap cannot build a sandbox here (SANDTABLE_REQUIRE_BWRAP=1 makes this a failure): %v", err)
	}
}

// fixture is the setup the real-bwrap tests share: a bwrap that works, a
// directory outside /tmp, a fresh $HOME in it, and a workspace.
func fixture(t *testing.T) (base, home, ws string) {
	t.Helper()
	requireBwrap(t)
	base = hostDir(t)
	home = newHome(t, base)
	ws = mkdir(t, base, "ws")
	return base, home, ws
}

// hostDir is a fresh directory outside /tmp. Inside the sandbox /tmp is a
// private tmpfs, so a write "failing" under t.TempDir() would prove nothing
// about the read-only host.
func hostDir(t *testing.T) string {
	t.Helper()
	base := "/var/tmp"
	if _, err := os.Stat(base); err != nil {
		t.Skipf("no %s for a test directory outside /tmp: %v", base, err)
	}
	d, err := os.MkdirTemp(base, "sandtable-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// inSandbox runs a bash script under cfg and returns its combined output.
func inSandbox(t *testing.T, cfg Config, script string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd, err := Command(ctx, cfg, "bash", "-c", script)
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	if !runsBwrap(cmd) {
		t.Fatalf("not sandboxed: %v", cmd.Args)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// runsBwrap reports whether cmd runs bwrap: itself, or through the wrap
// helper of network mode proxy (the default).
func runsBwrap(cmd *exec.Cmd) bool {
	if filepath.Base(cmd.Path) == "bwrap" {
		return true
	}
	if cmd.Path != netWrapExe || len(cmd.Args) < 2 || cmd.Args[1] != netWrapArg {
		return false
	}
	i := slices.Index(cmd.Args, "--")
	return i > 0 && i+1 < len(cmd.Args) && filepath.Base(cmd.Args[i+1]) == "bwrap"
}

// outside runs the same script with no sandbox: the control that shows the
// sandbox, not the script, made the difference.
func outside(t *testing.T, script string) (string, error) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "bash", "-c", script).CombinedOutput()
	return string(out), err
}

// newHome points HOME at an empty directory outside the workspace and /tmp.
func newHome(t *testing.T, base string) string {
	t.Helper()
	home := mkdir(t, base, "home")
	t.Setenv("HOME", home)
	return home
}
