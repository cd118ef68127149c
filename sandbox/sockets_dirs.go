package sandbox

import (
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What bwrap 0.8 pays for each operation a hidden socket's directory can
// be rebuilt with, in units of the cheapest: every bind (--ro-bind-data
// over a socket, --ro-bind-try of an entry shown again, --remount-ro)
// reads the whole mount table again, so a spawn's binds cost the square
// of their number (docs/filesystem.md, "Host unix sockets"); --tmpfs, --dir and
// --symlink read nothing. A rebuilt directory costs its tmpfs and the
// remount that makes it read-only.
const (
	costMake  = 1
	costBind  = 16
	costTop   = costMake + costBind
	costNever = 1 << 40 // a directory that cannot be rebuilt
)

// The bounds of rebuilding for one spawn: the directory entries read in
// all, and the length of a symlink's target, which a tmpfs of one page
// holds without a page of its own (shmem keeps targets shorter than 128
// bytes in the inode).
const (
	maxSocketDirEntries = 1 << 14
	maxLinkTarget       = 127
)

// sockNode is one directory above a hidden host socket.
type sockNode struct {
	path     string
	sockets  []string // its hidden sockets, by name
	children map[string]*sockNode
	keep     int // its cost with the host's directory shown: a mount per socket below
	rebuild  int // the cost of its contents rebuilt in an empty directory
	entries  []sockEntry
}

// sockEntry is one entry of a listed directory, as a rebuild makes it.
type sockEntry struct {
	name   string
	kind   sockEntryKind
	target string // a symlink's
}

type sockEntryKind uint8

const (
	sockOther   sockEntryKind = iota // shown again (--ro-bind-try)
	sockDir                          // a directory (made, or shown again)
	sockLink                         // a symlink (made again)
	sockSocket                       // left out
	sockMounted                      // the plan mounts there itself
)

// socketLayout chooses, for the plan's hidden host sockets (p.sockets,
// which it replaces), between a mount over each socket and a directory
// rebuilt without them: a read-only tmpfs over a directory that holds
// them (p.socketDirs), in which the directories on the way to the
// sockets are made again (p.socketSubdirs), its symlinks made again
// (p.socketLinks) and every other entry bound again from the host
// (p.socketEntries), each socket left out. It takes, directory by
// directory from the deepest, whichever costs bwrap fewer binds (the
// weights above), so a directory of many sockets and few other entries
// costs a constant, and one of a few sockets among many files stays as
// it is. A directory is rebuilt only when the sandbox's user can list
// and search it (no name in it is shown that it could not list), and
// every name in it passes the path validator; the plan's own mounts at
// an entry make that entry. Reading stops at the bounds above, where a
// rebuild could no longer pay.
func socketLayout(p *plan, ls *sockListings, lstat func(string) (fs.FileInfo, error), canList func(fs.FileInfo) bool) {
	if len(p.sockets) < 2 { // one socket costs one bind: no rebuild is cheaper
		return
	}
	facts := make(map[string]int, len(p.sockets)) // p.sockets' index
	root := &sockNode{path: "/"}
	for i, f := range p.sockets {
		facts[f.path] = i
		n := root
		dir, name := path.Split(f.path)
		for rest := dir; rest != ""; {
			var comp string
			comp, rest, _ = strings.Cut(rest, "/")
			if comp == "" {
				continue
			}
			c := n.children[comp]
			if c == nil {
				if n.children == nil {
					n.children = map[string]*sockNode{}
				}
				c = &sockNode{path: path.Join(n.path, comp)}
				n.children[comp] = c
			}
			n = c
		}
		n.sockets = append(n.sockets, name)
	}
	mounted := make(map[string]bool, len(p.mounts))
	mountedIn := make(map[string]bool, len(p.mounts))
	for _, m := range p.mounts {
		mounted[m.path] = true
		mountedIn[parentDir(m.path)] = true
	}
	t := &sockTree{ls: ls, lstat: lstat, canList: canList, mounted: mounted, mountedIn: mountedIn, fixed: fixedMounts(p)}
	t.cost(root)
	if !t.rebuilds(root) {
		return // nothing is cheaper rebuilt
	}
	var l layoutOut
	t.place(root, &l)
	kept := make([]pathFact, 0, len(l.sockets))
	for _, s := range l.sockets {
		kept = append(kept, p.sockets[facts[s]])
	}
	p.sockets = kept
	for _, d := range l.dirs {
		p.socketDirs = append(p.socketDirs, fact(d, kindDir, p.workspace))
	}
	for _, d := range l.subdirs {
		p.socketSubdirs = append(p.socketSubdirs, fact(d, kindDir, p.workspace))
	}
	for _, e := range l.links {
		f := fact(e[0], kindFile, p.workspace)
		f.target = e[1]
		p.socketLinks = append(p.socketLinks, f)
	}
	for _, e := range l.entries {
		p.socketEntries = append(p.socketEntries, fact(e, kindFile, p.workspace))
	}
}

type sockTree struct {
	ls      *sockListings
	lstat   func(string) (fs.FileInfo, error)
	canList func(fs.FileInfo) bool
	mounted map[string]bool
	// mountedIn are the directories of the mounted paths.
	mountedIn map[string]bool
	fixed     []string // see fixedMounts
}

// fixedMounts are the destinations of the mounts outside the mounts
// group (/etc/resolv.conf's DNS stub, the private /tmp): they are made
// before the group in table order, so a tmpfs over a directory above one
// would cover it, and no such directory is rebuilt.
func fixedMounts(p *plan) []string {
	group := map[string]bool{}
	for _, m := range p.mounts {
		group[ruleTable[m.rule].ID] = true
	}
	var out []string
	for _, s := range linuxSteps(p) {
		if group[s.Rule] || len(s.Args) < 2 {
			continue
		}
		if bwrapMount(s.Args[mountFlagAt(s.Args)]) != mountNone {
			out = append(out, s.Args[len(s.Args)-1])
		}
	}
	return out
}

// asShown is the cost of n's sockets under the host's directory n, or
// under one of the plan's mounts: each socket mounted over, or n rebuilt.
func asShown(n *sockNode) int { return min(n.keep, costTop+n.rebuild) }

// cost computes n.keep and n.rebuild, children first.
func (t *sockTree) cost(n *sockNode) {
	n.keep = costBind * len(n.sockets)
	for _, c := range sortedChildren(n) {
		t.cost(c)
		n.keep += asShown(c)
	}
	n.rebuild = costNever
	if n.path != "/" && !slices.ContainsFunc(t.fixed, func(d string) bool { return d == n.path || under(d, n.path) }) {
		n.rebuild = t.list(n, n.keep+costBind-costMake)
	}
}

// rebuilds reports whether the cheapest layout rebuilds any directory.
func (t *sockTree) rebuilds(n *sockNode) bool {
	for _, c := range n.children {
		if costTop+c.rebuild < c.keep || t.rebuilds(c) {
			return true
		}
	}
	return false
}

// list reads n's entries and returns the cost of making them again in an
// empty directory, or costNever once it reaches limit (a rebuild would
// no longer pay, as a tmpfs or as a directory made in one) or n cannot
// be rebuilt.
func (t *sockTree) list(n *sockNode, limit int) int {
	fi, err := t.lstat(n.path)
	if err != nil || !fi.IsDir() || !t.canList(fi) {
		return costNever
	}
	l := t.ls.list(n.path, maxSocketDirEntries)
	if l == nil {
		return costNever
	}
	total := 0
	n.entries = make([]sockEntry, 0, len(l.names))
	mountsIn := t.mountedIn[n.path]
	for i, name := range l.names {
		typ := l.types[i]
		c := n.children[name]
		se := sockEntry{name: name}
		if typ&fs.ModeSocket != 0 && c == nil && !mountsIn {
			se.kind = sockSocket // the common case, without the path
			n.entries = append(n.entries, se)
			continue
		}
		p := n.path + "/" + name
		switch {
		case t.mounted[p]:
			se.kind = sockMounted
			if c != nil {
				total += asShown(c)
			}
		case typ&fs.ModeSocket != 0 && c == nil:
			se.kind = sockSocket
		case checkPath("socket directory", p) != nil:
			return costNever
		case typ&fs.ModeSymlink != 0 && c == nil:
			target, err := os.Readlink(p)
			if err != nil {
				continue // gone: nothing to make
			}
			if !linkTargetOK(target) {
				return costNever
			}
			se.kind, se.target = sockLink, target
			total += costMake
		case typ.IsDir():
			se.kind = sockDir
			if c != nil {
				total += min(costMake+c.rebuild, costBind+c.keep)
			} else {
				total += costBind
			}
		case c != nil:
			return costNever // a directory above a socket that is no longer one
		default:
			total += costBind
		}
		n.entries = append(n.entries, se)
		if total >= limit {
			return costNever
		}
	}
	return total
}

// linkTargetOK reports whether a symlink's target can be made again: one
// a page-sized tmpfs holds inline, without control characters.
func linkTargetOK(target string) bool {
	return target != "" && len(target) <= maxLinkTarget && utf8.ValidString(target) &&
		!strings.ContainsFunc(target, unicode.IsControl)
}

// layoutOut is the layout place chose, path by path.
type layoutOut struct {
	sockets, dirs, subdirs, entries []string
	links                           [][2]string // path, target
}

// place lays out what lies under n, the host's directory as shown.
func (t *sockTree) place(n *sockNode, l *layoutOut) {
	for _, s := range slices.Sorted(slices.Values(n.sockets)) {
		l.sockets = append(l.sockets, path.Join(n.path, s))
	}
	for _, c := range sortedChildren(n) {
		t.placeShown(c, l)
	}
}

// placeShown is place for c, or c rebuilt when that is cheaper.
func (t *sockTree) placeShown(c *sockNode, l *layoutOut) {
	if costTop+c.rebuild < c.keep {
		l.dirs = append(l.dirs, c.path)
		t.fill(c, l)
		return
	}
	t.place(c, l)
}

// fill lays out n's entries in an empty directory at n.path.
func (t *sockTree) fill(n *sockNode, l *layoutOut) {
	for _, e := range n.entries {
		p := n.path + "/" + e.name
		c := n.children[e.name]
		switch e.kind {
		case sockMounted:
			if c != nil {
				t.placeShown(c, l)
			}
		case sockSocket:
		case sockLink:
			l.links = append(l.links, [2]string{p, e.target})
		case sockDir:
			switch {
			case c == nil:
				l.entries = append(l.entries, p)
			case costMake+c.rebuild < costBind+c.keep && onlySockets(c):
				// Made again, it would be empty: left out.
			case costMake+c.rebuild < costBind+c.keep:
				l.subdirs = append(l.subdirs, p)
				t.fill(c, l)
			default:
				l.entries = append(l.entries, p)
				t.place(c, l)
			}
		default:
			l.entries = append(l.entries, p)
		}
	}
}

// onlySockets reports whether n's listing holds something, and nothing
// but sockets and directories of which the same holds.
func onlySockets(n *sockNode) bool {
	for _, e := range n.entries {
		c := n.children[e.name]
		if e.kind != sockSocket && (e.kind != sockDir || c == nil || !onlySockets(c)) {
			return false
		}
	}
	return len(n.entries) > 0
}

func sortedChildren(n *sockNode) []*sockNode {
	out := make([]*sockNode, 0, len(n.children))
	for _, name := range slices.Sorted(maps.Keys(n.children)) {
		out = append(out, n.children[name])
	}
	return out
}

// sockListings lists the directories of the host's sockets for one plan,
// each once, and no more than maxSocketDirEntries entries in all.
type sockListings struct {
	buf   []byte
	dirs  map[string]*sockListing
	count int
}

// sockListing is one directory's entries: their names, sorted, and the
// type of each.
type sockListing struct {
	names []string
	types []fs.FileMode
}

// typeOf returns name's type in the listing, false when it has no such
// entry.
func (l *sockListing) typeOf(name string) (fs.FileMode, bool) {
	i, ok := slices.BinarySearch(l.names, name)
	if !ok {
		return 0, false
	}
	return l.types[i], true
}

// list returns dir's listing, nil when it cannot be read, holds more than
// max entries, or the bound is reached; the first answer is kept.
func (ls *sockListings) list(dir string, max int) *sockListing {
	if l, ok := ls.dirs[dir]; ok {
		return l
	}
	if ls.dirs == nil {
		ls.dirs = map[string]*sockListing{}
	}
	type ent struct {
		name string
		typ  fs.FileMode
	}
	var ents []ent
	ok := readDirents(dir, &ls.buf, min(max, maxSocketDirEntries-ls.count), func(name string, typ fs.FileMode) {
		ents = append(ents, ent{name, typ})
	})
	ls.count += len(ents)
	var l *sockListing
	if ok {
		slices.SortFunc(ents, func(a, b ent) int { return strings.Compare(a.name, b.name) })
		l = &sockListing{names: make([]string, len(ents)), types: make([]fs.FileMode, len(ents))}
		for i, e := range ents {
			l.names[i], l.types[i] = e.name, e.typ
		}
	}
	ls.dirs[dir] = l
	return l
}
