package sandbox

import (
	"bytes"
	"path"
	"strconv"
	"strings"
)

// Bounds on what findGit reads from files a sandboxed command may have
// written in an earlier run, before they were protected.
const (
	maxGitPointer = 4 << 10  // a .git file, commondir, a worktree's gitdir
	maxGitConfig  = 64 << 10 // a git config file
	maxGitDirs    = 64       // git directories per writable root
	maxModuleNest = 4        // directory levels of .git/modules (names with slashes)
)

// gitFinds is what findGit found in one writable root.
type gitFinds struct {
	dirs  []string // git directories
	files []string // .git files (gitdir: pointers)
	hooks []string // hooks directories core.hooksPath names
	// includes are the files a config includes (include.path,
	// includeIf.*.path), and those they include.
	includes []string
}

// findGit finds the git directories of the repository at root: its .git
// directory or where its .git file points, the common directory a
// worktree shares, the git directories of its submodules (.git/modules)
// and worktrees (.git/worktrees), with the .git files that point at them
// and the hooks directories their configs name. Only what lies inside one
// of roots (symlink-free) is kept: anything else is read-only in the
// sandbox already. Every file read is bounded, opened without following a
// symlink, and must be regular. The .git, each pointer's target (with the
// links it went through) and each file read past its bound are inputs of
// the refuse stage; a .git that is a symlink is not followed, and a file
// past its bound is not read.
func findGit(res *resolved, root string, roots []string) (gitFinds, error) {
	r := res.r
	g := &gitFinder{r: r, res: res, roots: roots, seen: map[string]bool{}}
	dot := childPath(root, ".git")
	fi, err := r.lstat(dot)
	if err != nil {
		return gitFinds{}, nil // not a repository, or not one we can look at
	}
	res.input(refuseSubject{in: refuseGitDir, field: "git directory", path: dot, fi: fi})
	switch {
	case fi.IsDir():
		err = g.dir(dot, root)
	case fi.Mode().IsRegular():
		err = g.file(dot, root)
	}
	return g.out, err
}

type gitFinder struct {
	r     *resolver
	res   *resolved
	roots []string
	seen  map[string]bool
	out   gitFinds
}

// file records the .git file f of the working tree wt and follows its
// gitdir: line.
func (g *gitFinder) file(f, wt string) error {
	if !slicesContains(g.out.files, f) {
		g.out.files = append(g.out.files, f)
	}
	data, err := g.read(f, maxGitPointer)
	if err != nil {
		return err
	}
	target, ok := strings.CutPrefix(string(firstLine(data)), "gitdir:")
	if !ok {
		return nil // git refuses it too
	}
	dir, ok, err := g.inside(f, path.Dir(f), strings.TrimSpace(target))
	if err != nil || !ok {
		return err
	}
	return g.dir(dir, wt)
}

// dir records the git directory d, whose working tree is wt ("" when it
// has none of its own), and what it leads to.
func (g *gitFinder) dir(d, wt string) error {
	if g.seen[d] || len(g.out.dirs) >= maxGitDirs {
		return nil
	}
	g.seen[d] = true
	g.out.dirs = append(g.out.dirs, d)
	if data, err := g.optional(d+"/commondir", maxGitPointer); err != nil {
		return err
	} else if data != nil {
		common, ok, err := g.inside(d+"/commondir", d, strings.TrimSpace(string(firstLine(data))))
		if err != nil {
			return err
		}
		if ok {
			if err := g.dir(common, ""); err != nil {
				return err
			}
		}
	}
	cfg, err := g.optional(d+"/config", maxGitConfig)
	if err != nil {
		return err
	}
	hooksPath, worktree := gitConfigCore(cfg)
	if worktree != "" && wt == "" {
		w, ok, err := g.inside(d+"/config", d, worktree)
		if err != nil {
			return err
		}
		if ok {
			wt = w
			if fi, err := g.r.lstat(w + "/.git"); err == nil && fi.Mode().IsRegular() {
				g.out.files = append(g.out.files, w+"/.git")
			}
		}
	}
	if hooksPath != "" && (wt != "" || strings.HasPrefix(hooksPath, "/")) {
		h, ok, err := g.inside(d+"/config", wt, hooksPath)
		if err != nil {
			return err
		}
		if ok && !slicesContains(g.out.hooks, h) {
			g.out.hooks = append(g.out.hooks, h)
		}
	}
	if err := g.include(d+"/config", cfg, 0); err != nil {
		return err
	}
	if err := g.modules(d+"/modules", 0); err != nil {
		return err
	}
	return g.worktrees(d + "/worktrees")
}

