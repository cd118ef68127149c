package sandbox

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// socketFacts resolves Config.Sockets, each an input of the refuse stage
// (with the links it went through, and what it is: row no-nonsocket-grant
// alone refuses anything but a socket; the builders bind whatever is
// granted).
func socketFacts(res *resolved, cfg Config, p *plan) (grants []pathFact, err error) {
	r := res.r
	for _, s := range cfg.Sockets {
		real, fi, err := r.resolve(s)
		if err != nil {
			return nil, fsPathError("socket", s, err)
		}
		res.input(refuseSubject{in: refuseSocket, field: "socket", path: s, via: viaOf(r), fi: fi})
		if err := checkResolved("socket", s, real); err != nil {
			return nil, err
		}
		grants = append(grants, fact(real, kindOf(fi), p.workspace))
	}
	return grants, nil
}

// hostSocketFacts lists, for a Linux sandbox, the host's named unix
// sockets that could be hidden: every one /proc/net/unix names, outside
// the writable roots (where the command may make and use its own) and the
// granted ones; hiddenSockets keeps those the plan's mounts would show.
// Nothing about a host socket refuses a spawn: one whose path cannot be
// resolved, is no socket any more, lies under a directory the caller
// cannot search (bwrap could not mount over it, and the command cannot
// reach it), or could not be written in a profile is left alone.
func hostSocketFacts(r *resolver, p *plan, grants []pathFact, ls *sockListings) (hide []pathFact) {
	paths := listHostSockets()
	if len(paths) == 0 {
		return nil
	}
	roots := p.roots
	id := socketIdentity()
	seen := make(map[string]bool, len(paths))
	named := map[string]int{} // sockets named in each directory
	for _, s := range paths {
		named[parentDir(s)]++ // as listedSocket reads it, unclean names included
	}
	realDirs := map[string]string{}
	reachDirs := map[string][2]bool{}
	hide = make([]pathFact, 0, len(paths))
	for _, s := range paths {
		real, known := listedSocket(r, p, ls, s, named, realDirs)
		if known && real == "" {
			continue // listed, and no socket
		}
		if !known {
			var fi fs.FileInfo
			var err error
			real, fi, err = r.resolve(s)
			if err != nil || fi.Mode()&fs.ModeSocket == 0 {
				continue
			}
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		reach, shared := searchableIn(r, real, id, reachDirs)
		if !reach || checkPath("socket", real) != nil || underAny(real, roots) ||
			slices.ContainsFunc(grants, func(g pathFact) bool { return g.path == real }) {
			continue
		}
		f := fact(real, kindFile, p.workspace)
		f.sharedTemp = shared
		hide = append(hide, f)
	}
	return hide
}

// searchableIn is searchable, the answer for each directory kept in
// seen: it is its ancestors'.
func searchableIn(r *resolver, p string, id identity, seen map[string][2]bool) (ok, shared bool) {
	dir := parentDir(p)
	if v, found := seen[dir]; found {
		return v[0], v[1]
	}
	ok, shared = searchable(r, p, id)
	seen[dir] = [2]bool{ok, shared}
	return ok, shared
}

// varTmpDir is the host's directory the var-tmp rule replaces.
const varTmpDir = "/var/tmp"

// hostVarTmp reports whether the host's varTmpDir is a directory, not a
// symlink, by lstat: what var-tmp can take the place of.
func hostVarTmp(lstat func(string) (fs.FileInfo, error)) bool {
	fi, err := lstat(varTmpDir)
	return err == nil && fi.IsDir()
}

// showsVarTmp reports whether the workspace, a write path, a cache or a
// read path is varTmpDir or above it: the caller shows the host's, and
// the sandbox's own would be mounted under it or remount it read-only.
func showsVarTmp(p *plan) bool {
	shows := func(g string) bool { return g == varTmpDir || under(varTmpDir, g) || g == "/" }
	return shows(p.workspace) || slices.ContainsFunc(p.roots, shows) ||
		slices.ContainsFunc(p.write, func(f pathFact) bool { return shows(f.path) }) ||
		slices.ContainsFunc(p.read, func(f pathFact) bool { return shows(f.path) })
}

// unshownDir stands, in listedSocket's directories, for one the sandbox
// does not show.
const unshownDir = "\x00"

// freshMounts are the destinations of the table's fixed mounts of a new
// file system (the private /tmp and /var/tmp, /dev, /proc), for a plan
// without and with varTmp: nothing of the host's shows under them but
// what a plan mount shows again.
var freshMounts = [2]func() []string{freshMountsOf(false), freshMountsOf(true)}

func freshMountsOf(varTmp bool) func() []string {
	return sync.OnceValue(func() []string {
		var out []string
		for _, s := range linuxSteps(&plan{varTmp: varTmp}) {
			if len(s.Args) > 0 && bwrapMount(s.Args[mountFlagAt(s.Args)]) == mountFresh {
				out = append(out, s.Args[len(s.Args)-1])
			}
		}
		return out
	})
}

// underFreshOnly reports whether dir lies under one of freshMounts and
// at or under none of the plan's writable roots and read paths, the
// mounts that show part of it again (one deeper in dir shows its own
// tree, not dir's entries): no socket in it is shown, and none needs
// hiding (hiddenSockets would drop it), so it is not even listed.
func underFreshOnly(p *plan, dir string) bool {
	fresh := freshMounts[0]
	if p.varTmp {
		fresh = freshMounts[1]
	}
	if !slices.ContainsFunc(fresh(), func(f string) bool { return dir == f || under(dir, f) }) {
		return false
	}
	again := func(g string) bool { return g == dir || under(dir, g) }
	return !slices.ContainsFunc(p.roots, again) && !slices.ContainsFunc(p.read, func(f pathFact) bool { return again(f.path) })
}

// A directory that names sockets is listed once, instead of a lookup of
// each (the listing is what socketLayout reads too), unless it holds more
// entries than listPerSocket for each socket it names and listSlack:
// then a lookup of each is cheaper, and socketLayout would not rebuild it.
const (
	listPerSocket = 64
	listSlack     = 64
)

// listedSocket is s's symlink-free path when its directory's listing says
// it is a socket there, "" when it says it is no socket nor symlink; false
// when the listing cannot tell (a directory it cannot list, or one too
// large, a name it does not hold as it is spelt, a symlink), and s is
// then looked up.
func listedSocket(r *resolver, p *plan, ls *sockListings, s string, named map[string]int, realDirs map[string]string) (string, bool) {
	dir := parentDir(s) // resolved below: an unclean name's too
	real, ok := realDirs[dir]
	if !ok {
		if rd, fi, err := r.resolve(dir); err == nil && fi.IsDir() {
			real = rd
			if underFreshOnly(p, real) {
				real = unshownDir
			}
		}
		realDirs[dir] = real
	}
	switch real {
	case "":
		return "", false
	case unshownDir:
		return "", true
	}
	l := ls.list(real, listSlack+listPerSocket*named[dir])
	if l == nil {
		return "", false
	}
	typ, ok := l.typeOf(path.Base(s))
	if !ok || typ&fs.ModeSymlink != 0 {
		return "", false
	}
	if typ&fs.ModeSocket == 0 {
		return "", true
	}
	base := path.Base(s)
	if real == dir && len(s) == len(dir)+1+len(base) {
		return s, true // as bound, and clean
	}
	return path.Join(real, base), true
}

// listHostSockets is hostSockets; a test that counts a spawn's file
// system calls replaces it.
var listHostSockets = hostSockets

// hiddenSockets keeps the host sockets the mounts of p (which hide no
// socket yet) would show at their path and not replace there themselves
// (a hidden file, a read path that is the socket: hiding it again would
// mount twice there).
func hiddenSockets(p *plan, cands []pathFact) []pathFact {
	if len(cands) == 0 {
		return nil
	}
	v := newView(p)
	dsts := make(map[string]bool, len(v))
	for _, m := range v {
		dsts[m.dst] = true
	}
	// Whether a path is shown depends on the mounts at or above its
	// directory, unless one is at the path itself: that one covers it.
	inDir := map[string]bool{}
	return slices.DeleteFunc(cands, func(f pathFact) bool {
		if dsts[f.path] {
			return true
		}
		dir := parentDir(f.path)
		shown, ok := inDir[dir]
		if !ok {
			shown = v.shows(f.path)
			inDir[dir] = shown
		}
		return !shown
	})
}

// withSocketMounts is mounts (sorted, none a hidden socket's) with the
// mounts of p.sockets and the rebuilt socket directories (socketLayout):
// the generated builder's, made over those alone, merged in where
// sortMounts would put them (by depth; on a tie
// after the rules before them in the table, and before the socket grants
// after them), so the mount group is computed once.
func withSocketMounts(p *plan, mounts []mount) []mount {
	if len(p.sockets) == 0 && len(p.socketDirs) == 0 {
		return mounts
	}
	var add []mount
	only := &plan{sockets: p.sockets, socketDirs: p.socketDirs, socketSubdirs: p.socketSubdirs, socketLinks: p.socketLinks, socketEntries: p.socketEntries}
	for _, m := range linuxMounts(only, nil) {
		switch m.rule {
		case linuxRuleHideHostSocket, linuxRuleHideSocketDir, linuxRuleSocketDirSubdir, linuxRuleSocketDirLink, linuxRuleSocketDirEntry:
			add = append(add, m)
		}
	}
	sortMounts(add)
	out := make([]mount, 0, len(mounts)+len(add))
	i := 0
	for _, m := range mounts {
		d := strings.Count(m.path, "/")
		for i < len(add) && (strings.Count(add[i].path, "/") < d || strings.Count(add[i].path, "/") == d && m.rule == linuxRuleGrantSocket) {
			out = append(out, add[i])
			i++
		}
		out = append(out, m)
	}
	return append(out, add[i:]...)
}

// view is the plan's mounts as shows reads them, computed once for many
// paths.
type view []viewMount

type viewMount struct {
	dst   string
	fresh bool // a new file system (tmpfs, dev, proc): the host's is gone under it
}

func newView(p *plan) view {
	var v view
	for _, s := range linuxSteps(p) {
		if len(s.Args) < 2 {
			continue
		}
		switch bwrapMount(s.Args[mountFlagAt(s.Args)]) {
		case mountFresh:
			v = append(v, viewMount{dst: s.Args[len(s.Args)-1], fresh: true})
		case mountShown:
			v = append(v, viewMount{dst: s.Args[len(s.Args)-1]})
		}
	}
	return v
}

// covers reports whether a mount replaces path itself (a hidden file, a
// read path that is the socket): hiding it again would mount twice there.
func (v view) covers(path string) bool {
	return slices.ContainsFunc(v, func(m viewMount) bool { return m.dst == path })
}

// shows is plan.shows over the precomputed mounts.
func (v view) shows(path string) bool {
	fresh := false
	for _, m := range v {
		if path != m.dst && !under(path, m.dst) && m.dst != "/" {
			continue
		}
		fresh = m.fresh && path != m.dst
	}
	return !fresh
}

// vanishedSocket returns the hidden host socket bwrap's message says it
// could not mount over, or "": one removed between the plan and the mount,
// which fails the spawn (bwrap cannot create the mount point on the
// read-only root). Running again lists the host's sockets anew.
//
// A rebuilt socket directory removed in between fails the same way
// (bwrap cannot make its tmpfs's mount point), and is reported so too.
func vanishedSocket(p *plan, msg string) string {
	for _, fs := range [][]pathFact{p.sockets, p.socketDirs} {
		for _, f := range fs {
			if strings.Contains(msg, " "+f.path+":") || strings.Contains(msg, "/newroot"+f.path+":") {
				return f.path
			}
		}
	}
	return ""
}

// hideSockets sets p's host sockets to hide from the candidates and
// merges their mounts into p.mounts (sorted, without them): each
// socket's own mount, or a rebuilt directory (socketLayout).
func hideSockets(p *plan, r *resolver, ls *sockListings, cands []pathFact) {
	p.sockets = hiddenSockets(p, cands)
	p.socketDirs, p.socketSubdirs, p.socketLinks, p.socketEntries = nil, nil, nil, nil
	id := socketIdentity()
	socketLayout(p, ls, r.lstat, func(fi fs.FileInfo) bool { return listable(fi, id) })
	p.mounts = withSocketMounts(p, p.mounts)
}
