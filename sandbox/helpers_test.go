package sandbox

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
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

// hostDir is a fresh directory the sandbox shows as the host's
// (testkit.HostDir). Inside the sandbox /tmp is a private tmpfs, so a write
// "failing" under t.TempDir() would prove nothing about the read-only host.
func hostDir(t *testing.T) string {
	t.Helper()
	return testkit.HostDir(t)
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
	if cmd.Path != wrapHelperExe || len(cmd.Args) < 2 || cmd.Args[1] != wrapHelperArg {
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

// link makes the symlink dir/name pointing at target.
func link(t *testing.T, target, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// clearDerivedEnv empties, for the test, every variable a derived
// default-hidden row reads, so the host's (TF_CLI_CONFIG_FILE, say) do
// not enter a count or a golden file.
func clearDerivedEnv(t *testing.T) {
	t.Helper()
	for _, d := range defaultHidden {
		if d.env != "" {
			t.Setenv(d.env, "")
		}
	}
	for _, f := range redactFiles {
		if f.env != "" {
			t.Setenv(f.env, "")
		}
	}
}

// fewestAllocs is the fewest allocations f made per run in up to five
// measurements of 50 runs, stopping at want. AllocsPerRun counts the whole
// process's allocations (a leftover goroutine of an earlier test, a
// collection its garbage started), which can only add to f's own: the
// fewest is the closest to f's, and f's own count, which is the same in
// every run, is never below it.
func fewestAllocs(want float64, f func()) float64 {
	fewest := math.Inf(1)
	for range 5 {
		runtime.GC()
		fewest = min(fewest, testing.AllocsPerRun(50, f))
		if fewest <= want {
			break
		}
	}
	return fewest
}

// realBwrap is the resolved bwrap the fakes below hand over to.
func realBwrap(t *testing.T) string {
	t.Helper()
	requireBwrap(t)
	p, err := exec.LookPath("bwrap")
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// spawnEnv is a workspace and an empty home outside /tmp.
func spawnEnv(t *testing.T) (base, ws string) {
	t.Helper()
	base = hostDir(t)
	newHome(t, base)
	return base, mkdir(t, base, "ws")
}

func newCmd(t *testing.T, cfg Config, name string, args ...string) *Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	c, err := NewCmd(ctx, cfg, name, args...)
	if err != nil {
		t.Fatalf("NewCmd: %v", err)
	}
	if c.checked == nil {
		t.Fatalf("NewCmd did not fold the check into the spawn: %v", c.Args)
	}
	return c
}

// spawnBenchConfig is a workspace and an empty home, so the argv is the
// same on every host apart from the system defaults (/etc/shadow, /run/...)
// that exist there.
func spawnBenchConfig(b *testing.B) Config {
	b.Helper()
	base := testkit.HostDir(b)
	home, ws := base+"/home", base+"/ws"
	for _, d := range []string{home, ws} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", home)
	return Config{Workspace: ws}
}
