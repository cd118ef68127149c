package sandbox

import (
	"path"
	"strings"

	"github.com/sandtable/sandtable/internal/casefold"
)

// protectSBPLFacts prepares the protected paths for the macOS profile: a
// pattern that matches each one, and everything under it, with its part
// below the writable root in any letter case (APFS compares names that
// way, so .Git/HOOKS is .git/hooks there), and rename guards on every
// directory between it and the root, so that no directory above it can be
// moved aside with it. It runs after darwinFacts' own guards and adds to
// them. Pure, so the profile matrix runs it on any OS.
func protectSBPLFacts(p *plan) error {
	roots := make([]string, 0, 1+len(p.write))
	roots = append(roots, p.workspace)
	for _, w := range p.write {
		roots = append(roots, w.path)
	}
	seen := map[string]bool{}
	for _, g := range p.guards {
		seen[g.path] = true
	}
	for i := range p.protected {
		f := &p.protected[i]
		inner, outer := "", ""
		for _, r := range roots {
			if strictlyUnder(f.path, r) {
				if inner == "" || len(r) > len(inner) {
					inner = r
				}
				if outer == "" || len(r) < len(outer) {
					outer = r
				}
			}
		}
		if inner == "" {
			continue
		}
		f.folded = foldBelow(inner, f.path)
		for dir := path.Dir(f.path); dir != outer && strings.HasPrefix(dir, outer+"/"); dir = path.Dir(dir) {
			if !seen[dir] {
				seen[dir] = true
				p.guards = append(p.guards, fact(dir, kindDir, p.workspace))
			}
		}
	}
	return nil
}

// foldBelow is foldPattern for p with its prefix root (already resolved,
// its case the file system's own) matched as it is: only the names below
// the root are folded, so a root that is not ASCII still works. A
// character below it beyond the fold table is matched as it is spelled
// (row no-unfoldable-protected refuses such a path), and the pattern ends
// before a ^ (row no-caret-protected refuses such a path).
func foldBelow(root, p string) string {
	var b strings.Builder
	b.Grow(4*len(p) + 8)
	b.WriteString("^")
	rest, ok := strings.CutPrefix(p, root)
	if !ok {
		root, rest = "", p
	}
	for _, c := range []byte(root) {
		if strings.IndexByte(".+*?()[]{}|$", c) >= 0 {
			b.WriteByte('[')
			b.WriteByte(c)
			b.WriteByte(']')
		} else {
			b.WriteByte(c)
		}
	}
	casefold.Write(&b, rest, true)
	b.WriteString("(/|$)")
	return b.String()
}
