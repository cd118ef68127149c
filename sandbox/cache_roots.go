package sandbox

import (
	"path"
	"runtime"
	"slices"
	"strconv"
)

// cacheRootFacts lists the cache roots the command must not see
// (plan.cacheRoots, rule hide-cache-root): the one the caches are in,
// under NoCache too, and each home's default one when XDG_CACHE_HOME puts
// the one in use elsewhere, each resolved and deduplicated; and the
// directories from the root in use down to the caches' scopes
// (plan.cacheScopes). A root that cannot be looked at is left out: the
// command, with the same uid and fewer rights, cannot look at it either.
func cacheRootFacts(res *resolved, p *plan) {
	r := res.r
	add := func(root string) {
		real, fi, err := r.resolve(root)
		if err != nil && !isMissing(err) || checkPath("cache root", real) != nil {
			return
		}
		for _, f := range p.cacheRoots {
			if f.path == real {
				return
			}
		}
		p.cacheRoots = append(p.cacheRoots, fact(real, kindOf(fi), p.workspace))
	}
	var inUse string
	if len(p.caches) > 0 {
		inUse = path.Dir(path.Dir(p.caches[0].path))
	} else if base, err := cacheBase(res.homes.home, res.homes.err); base != "" && err == nil {
		if real, _, err := r.resolve(base); err == nil || isMissing(err) {
			inUse = real + "/" + cacheSubdir
		}
	}
	if inUse != "" {
		add(inUse)
	}
	if res.homes.err == nil {
		for _, h := range res.homes.list() {
			if h == "" {
				continue
			}
			realHome, _, err := r.resolve(h)
			if err != nil && !isMissing(err) {
				continue
			}
			if root := realHome + "/.cache/" + cacheSubdir; root != inUse {
				add(root)
			}
		}
	}
	for _, c := range p.caches {
		scope := path.Dir(c.path)
		if len(p.cacheScopes) == 0 {
			p.cacheScopes = append(p.cacheScopes, fact(path.Dir(scope), kindDir, p.workspace))
		}
		if p.cacheScopes[len(p.cacheScopes)-1].path != scope {
			p.cacheScopes = append(p.cacheScopes, fact(scope, kindDir, p.workspace))
		}
	}
}

// makeCacheRoots makes each missing cache root that lies inside the
// workspace or a write path, as makeCaches makes the caches' directories
// (0700, one component at a time, checked as found when another spawn
// made it first): the command could otherwise make it, and fill it with
// caches that a later run of another workspace trusts. It then looks
// again at each root it made, and at the one in use, which makeCaches
// made when it was missing, and on Linux leaves out a root bwrap could
// not reach.
func makeCacheRoots(res *resolved, rows []refuseRow) error {
	p, r := res.p, res.r
	if res.goos != runtime.GOOS {
		return nil // a profile rendered for another OS makes nothing here
	}
	for i := range p.cacheRoots {
		f := &p.cacheRoots[i]
		if f.kind != kindMissing {
			continue
		}
		made := inWritable(p, f.path)
		if made {
			var missing []string
			for d := f.path; d != "/" && !r.isDir(d); d = path.Dir(d) {
				missing = append(missing, d)
			}
			for j := len(missing) - 1; j >= 0; j-- {
				if err := mkdirOwned(res, rows, missing[j]); err != nil {
					return err
				}
			}
		}
		if made || i == 0 && len(p.caches) > 0 {
			r.forget(f.path)
			if fi, err := r.lstat(f.path); err == nil {
				f.kind = kindOf(fi)
			}
		}
	}
	if res.goos == "linux" {
		// bwrap has to reach a root to mount over it, and fails the spawn
		// when it cannot (a root another user's bwrap runs for, under a
		// 0700 directory of the caller's); one it cannot reach, the
		// command cannot reach either.
		id := socketIdentity()
		p.cacheRoots = slices.DeleteFunc(p.cacheRoots, func(f pathFact) bool {
			if f.kind != kindDir {
				return false // nothing mounted over it
			}
			ok, _ := searchable(r, f.path, id)
			return !ok
		})
	}
	return nil
}

// inWritable reports whether p lies strictly inside the workspace or a
// write path.
func inWritable(pl *plan, p string) bool {
	if under(p, pl.workspace) {
		return true
	}
	for _, w := range pl.write {
		if under(p, w.path) {
			return true
		}
	}
	return false
}

// inCacheRoot refuses a workspace or grant (s.real, resolved) that is a
// cache root or lies inside one (rule no-cache-grant): the run would see
// or write every workspace's caches. As holds-home, it finds an existing
// root by name, through a bind mount of it, and by identity (another
// spelling on a file system that ignores case).
func (s *refuseSubject) inCacheRoot() error {
	if !s.guard || s.real == "" {
		return nil
	}
	for _, f := range s.cacheRoots {
		// A missing root has no other name to find it by.
		root := f.path
		if in := s.real == root || under(s.real, root); !in && (f.kind == kindMissing || !s.r.within(s.real, []string{root})) {
			continue
		}
		what := "is the cache root"
		if root != s.real {
			what = "lies inside the cache root " + strconv.Quote(root)
		}
		return badPath(s.field, s.spelling(), what+", which holds every workspace's tool caches "+
			"(want a directory outside it; the run's own caches are bound already)")
	}
	return nil
}
