package sandbox

import (
	"bytes"
	"path"
	"strconv"
	"strings"
)

// Bounds on what findGit reads from files a sandboxed command may have
// written in an earlier run, before they were protected. The git
// directories one root may have are the git-search-git-dirs row's.
const (
	maxGitPointer = 4 << 10  // a .git file, commondir, a worktree's gitdir
	maxGitConfig  = 64 << 10 // a git config file
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
	// hostFiles are the host's config files (and what they include)
	// that lie in a writable root; keyPaths what the protect rows' git
	// keys name there.
	hostFiles []string
	keyPaths  []gitKeyPath
	// cuts are where the git-search bounds stopped the search, one a bound.
	cuts []gitSearchCut
}

// gitKeyPath is a path a protect row's git key or variable names.
type gitKeyPath struct {
	row  int
	path string
}

// gitSearchCut is where a git-search bound stopped the search in a root:
// the bound's row, the first directory left unsearched (or the git
// directory left unprotected) and the bound as words.
type gitSearchCut struct {
	rule, root, at, what string
}

// findGit finds the git directories of the repository at root: its .git
// directory or where its .git file points, the common directory a
// worktree shares, the git directories of its submodules (.git/modules)
// and worktrees (.git/worktrees), with the .git files that point at them
// and the hooks directories their configs name; then the same for every
// repository the git-search walk finds below root (findRepos). Only what
// lies inside one of roots (symlink-free) is kept: anything else is
// read-only in the sandbox already. Every file read is bounded, opened
// without following a symlink, and must be regular. The .git, each
// pointer's target (with the links it went through) and each file read
// past its bound are inputs of the refuse stage; a .git that is a symlink
// is not followed, and a file past its bound is not read. host is what
// the host's git reads outside any repository (readHostGit).
func findGit(res *resolved, root string, roots []string, host *hostGitConfig, p *plan) (gitFinds, error) {
	g := &gitFinder{r: res.r, res: res, roots: roots, seen: map[string]bool{}, host: host}
	if err := g.top(root); err != nil {
		return g.out, err
	}
	tops, cuts := findRepos(res.r, root, walkSkips(p, root, roots))
	for _, t := range tops {
		var err error
		if t.bare {
			err = g.dir(t.dir, t.dir)
		} else {
			err = g.top(t.dir)
		}
		if err != nil {
			return g.out, err
		}
	}
	g.out.cuts = append(cuts, g.out.cuts...)
	return g.out, nil
}

// top follows the repository whose work tree is wt, if wt has a .git.
func (g *gitFinder) top(wt string) error {
	dot := childPath(wt, ".git")
	fi, err := g.r.lstat(dot)
	if err != nil {
		return nil // not a repository, or not one we can look at
	}
	g.res.input(refuseSubject{in: refuseGitDir, field: "git directory", path: dot, fi: fi})
	switch {
	case fi.IsDir():
		return g.dir(dot, wt)
	case fi.Mode().IsRegular():
		return g.file(dot, wt)
	}
	return nil
}

