package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnlockedHiddenPath: a caller that may not look at a hidden path (a
// run chmod'ed its directory to 000) would take it for missing and hide
// nothing, and the next run could chmod it back. Where the sandbox can
// write, that is refused; elsewhere the child cannot look either, and the
// path is missing to both.
func TestUnlockedHiddenPath(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	locked := mkdir(t, ws, "conf")
	outside := mkdir(t, dir, "elsewhere")
	orig := lstat
	lstat = func(name string) (fs.FileInfo, error) {
		if strings.HasPrefix(name, locked+"/") || strings.HasPrefix(name, outside+"/") {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: os.ErrPermission}
		}
		return orig(name)
	}
	t.Cleanup(func() { lstat = orig })

	_, err := newPlan("linux", Config{Workspace: ws, Hidden: []string{filepath.Join(locked, "secret.env")}})
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("hidden path under a locked directory in the workspace: %v, want a refusal", err)
	}
	p, err := newPlan("linux", Config{Workspace: ws, Hidden: []string{filepath.Join(outside, "secret.env")}})
	if err != nil || len(p.hidden) == 0 || p.hidden[len(p.hidden)-1].kind != kindMissing {
		t.Errorf("control, outside the writable roots: %v, %+v; want it kept as missing", err, p)
	}
}

// TestOffSkipsSandboxChecks: under Off nothing is hidden or granted, so the
// refusals that protect a sandbox from its command do not apply: the home
// may be the workspace, and a hidden file may have two names.
func TestOffSkipsSandboxChecks(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	netrc := writeFile(t, home, ".netrc", "machine x password y")
	if err := os.Link(netrc, filepath.Join(dir, "netrc-copy")); err != nil {
		t.Fatal(err)
	}
	cmd, err := Command(t.Context(), Config{Workspace: home, Policy: Off}, "true")
	if err != nil || cmd.Dir != home {
		t.Errorf("Off, workspace = home with a two-name ~/.netrc: %v, %v", cmd, err)
	}
	if _, err := PrefixFor("linux", Config{Workspace: home, Policy: Required}); !errors.Is(err, ErrBadPath) {
		t.Errorf("control, Required: %v, want a refusal", err)
	}
}
