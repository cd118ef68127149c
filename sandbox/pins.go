package sandbox

import "path"

// pinFacts lists the directories that keep each hidden or protected path
// inside the workspace or a write path where it is. bwrap hides a path by mounting
// over it, and the sandboxed command cannot rename a mount point, but it
// can rename any directory above one whose parent it can write, mount
// points below and all: the hidden path moves with it, and the next run,
// which hides by path, finds nothing at the old one and hides nothing.
// Every such directory on the way up from a hidden path, up to the
// outermost writable root, is therefore bound onto itself (the pin-dir
// rule), which changes nothing but makes it a mount point too.
//
// A directory that is a mount already (the workspace, a grant, a hidden
// directory) needs no pin, nor one whose parent is read-only in the
// sandbox (inside a read grant), and none is pinned inside a hidden
// directory: a bind of the host's directory there would show what the
// tmpfs hides.
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
	for i := range len(p.hidden) + len(p.protected) {
		var h pathFact
		if i < len(p.hidden) {
			h = p.hidden[i]
		} else {
			h = p.protected[i-len(p.hidden)]
		}
		if h.kind == kindMissing && i < len(p.hidden) {
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
