package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAttachTmpdir makes the spawn's own temporary directory as a Mac
// spawn does: empty, 0700, resolved, named by the profile and TMPDIR, and
// gone after removeTmpdir; and a profile rendered without one grants no
// temporary directory at all.
func TestAttachTmpdir(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &plan{workspace: ws}
	if err := attachTmpdir(p); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p.tmpdir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("tmpdir %q: %v, %v", p.tmpdir, fi, err)
	}
	if real, _ := filepath.EvalSymlinks(p.tmpdir); real != p.tmpdir {
		t.Errorf("tmpdir %q is not resolved (%q)", p.tmpdir, real)
	}
	prof := darwinProfile(p)
	if !strings.Contains(prof, `(allow file-write* (subpath "`+p.tmpdir+`"))`) {
		t.Errorf("the profile does not grant %s:\n%s", p.tmpdir, prof)
	}
	env := tmpdirEnv(p, []string{"TMPDIR=/elsewhere", "GOCACHE=/c"})
	if !slices.Equal(env, []string{"GOCACHE=/c", "TMPDIR=" + p.tmpdir + "/"}) {
		t.Errorf("env %q", env)
	}
	removeTmpdir(p.tmpdir)
	if _, err := os.Lstat(p.tmpdir); !os.IsNotExist(err) {
		t.Errorf("after removeTmpdir: %v", err)
	}
	none := darwinProfile(&plan{workspace: ws})
	for _, host := range []string{"/private/tmp", "/private/var/folders", "/tmp"} {
		if strings.Contains(none, `(subpath "`+host+`")`) {
			t.Errorf("a profile without a spawn grants the host's %s", host)
		}
	}
}
