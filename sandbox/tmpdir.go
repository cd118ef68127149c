package sandbox

import (
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
// command left in it.
func removeTmpdir(dir string) {
	if dir != "" {
		_ = os.RemoveAll(dir) // best effort: a failure leaves a 0700 directory of the caller's
	}
}

// removeTmpdirLater removes dir once owner is unreachable: Command returns
// a plain exec.Cmd, which has no hook after Wait.
func removeTmpdirLater[T any](owner *T, dir string) {
	if dir != "" {
		runtime.AddCleanup(owner, removeTmpdir, dir)
	}
}
