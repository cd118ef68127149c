package sandbox

import "path"

// pinFacts lists the directories bound onto themselves (rule pin-dir,
// whose why POLICY.md gives): every directory on the way up from a hidden
// or protected path, or a cache root, inside a writable root to the
// outermost such root, so the command cannot rename the path aside for the next run to miss. None
// is needed for a directory that is a mount already, one whose parent is
// read-only in the sandbox, or one inside a hidden directory, where a bind
// of the host's directory would show what the tmpfs hides.
func pinFacts(p *plan) []pathFact {
	type root struct {
		path     string
		writable bool
		hidden   bool
	}
	// In the mount group's table order, which decides between mounts on
	// the same path: the last one is on top.
	roots := make([]root, 0, 1+len(p.write)+len(p.read)+len(p.hidden))
	roots = append(roots, root{path: p.workspace, writable: true})
	for _, f := range p.read {
		roots = append(roots, root{path: f.path})
	}
	for _, f := range p.write {
		roots = append(roots, root{path: f.path, writable: true})
	}
	for _, f := range p.hidden {
		if f.kind != kindMissing {
			roots = append(roots, root{path: f.path, hidden: true})
		}
	}
	// A cache root is hidden like a hidden directory (hide-cache-root).
	for _, f := range p.cacheRoots {
		if f.kind == kindDir {
			roots = append(roots, root{path: f.path, hidden: true})
		}
	}
	// A protected path is a read-only mount (a placeholder where it is
	// missing), pinned like a hidden one.
	for _, f := range p.protected {
		roots = append(roots, root{path: f.path})
	}
	// around returns the innermost root strictly above dir, and whether dir
	// is a root itself.
	around := func(dir string) (in root, found, isRoot bool) {
		for _, r := range roots {
			if dir == r.path {
				isRoot = true
			} else if strictlyUnder(dir, r.path) && (!found || len(r.path) >= len(in.path)) {
				in, found = r, true
			}
		}
		return in, found, isRoot
	}
	var pins []pathFact
	seen := map[string]bool{}
	for i := range len(p.hidden) + len(p.protected) + len(p.cacheRoots) {
		var h pathFact
		switch {
		case i < len(p.hidden):
			h = p.hidden[i]
		case i < len(p.hidden)+len(p.protected):
			h = p.protected[i-len(p.hidden)]
		default:
			h = p.cacheRoots[i-len(p.hidden)-len(p.protected)]
		}
		if h.kind == kindMissing && (i < len(p.hidden) || i >= len(p.hidden)+len(p.protected)) {
			continue
		}
		for dir := path.Dir(h.path); dir != "/"; dir = path.Dir(dir) {
			in, found, isRoot := around(dir)
			if !found {
				break // above every root: nothing the sandbox writes
			}
			if isRoot || in.hidden || !in.writable || seen[dir] {
				continue
			}
			seen[dir] = true
			pins = append(pins, fact(dir, kindDir, p.workspace))
		}
	}
	return pins
}