type gitFinder struct {
	r     *resolver
	res   *resolved
	roots []string
	seen  map[string]bool
	host  *hostGitConfig
	out   gitFinds
	// outside are the included files read that lie in no root.
	outside []string
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
	if g.seen[d] {
		return nil
	}
	if len(g.out.dirs) >= gitSearchGitDirs {
		if len(g.out.cuts) == 0 || g.out.cuts[len(g.out.cuts)-1].rule != gitSearchGitDirsRule {
			g.out.cuts = append(g.out.cuts, gitSearchCut{rule: gitSearchGitDirsRule, at: d, what: strconv.Itoa(gitSearchGitDirs) + " git directories"})
		}
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
	entries := parseGitConfig(cfg)
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
	entries, err = g.include(d+"/config", entries, 0)
	if err != nil {
		return err
	}
	if wcfg, err := g.optional(d+"/config.worktree", maxGitConfig); err != nil {
		return err
	} else if wcfg != nil {
		if h, _ := gitConfigCore(wcfg); h != "" {
			hooksPath = h
		}
		if entries, err = g.include(d+"/config.worktree", append(entries, parseGitConfig(wcfg)...), 0); err != nil {
			return err
		}
	}
	hooks := []string{hooksPath}
	if g.host != nil {
		hooks = append(hooks, g.host.hooks...)
	}
	for _, hp := range hooks {
		if hp == "" || !(wt != "" || strings.HasPrefix(hp, "/")) || g.elsewhere(wt, hp) {
			continue
		}
		h, ok, err := g.inside(d+"/config", wt, hp)
		if err != nil {
			return err
		}
		if ok && !slicesContains(g.out.hooks, h) {
			g.out.hooks = append(g.out.hooks, h)
		}
	}
	if err := g.keys(d, wt, gitKeyValues(nil, entries, d+"/config")); err != nil {
		return err
	}
	if g.host != nil {
		if err := g.keys(d, wt, g.host.values); err != nil {
			return err
		}
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
	real, in, err := g.locate(from, base, target)
	if !in {
		return "", false, err
	}
	return real, true, err
}

// locate is inside, with where the target resolves to when it lies
// outside every writable root ("" when it cannot be resolved or named).
// ~/ is the home directory, as git expands it; ~user is never followed.
func (g *gitFinder) locate(from, base, target string) (string, bool, error) {
	if rest, ok := strings.CutPrefix(target, "~"); ok {
		if home := g.res.homes.home; home != "" && strings.HasPrefix(rest, "/") {
			target = home + rest
		} else {
			return "", false, nil
		}
	}
	if target == "" {
		return "", false, nil
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
	if checkPath("git pointer target", real) != nil {
		return "", false, nil
	}
	if !underAny(real, g.roots) {
		if err != nil {
			return "", false, nil // missing, outside: nothing to read
		}
		return real, false, nil
	}
	// Missing: where it would be is where a placeholder goes.
	return real, true, nil
}

// keys records what the values of protect rows' git keys name in the
// repository whose git directory is d and work tree wt ("" when unknown).
func (g *gitFinder) keys(d, wt string, values []gitKeyValue) error {
	for _, v := range values {
		row := &protectedPaths[v.row]
		p := gitPathIn(row.value, v.value, g.res.homes.home)
		base := ""
		switch {
		case p == "":
			continue
		case strings.HasPrefix(p, "/"):
			base = "/"
		case row.rel == gitRelWorktree:
			base = wt
		case row.rel == gitRelGitdir:
			base = d
		}
		if base == "" {
			continue
		}
		if err := g.keyPath(v, base, p); err != nil {
			return err
		}
	}
	return nil
}

// keyPath records p, relative to base, for v's row when it lies in a root.
func (g *gitFinder) keyPath(v gitKeyValue, base, p string) error {
	if g.elsewhere(base, p) {
		return nil
	}
	f, ok, err := g.inside(v.from, base, p)
	if err != nil || !ok {
		return err
	}
	for _, k := range g.out.keyPaths {
		if k.row == v.row && k.path == f {
			return nil
		}
	}
	g.out.keyPaths = append(g.out.keyPaths, gitKeyPath{row: v.row, path: f})
	return nil
}

// elsewhere reports whether p, relative to base, is a path a host's
// setting names that cannot be written in an argv and lies in no root
// as spelled: nothing to protect, and no reason to refuse the spawn.
func (g *gitFinder) elsewhere(base, p string) bool {
	if !strings.HasPrefix(p, "/") {
		p = base + "/" + p
	}
	p = path.Clean(p)
	return checkPath("git pointer target", p) != nil && !underAny(p, g.roots)
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
// config file (parseGitConfig). Include directives are not followed.
func gitConfigCore(data []byte) (hooksPath, worktree string) {
	for _, e := range parseGitConfig(data) {
		if e.section != "core" || e.sub != "" || e.noValue {
			continue
		}
		switch e.name {
		case "hookspath":
			hooksPath = e.value
		case "worktree":
			worktree = e.value
		}
	}
	return hooksPath, worktree
}
