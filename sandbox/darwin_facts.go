package sandbox

import (
	"path"
	"slices"
	"strings"

	"github.com/sandtable/sandtable/internal/casefold"
)

// darwinFacts adds what only the macOS profile reads: each existing
// hidden path's spelling on disk when it differs from the caller's
// (respellHidden), which hidden paths lie where the command writes, the
// folded pattern of each, the directories above the workspace and the
// granted paths, and the rename guards. It is pure but for storedName,
// which asks a Mac's file system, so the profile matrix runs it on any
// OS. What the refuse rows look at here, darwinInputs gave them.
func darwinFacts(p *plan) error {
	var err error
	if p.hidden, err = respellHidden(p.hidden, p.workspace, storedName); err != nil {
		return err
	}
	for i := range p.hidden {
		h := &p.hidden[i]
		h.writable = h.inside || underFact(h.path, p.write)
		if h.ancestor {
			continue // no deny at all: the workspace's own lookups pass it
		}
		// A path that cannot be folded keeps its spelled deny alone: rows
		// no-caret-hidden and no-unfoldable-hidden refuse the missing
		// writable ones, where that is not enough.
		h.folded, _ = foldPattern(h.path)
	}
	for i := range p.cacheRoots {
		p.cacheRoots[i].writable = inWritable(p, p.cacheRoots[i].path)
		p.cacheRoots[i].folded, _ = foldPattern(p.cacheRoots[i].path)
	}
	p.homeRegex = homePattern(p.home)
	p.ancestors = ancestorFacts(p)
	p.guards = guardFacts(p)
	return protectSBPLFacts(p)
}

// darwinInputs gives the refuse stage what the macOS profile matches by
// a pattern: each hidden path that does not exist, inside the workspace
// or a write path (the plan merged the hidden inputs: each is checked as
// all three), each protected path inside one, and the home.
func darwinInputs(res *resolved, p *plan) {
	for _, h := range p.hidden {
		if !h.ancestor && h.kind == kindMissing && (h.inside || underFact(h.path, p.write)) {
			res.input(refuseSubject{in: refuseHiddenPath | refuseDefaultHidden | refuseDerivedHidden, field: "hidden path", path: h.path, pattern: h.path})
		}
	}
	for _, f := range p.protected {
		if strictlyUnder(f.path, p.workspace) || slices.ContainsFunc(p.write, func(w pathFact) bool { return strictlyUnder(f.path, w.path) }) {
			res.input(refuseSubject{in: refuseProtectedPath, field: "protected path", path: f.path, pattern: f.path, folds: foldedBelow(p, f.path)})
		}
	}
	if p.home != "" {
		res.input(refuseSubject{in: refuseHome, field: "home directory", path: p.home, pattern: p.home})
	}
}

func underFact(path string, roots []pathFact) bool {
	for _, r := range roots {
		if strings.HasPrefix(path, r.path+"/") {
			return true
		}
	}
	return false
}

// ancestorFacts lists every directory above the workspace and the read
// and write paths, / excluded, each once.
func ancestorFacts(p *plan) []pathFact {
	var out []pathFact
	seen := map[string]bool{}
	add := func(of string) {
		for dir := path.Dir(of); dir != "/" && dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
			out = append(out, fact(dir, kindDir, p.workspace))
		}
	}
	add(p.workspace)
	for _, f := range p.read {
		add(f.path)
	}
	for _, f := range p.write {
		add(f.path)
	}
	return out
}

// guardFacts lists, for each existing hidden path and cache root inside
// the workspace or a write path, every directory from its parent up to the outermost
// writable root above it, that root excluded: renaming any of them would
// move the hidden path out from under its deny. The outermost root cannot
// be renamed, since its parent is not writable.
func guardFacts(p *plan) []pathFact {
	roots := make([]string, 0, 1+len(p.write))
	roots = append(roots, p.workspace)
	for _, w := range p.write {
		roots = append(roots, w.path)
	}
	var out []pathFact
	seen := map[string]bool{}
	for _, h := range slices.Concat(p.hidden, p.cacheRoots) {
		if !h.writable || h.kind == kindMissing {
			continue
		}
		outer := ""
		for _, r := range roots {
			if strings.HasPrefix(h.path, r+"/") && (outer == "" || len(r) < len(outer)) {
				outer = r
			}
		}
		for dir := path.Dir(h.path); dir != outer && strings.HasPrefix(dir, outer+"/"); dir = path.Dir(dir) {
			if !seen[dir] {
				seen[dir] = true
				out = append(out, fact(dir, kindDir, p.workspace))
			}
		}
	}
	return out
}

// foldPattern is an anchored pattern matching path and everything under
// it in every spelling APFS takes for it (see casefold.Write): [aA] for an
// ASCII letter, (é|É|e\u0301|E\u0301) for a letter that decomposes, [.]
// for a metacharacter. ok is false, and the pattern "", for a path
// holding a character beyond the fold table (APFS may take other
// spellings of it too) or ^ (a bracket cannot hold it alone without a
// backslash); whether that refuses a spawn is the refuse rows' to say.
func foldPattern(p string) (pattern string, ok bool) {
	var b strings.Builder
	b.Grow(4*len(p) + 8)
	b.WriteString("^")
	if !casefold.Write(&b, p, false) {
		return "", false
	}
	b.WriteString("(/|$)")
	return b.String(), true
}

// homePattern is home as a pattern matches it, each metacharacter
// bracketed, for the rows whose patterns start there. A ^, which a
// bracket cannot hold alone, stays as it is, and the patterns then match
// nothing (row no-caret-home refuses such a home).
func homePattern(home string) string {
	var b strings.Builder
	for i := 0; i < len(home); i++ {
		if c := home[i]; strings.IndexByte(".+*?()[]{}|$", c) >= 0 {
			b.WriteByte('[')
			b.WriteByte(c)
			b.WriteByte(']')
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// darwinHome records the resolved home directory, under which the profile
// names the toolchains the user installed; none when it is missing.
func darwinHome(res *resolved, p *plan) error {
	home, err := res.homes.home, res.homes.err
	if err != nil || home == "" {
		return err
	}
	real, _, err := res.r.resolve(home)
	if err != nil {
		return nil // no home: nothing under it to name
	}
	if err := checkResolved("home", home, real); err != nil {
		return err
	}
	p.home = real
	return nil
}

// foldedBelow is the part of protected path f that its pattern folds: the
// names below the innermost writable root holding it (foldBelow).
func foldedBelow(p *plan, f string) string {
	inner := ""
	if strictlyUnder(f, p.workspace) {
		inner = p.workspace
	}
	for _, w := range p.write {
		if strictlyUnder(f, w.path) && len(w.path) > len(inner) {
			inner = w.path
		}
	}
	return strings.TrimPrefix(f, inner)
}
