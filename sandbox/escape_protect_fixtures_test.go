//go:build linux

package sandbox

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// The fixtures of the protect attempts (escape_protect_test.go) and the
// git include ones (escape_gitinclude_test.go): the placeholder control and
// the git repositories the user owns.

// noPlaceholder is the control of an attack on a missing protected path:
// the same argv without the placeholder rule, on the fixture as it was.
// Command, unlike NewCmd, leaves the empty placeholder bwrap made; it
// would be protected as an existing path.
func (e *escEnv) noPlaceholder(name string) escMode {
	if fi, err := os.Lstat(filepath.Join(e.ws, name)); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		os.Remove(filepath.Join(e.ws, name))
	}
	return dropRules("protect-placeholder")
}

// git runs git in dir as the test process, failing the test on an error.
func (e *escEnv) git(dir string, args ...string) {
	e.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "init.defaultBranch=main", "-c", "safe.directory=*"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("git %q: %v: %s", args, err, out)
	}
}

// gitRepo makes dir a repository the user owns.
func (e *escEnv) gitRepo(dir string) {
	e.t.Helper()
	e.git(dir, "init", "-q")
	e.chownAll(dir)
}

// chownAll gives the user everything under dir.
func (e *escEnv) chownAll(dir string) {
	e.t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			e.chown(e.t, p)
		}
		return nil
	})
}
