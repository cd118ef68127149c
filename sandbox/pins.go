package sandbox

import (
	"path"
	"strings"
)

// pinFacts lists the directories that keep each hidden path inside the
// workspace or a write path where it is. bwrap hides a path by mounting
// over it, and the sandboxed command cannot rename a mount point, but it
// can rename any directory above one that it can write: the hidden path
// moves with it, and the next run, which hides by path, finds nothing at
// the old one and hides nothing. Every directory between the writable root
// and the hidden path is therefore bound onto itself (the pin-dir rule),
// which changes nothing but makes it a mount point too.
//
// The walk up from a hidden path stops at the first directory that is a
// mount of its own (the workspace, a grant, a hidden directory), and inside
// a read-only grant or a hidden directory, where nothing can be renamed
// and a bind of the host's directory would show what was hidden.
func pinFacts(p *plan) []pathFact {
	type root struct {
		path     string
		writable bool
	}
	roots := make([]root, 0, 1+len(p.write)+len(p.read)+len(p.hidden))
	roots = append(roots, root{p.workspace, true})
	for _, f := range p.write {
		roots = append(roots, root{f.path, true})
	}
	for _, f := range p.read {
		roots = append(roots, root{f.path, false})
	}
	for _, f := range p.hidden {
		if f.kind != kindMissing {
			roots = append(roots, root{f.path, false})
		}
	}
	// deepest returns the innermost root dir lies in or is.
	deepest := func(dir string) (root, bool) {
		var best root
		found := false
		for _, r := range roots {
			if (dir == r.path || strings.HasPrefix(dir, r.path+"/")) && (!found || len(r.path) > len(best.path)) {
				best, found = r, true
			}
		}
		return best, found
	}
	var pins []pathFact
	seen := map[string]bool{}
	for _, h := range p.hidden {
		if h.kind == kindMissing {
			continue
		}
		for dir := path.Dir(h.path); dir != "/"; dir = path.Dir(dir) {
			r, ok := deepest(dir)
			if !ok || dir == r.path || !r.writable {
				break
			}
			if !seen[dir] {
				seen[dir] = true
				pins = append(pins, fact(dir, kindDir, p.workspace))
			}
		}
	}
	return pins
}
