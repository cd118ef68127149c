package sandbox

import (
	"strings"
)

// protectBase is what a row of the protect section is relative to.
type protectBase uint8

const (
	protectRoot          protectBase = iota // each writable root
	protectGitdir                           // each git directory found in one
	protectGitfile                          // each .git file found in one (the row's path is empty)
	protectHooksPath                        // each hooks directory core.hooksPath names there
	protectGitInclude                       // each file a git config there includes
	protectGitHostConfig                    // each host config file (and what it includes) there
	protectGitKey                           // each path the row's git keys and variables name there
)

// protectOptOut is a Config switch that drops the protect rows naming it.
type protectOptOut uint8

const (
	noOptOut protectOptOut = iota
	allowGitConfig
)

func (o protectOptOut) set(cfg Config) bool {
	return o == allowGitConfig && cfg.AllowGitConfig
}

// protectFacts finds the protect section's paths in every writable root
// (the workspace and each write directory). An existing one is bound
// read-only; a missing one, when its directory exists, gets a read-only
// empty placeholder (kindMissing). A path already read-only in the sandbox
// (inside a read path or a hidden one), or that the caller granted itself
// as a write path, is left alone; each existing one is an input of the
// refuse stage (a symlink there the command could re-point).
func protectFacts(res *resolved, p *plan, cfg Config) ([]pathFact, error) {
	roots := make([]string, 0, 1+len(p.write))
	roots = append(roots, p.workspace)
	for _, f := range p.write {
		if f.kind == kindDir {
			roots = append(roots, f.path)
		}
	}
	var out []pathFact
	seen := map[string]bool{}
	host, err := readHostGit(res, roots, hostGetenv)
	if err != nil {
		return nil, err
	}
	for ri, root := range roots {
		g, err := findGit(res, root, roots, host, p)
		if err != nil {
			return nil, err
		}
		if g.cuts != nil {
			for i := range g.cuts {
				g.cuts[i].root = root
			}
			p.gitCuts = append(p.gitCuts, g.cuts...)
		}
		if ri == 0 {
			// What the host's config names, whatever the repository.
			g.hooks = append(g.hooks, host.finds.hooks...)
			g.hostFiles = append(g.hostFiles, host.finds.hostFiles...)
			g.keyPaths = append(g.keyPaths, host.finds.keyPaths...)
		}
		for i, row := range protectedPaths {
			if row.unless.set(cfg) {
				continue
			}
			var cands []string
			switch row.base {
			case protectRoot:
				cands = []string{childPath(root, row.path)}
			case protectGitdir:
				for _, d := range g.dirs {
					cands = append(cands, d+"/"+row.path)
				}
			case protectGitfile:
				cands = g.files
			case protectHooksPath:
				cands = g.hooks
			case protectGitInclude:
				cands = g.includes
			case protectGitHostConfig:
				cands = g.hostFiles
			case protectGitKey:
				for _, k := range g.keyPaths {
					if k.row == i {
						cands = append(cands, k.path)
					}
				}
			}
			for _, c := range cands {
				f, ok, err := protectFact(res, p, c, roots)
				if ok && f.kind == kindMissing && row.skipMissing {
					continue
				}
				if err != nil {
					return nil, err
				}
				if ok && !seen[f.path] {
					seen[f.path] = true
					out = append(out, ruled(f, row.id))
				}
			}
		}
	}
	return out, nil
}

// protectFact classifies one candidate, a path whose directory is
// symlink-free and inside one of roots.
func protectFact(res *resolved, p *plan, c string, roots []string) (pathFact, bool, error) {
	r := res.r
	if err := checkPath("protected path", c); err != nil {
		return pathFact{}, false, err
	}
	if !protectable(p, c, roots) {
		return pathFact{}, false, nil
	}
	fi, err := r.lstat(c)
	switch {
	case err != nil && isMissing(err):
		// The placeholder goes on the first missing component, so the
		// command can create neither the path nor a directory above it.
		at := c
		for {
			parent := at[:strings.LastIndexByte(at, '/')]
			pfi, err := r.lstat(parent)
			if err == nil {
				if !pfi.IsDir() {
					return pathFact{}, false, nil // nothing can be made there
				}
				break
			}
			if !isMissing(err) || isRoot(parent, roots) || !underAny(parent, roots) {
				return pathFact{}, false, nil
			}
			at = parent
		}
		return fact(at, kindMissing, p.workspace), true, nil
	case err != nil:
		return pathFact{}, false, fsPathError("protected path", c, err)
	}
	res.input(refuseSubject{in: refuseProtectedPath, field: "protected path", path: c, fi: fi})
	return fact(c, kindOf(fi), p.workspace), true, nil
}

// protectable reports whether c is writable in the sandbox and protecting
// it hides nothing: it is no root itself (a write path the caller granted
// stays a grant), and the innermost mount above it is a writable root,
// not a read path (read-only already) or a hidden path (a bind there would
// show what the tmpfs hides).
func protectable(p *plan, c string, roots []string) bool {
	if isRoot(c, roots) {
		return false
	}
	best, writable := "", false
	consider := func(root string, w bool) {
		if (c == root || strictlyUnder(c, root)) && len(root) >= len(best) {
			best, writable = root, w
		}
	}
	for _, root := range roots {
		consider(root, true)
	}
	for _, f := range p.read {
		consider(f.path, false)
	}
	for _, f := range p.hidden {
		if f.kind != kindMissing {
			consider(f.path, false)
		}
	}
	return best != "" && writable
}

// childPath is dir/rel, for a dir that may be the root directory.
func childPath(dir, rel string) string {
	if dir == "/" {
		return "/" + rel
	}
	return dir + "/" + rel
}

func isRoot(p string, roots []string) bool {
	for _, r := range roots {
		if p == r {
			return true
		}
	}
	return false
}

// strictlyUnder is strings.HasPrefix(p, dir+"/") without building
// dir+"/", which allocates for a long path: it runs for every pair of
// paths and roots of a spawn.
func strictlyUnder(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}
