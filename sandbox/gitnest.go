package sandbox

import (
	"slices"
	"strconv"
)

// gitTop is a repository the git-search walk found below a root: a work
// tree holding a .git, or a bare repository's git directory.
type gitTop struct {
	dir  string
	bare bool
}

// dirEntryKind is what a directory listing says of an entry.
type dirEntryKind uint8

const (
	entryOther   dirEntryKind = iota
	entryDir                  // a directory, not a link to one
	entryFile                 // a regular file
	entryUnknown              // the file system did not say: lstat it
)

// walkSkips are the directories below root the walk does not descend:
// hidden paths (a tmpfs in the sandbox: nothing there reaches the host),
// read paths (read-only already) and the other writable roots (each is
// walked as its own root).
func walkSkips(p *plan, root string, roots []string) map[string]bool {
	var skip map[string]bool
	add := func(q string) {
		if strictlyUnder(q, root) {
			if skip == nil {
				skip = map[string]bool{}
			}
			skip[q] = true
		}
	}
	if p != nil {
		for _, f := range p.read {
			add(f.path)
		}
		for _, f := range p.hidden {
			if f.kind == kindDir {
				add(f.path)
			}
		}
	}
	for _, r := range roots {
		add(r)
	}
	return skip
}

// findRepos walks root breadth first, within the git-search rows' bounds,
// for the repositories below it (root's own is findGit's), shallowest
// first, and says where a bound stopped it. It follows no symlink, and
// descends neither a .git, nor a bare repository, nor a directory skip
// or the skip row names.
func findRepos(r *resolver, root string, skip map[string]bool) ([]gitTop, []gitSearchCut) {
	type queued struct {
		dir   string
		depth int
	}
	var (
		tops    []gitTop
		cuts    []gitSearchCut
		entries int
		lister  = newDirLister()
		queue   = []queued{{root, 0}}
	)
	cut := func(rule, at, what string) {
		for _, c := range cuts {
			if c.rule == rule {
				return
			}
		}
		cuts = append(cuts, gitSearchCut{rule: rule, root: root, at: at, what: what})
	}
	for qi := 0; qi < len(queue); qi++ {
		q := queue[qi]
		if qi >= gitSearchDirs {
			cut(gitSearchDirsRule, q.dir, strconv.Itoa(gitSearchDirs)+" directories")
			break
		}
		if entries >= gitSearchEntries {
			cut(gitSearchEntriesRule, q.dir, strconv.Itoa(gitSearchEntries)+" directory entries")
			break
		}
		var hasGit, head, objects, refs bool
		var subs []string
		n, whole := lister.list(q.dir, gitSearchEntries-entries, func(name string, kind dirEntryKind) {
			if kind == entryUnknown {
				kind = entryOther
				if fi, err := r.lstat(q.dir + "/" + name); err == nil {
					switch {
					case fi.IsDir():
						kind = entryDir
					case fi.Mode().IsRegular():
						kind = entryFile
					}
				}
			}
			switch name {
			case ".git":
				hasGit = kind == entryDir || kind == entryFile || hasGit
				return
			case "HEAD":
				head = kind == entryFile
			case "objects":
				objects = kind == entryDir
			case "refs":
				refs = kind == entryDir
			}
			if kind == entryDir && !slices.Contains(gitSearchSkip[:], name) {
				subs = append(subs, name)
			}
		})
		entries += n
		if !whole {
			cut(gitSearchEntriesRule, q.dir, strconv.Itoa(gitSearchEntries)+" directory entries")
		}
		if qi > 0 {
			switch {
			case hasGit:
				tops = append(tops, gitTop{dir: q.dir})
			case head && objects && refs:
				tops = append(tops, gitTop{dir: q.dir, bare: true})
				continue // its hooks and config are its own; nothing below is a work tree
			}
		}
		slices.Sort(subs)
		for _, name := range subs {
			sub := childPath(q.dir, name)
			if skip[sub] {
				continue
			}
			if q.depth+1 > gitSearchDepth {
				cut(gitSearchDepthRule, sub, strconv.Itoa(gitSearchDepth)+" levels")
				break
			}
			queue = append(queue, queued{sub, q.depth + 1})
		}
	}
	return tops, cuts
}
