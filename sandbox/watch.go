package sandbox

import (
	"errors"
	"os"
	"path"
)

// ErrHostChanged is wrapped by [Cmd.Wait] when the run was stopped because a
// watched path (rules/linux.yaml, watch) was created, removed or replaced
// on the host while it ran.
var ErrHostChanged = errors.New("a hidden or protected path changed on the host during the run")

// watchSet is the plan's set a watch row covers.
type watchSet uint8

const (
	watchHidden watchSet = iota
	watchProtected
	watchSuspend
)

// watchTarget is one name to watch in one directory on the host.
type watchTarget struct {
	rule, dir, name string
	// placeholder: bwrap itself creates the name (a missing protected
	// path's placeholder), so its creation is expected.
	placeholder bool
	// missing: the path was missing when the plan was made, so it must
	// still be once the watch is in place.
	missing bool
	// removal: removing the name stops the run too. A protected path's
	// mount detaches with it and leaves the name free to create in the
	// sandbox; a hidden path removed shows nothing until something
	// appears there again, which the creation's event catches (a socket
	// whose program exits is removed often, re-created rarely).
	removal bool
}

// watchTargets lists the names the watch rows cover in p: each path's
// directory and last component, or, for a path that is missing with its
// directory, the nearest existing ancestor and the next component, where
// the path would have to be created first.
func watchTargets(p *plan) []watchTarget {
	var out []watchTarget
	seen := map[[2]string]int{}
	// Many missing paths share their nearest existing ancestor (the
	// home, ~/.config): each directory is looked at once.
	isDir := map[string]bool{}
	dirExists := func(dir string) bool {
		d, ok := isDir[dir]
		if !ok {
			fi, err := os.Lstat(dir)
			d = err == nil && fi.IsDir()
			isDir[dir] = d
		}
		return d
	}
	add := func(rule string, f pathFact, placeholder, removal bool) {
		at := f.path
		if f.kind == kindMissing && !placeholder {
			for {
				parent := path.Dir(at)
				if parent == "/" || dirExists(parent) {
					break
				}
				at = parent
			}
		}
		dir, name := path.Dir(at), path.Base(at)
		key := [2]string{dir, name}
		if i, ok := seen[key]; ok {
			out[i].removal = out[i].removal || removal
			return
		}
		seen[key] = len(out)
		out = append(out, watchTarget{rule: rule, dir: dir, name: name, placeholder: placeholder, removal: removal,
			missing: f.kind == kindMissing && !placeholder})
	}
	for _, row := range watchRows {
		switch row.of {
		case watchHidden:
			for _, f := range p.hidden {
				add(row.rule, f, false, false)
			}
		case watchProtected:
			for _, f := range p.protected {
				add(row.rule, f, f.kind == kindMissing, true)
			}
		}
	}
	return out
}
