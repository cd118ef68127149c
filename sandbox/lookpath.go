package sandbox

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// findProgram looks name up on $PATH like exec.LookPath, with two
// differences that matter when the result runs outside the sandbox: a
// relative PATH entry is ignored (it would be resolved against whatever the
// working directory is), and so is any candidate that resolves into one of
// the writable roots, or through a link in one, where an earlier sandboxed
// child could have planted its own "bwrap" or pointed one at any program.
// It returns the resolved path, so a symlink swapped after the check
// changes nothing.
func findProgram(name string, writable []string) (string, bool) {
	var r resolver
	return findProgramWith(&r, name, writable)
}

// findProgramWith is findProgram with the spawn's resolver, so the lookup
// reuses what the path facts already learnt about shared components.
func findProgramWith(r *resolver, name string, writable []string) (string, bool) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !strings.HasPrefix(dir, "/") {
			continue
		}
		real, fi, err := r.resolve(path.Join(path.Clean(dir), name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		if r.within(real, writable) || r.plantable(writable) != "" {
			continue
		}
		return real, true
	}
	return "", false
}

// underAny reports whether p is one of roots or lies inside one.
func underAny(p string, roots []string) bool {
	for _, root := range roots {
		if p == root || strictlyUnder(p, root) {
			return true
		}
	}
	return false
}

// writableRoots is everything a sandboxed child can write that outlives it:
// the workspace, the write paths, and on macOS the temporary directories,
// in one of which each spawn gets a directory of its own (Linux gives the
// sandbox a private /tmp).
func writableRoots(goos string, p *plan) []string {
	roots := make([]string, 0, 3+len(p.write))
	roots = append(roots, p.workspace)
	for _, f := range p.write {
		roots = append(roots, f.path)
	}
	for _, f := range p.caches {
		roots = append(roots, f.path)
	}
	if goos == "darwin" {
		roots = append(roots, darwinTempDirs[:]...)
	}
	return roots
}
