package sandbox

import (
	"errors"
	"path"
)

// ErrHostChanged is wrapped by [Cmd.Wait] when the run was stopped because a
// watched path (rules/linux.yaml, watch) was created, removed or replaced
// on the host while it ran.
var ErrHostChanged = errors.New("a hidden or protected path changed on the host during the run")

// pendingWatch is a watch being set up while the spawn starts.
type pendingWatch struct {
	done chan struct{}
	w    *hostWatch
	err  error
}

// startWatchAsync sets up p's watch (startWatch): its inotify watches
// now, before bwrap mounts anything (a hidden or protected file replaced
// after its mount and before its watch would go unseen), and the check of
// the missing names in the background.
func startWatchAsync(p *plan) *pendingWatch {
	pw := &pendingWatch{done: make(chan struct{})}
	w, check, err := addWatches(p)
	if err != nil || w == nil {
		pw.err = err
		close(pw.done)
		return pw
	}
	go func() {
		defer close(pw.done)
		if pw.err = check(); pw.err == nil {
			pw.w = w
		}
	}()
	return pw
}

// ready waits until the watch is in place, and returns why it is not.
func (pw *pendingWatch) ready() error {
	<-pw.done
	return pw.err
}

// wait returns the watch once it is set up, nil with the error if not.
func (pw *pendingWatch) wait() (*hostWatch, error) {
	<-pw.done
	if pw.err != nil {
		return nil, pw.err
	}
	return pw.w, nil
}

// watchSet is the plan's set a watch row covers.
type watchSet uint8

const (
	watchHidden watchSet = iota
	watchProtected
	watchSuspend
	watchCacheRoot
)

// watchTarget is one name to watch in one directory on the host.
type watchTarget struct {
	rule, dir, name string
	// placeholder: the spawn creates the name (a missing protected
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
// directory, the nearest existing ancestor (isDir says which exist) and
// the next component, where the path would have to be created first. An
// ancestor made since isDir looked is caught by startWatch's check of the
// missing names.
func watchTargets(p *plan, isDir func(string) bool) []watchTarget {
	var out []watchTarget
	seen := map[[2]string]int{}
	dirExists := isDir
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
		case watchCacheRoot:
			for _, f := range p.cacheRoots {
				add(row.rule, f, false, false)
			}
		}
	}
	return out
}
