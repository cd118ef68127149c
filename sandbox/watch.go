package sandbox

import (
	"errors"
	"os"
	"path"
)

// ErrHostChanged is wrapped by Cmd.Wait when the run was stopped because a
// watched path (rules/linux.yaml, watch) was created, removed or replaced
// on the host while it ran.
var ErrHostChanged = errors.New("a hidden or protected path changed on the host during the run")

// watchSet is the plan's set a watch row covers.
type watchSet uint8

const (
	watchHidden watchSet = iota
	watchProtected
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
}

// watchTargets lists the names the watch rows cover in p: each path's
// directory and last component, or, for a path that is missing with its
// directory, the nearest existing ancestor and the next component, where
// the path would have to be created first.
func watchTargets(p *plan) []watchTarget {
	var out []watchTarget
	seen := map[[2]string]bool{}
	add := func(rule string, f pathFact, placeholder bool) {
		at := f.path
		if f.kind == kindMissing && !placeholder {
			for {
				parent := path.Dir(at)
				if fi, err := os.Lstat(parent); (err == nil && fi.IsDir()) || parent == "/" {
					break
				}
				at = parent
			}
		}
		dir, name := path.Dir(at), path.Base(at)
		if key := [2]string{dir, name}; !seen[key] {
			seen[key] = true
			out = append(out, watchTarget{rule: rule, dir: dir, name: name, placeholder: placeholder, missing: f.kind == kindMissing && !placeholder})
		}
	}
	for _, row := range watchRows {
		switch row.of {
		case watchHidden:
			for _, f := range p.hidden {
				add(row.rule, f, false)
			}
		case watchProtected:
			for _, f := range p.protected {
				add(row.rule, f, f.kind == kindMissing)
			}
		}
	}
	return out
}
