package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// attachTmpdir makes the spawn's own temporary directory under the
// user's (os.TempDir, TMPDIR on a Mac) and records its resolved path in
// p, the copy of a plan a spawn's profile is built from (plan.with), for
// the macOS profile's private-tmpdir rule. The directory is 0700
// and empty; its path passes the path validator, or it is removed and
// the spawn refused.
func attachTmpdir(p *plan) error {
	dir, err := os.MkdirTemp("", "sandtable-")
	if err != nil {
		return &unavailableError{reason: "make the command's temporary directory: " + err.Error()}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		err = checkPath("temporary directory", real)
	}
	if err != nil {
		os.Remove(dir)
		return err
	}
	p.tmpdir = real
	return nil
}

// tmpdirEnv adds TMPDIR, naming the spawn's own temporary directory, to
// the variables env sets; env unchanged without one.
func tmpdirEnv(p *plan, env []string) []string {
	if p.tmpdir == "" {
		return env
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	return append(env, "TMPDIR="+p.tmpdir+"/")
}

// removeTmpdir removes the spawn's temporary directory and what the
// command left in it, its directories without write permission included
// (a Go module cache, chmod 500): when a first removal fails, each
// directory in the tree is made the caller's 0700, through dir's os.Root
// so that no symlink the command left there reaches outside it, and the
// removal is tried again. Best effort: what remains is the caller's.
func removeTmpdir(dir string) {
	if dir == "" || os.RemoveAll(dir) == nil {
		return
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = root.Chmod(p, 0o700) // before WalkDir lists it
		}
		return nil
	})
	root.Close()
	_ = os.RemoveAll(dir)
}

// removeTmpdirLater removes dir once owner is unreachable: Command returns
// a plain exec.Cmd, which has no hook after Wait.
func removeTmpdirLater[T any](owner *T, dir string) {
	if dir != "" {
		runtime.AddCleanup(owner, removeTmpdir, dir)
	}
}