// modules follows the submodules' git directories under m; a submodule
// whose name has slashes nests its directory.
func (g *gitFinder) modules(m string, depth int) error {
	names := g.r.readDir(m)
	for _, name := range names {
		sub := m + "/" + name
		fi, err := g.r.lstat(sub)
		if err != nil || !fi.IsDir() {
			continue
		}
		if _, err := g.r.lstat(sub + "/HEAD"); err == nil {
			if err := g.dir(sub, ""); err != nil {
				return err
			}
		} else if depth+1 < maxModuleNest {
			if err := g.modules(sub, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// worktrees follows the linked worktrees' git directories under w, and
// the .git files in their working trees that point back.
func (g *gitFinder) worktrees(w string) error {
	for _, name := range g.r.readDir(w) {
		sub := w + "/" + name
		fi, err := g.r.lstat(sub)
		if err != nil || !fi.IsDir() {
			continue
		}
		wt := ""
		data, err := g.optional(sub+"/gitdir", maxGitPointer)
		if err != nil {
			return err
		}
		if data != nil {
			f, ok, err := g.inside(sub+"/gitdir", sub, strings.TrimSpace(string(firstLine(data))))
			if err != nil {
				return err
			}
			if fi, err := g.r.lstat(f); ok && err == nil && fi.Mode().IsRegular() {
				wt = path.Dir(f)
				if !slicesContains(g.out.files, f) {
					g.out.files = append(g.out.files, f)
				}
			}
		}
		if err := g.dir(sub, wt); err != nil {
			return err
		}
	}
	return nil
}

// inside resolves target, read from the file from and relative to base,
// and reports whether it lies in one of the writable roots. A target that
// does not exist, or lies elsewhere, is not followed; one that goes
// through a symlink in a writable root, or cannot be written in an argv,
// is refused.
func (g *gitFinder) inside(from, base, target string) (string, bool, error) {
	if target == "" || strings.HasPrefix(target, "~") {
		return "", false, nil // a home directory is never inside a writable root
	}
	if !strings.HasPrefix(target, "/") {
		target = base + "/" + target
	}
	target = path.Clean(target)
	if err := checkPath("git pointer target", target); err != nil {
		return "", false, gitPointerError(from, "names "+strconv.Quote(target)+", which cannot be protected: "+err.Error())
	}
	real, _, err := g.r.resolve(target)
	g.res.input(refuseSubject{in: refuseGitPointer, field: "git pointer target", path: target, via: viaOf(g.r)})
	if err != nil && !isMissing(err) {
		return "", false, gitPointerError(from, "names "+strconv.Quote(target)+", which cannot be resolved: "+err.Error())
	}
	if checkPath("git pointer target", real) != nil || !underAny(real, g.roots) {
		return "", false, nil
	}
	if err != nil {
		// Missing: where it would be is where a placeholder goes.
		return real, true, nil
	}
	return real, true, nil
}

// optional reads the regular file p, bounded; nil when there is none.
func (g *gitFinder) optional(p string, max int64) ([]byte, error) {
	fi, err := g.r.lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	return g.read(p, max)
}

// read reads the regular file p, bounded by max (readSmall); a file past
// it is the refuse stage's input, and reads as nothing here.
func (g *gitFinder) read(p string, max int64) ([]byte, error) {
	data, err := readSmall(p, max)
	if err != nil {
		return nil, gitReadError(p, err)
	}
	if n := int64(len(data)); n > max {
		g.res.input(refuseSubject{in: refuseGitFile, field: "git file", path: p, size: n, max: max})
		return nil, nil
	}
	return data, nil
}

func gitReadError(p string, err error) error {
	return &pathError{field: "git file", path: p, problem: "cannot be read: " + err.Error(), err: err}
}

func gitPointerError(p, problem string) error {
	return badPath("git file", p, problem)
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSuffix(b, []byte("\r"))
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// gitConfigCore returns the last core.hooksPath and core.worktree of a git
// config file, as git reads them: sections and keys case-insensitive,
// values unquoted, comments after # or ; outside quotes dropped. Include
// directives are not followed.
func gitConfigCore(data []byte) (hooksPath, worktree string) {
	section := ""
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				section = ""
				continue
			}
			name := strings.TrimSpace(line[1:end])
			if strings.ContainsAny(name, " \t\"") {
				section = "" // a subsection: never [core]
			} else {
				section = strings.ToLower(name)
			}
			line = strings.TrimSpace(line[end+1:])
		}
		if section != "core" || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v := gitConfigValue(value)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "hookspath":
			hooksPath = v
		case "worktree":
			worktree = v
		}
	}
	return hooksPath, worktree
}

func gitConfigValue(s string) string {
	var b strings.Builder
	quoted := false
	for _, c := range strings.TrimSpace(s) {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String())
		default:
			b.WriteRune(c)
		}
	}
	return strings.TrimSpace(b.String())
}
