package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// The package's only doors to file metadata. Every path fact, the workspace
// resolution and the bwrap lookup go through them, so a test (or a profile of
// spawn latency) can count and fake every call in one place.
var (
	lstat     = os.Lstat
	readlink  = os.Readlink
	listNames = listDirNames
)

// listAfter is the number of lookups in one directory after which the
// resolver lists it once, and answers the names it lacks without a call:
// most default hidden paths are missing, a hundred of them under the home.
// A listing costs about ten lstats of a missing name here (a hundred
// entries, forty), so a directory with fewer lookups is not listed.
const listAfter = 12

// maxLinks bounds symlink chains, like the kernel's ELOOP limit.
const maxLinks = 40

// resolver resolves symlinks one component at a time through lstat and
// remembers every answer for the length of one spawn, so a dozen default
// hidden paths under the same home or /run cost about one lstat each, and a
// path's final lstat doubles as its kind.
//
// Every component is resolved, not only the last one, because a bwrap mount
// destination must be free of symlinks: bwrap resolves it inside the new root,
// where an absolute link points somewhere else or nowhere, failing the spawn
// or, for a hidden path, sorting it before the mount that should come first.
type resolver struct {
	seen map[string]lstatResult
	// links remembers every readlink, as seen remembers every lstat, so a
	// second resolve of a path is the first one's answer.
	links map[string]linkResult
	// via is every symlink the last resolve followed, by its own path.
	via []string
	// mounts is the mount table, read on the first fsPlace.
	mounts []mountEntry
	// dirs counts the lookups in each directory, and holds its listing
	// once it has one (listAfter).
	dirs map[string]*dirLookups
}

// dirLookups is what a resolver knows of one directory's entries.
type dirLookups struct {
	n          int
	searchable bool // a lookup in it was answered: listing it is no wider
	listed     bool // the listing was tried
	names      *dirNames
}

// mountEntry is one mount: the file system (device), the directory of it
// that is mounted (root), and where (point).
type mountEntry struct {
	dev, root, point string
}

type lstatResult struct {
	fi  fs.FileInfo
	err error
}

type linkResult struct {
	target string
	err    error
}

func (r *resolver) readlink(p string) (string, error) {
	if v, ok := r.links[p]; ok {
		return v.target, v.err
	}
	target, err := readlink(p)
	if r.links == nil {
		r.links = make(map[string]linkResult)
	}
	r.links[p] = linkResult{target, err}
	return target, err
}

func (r *resolver) lstat(p string) (fs.FileInfo, error) {
	if v, ok := r.seen[p]; ok {
		return v.fi, v.err
	}
	if r.seen == nil {
		// Sized for a typical spawn (the workspace, the home, the
		// default hidden set, the PATH walk), so the map does not grow
		// through three copies on the way there.
		r.seen = make(map[string]lstatResult, 64)
	}
	d := r.dirOf(p)
	if d != nil && d.names == nil && !d.listed && d.searchable && d.n >= listAfter {
		d.listed = true
		if names, ok := listNames(path.Dir(p)); ok {
			d.names = &names
		}
	}
	if d != nil && d.names != nil {
		if !d.names.has(path.Base(p)) {
			err := &fs.PathError{Op: "lstat", Path: p, Err: syscall.ENOENT}
			r.seen[p] = lstatResult{nil, err}
			return nil, err
		}
	}
	fi, err := lstat(p)
	if d != nil {
		d.n++
		d.searchable = d.searchable || err == nil || errors.Is(err, syscall.ENOENT)
	}
	r.seen[p] = lstatResult{fi, err}
	return fi, err
}

// dirOf returns the lookups in p's directory, nil for "/" itself.
func (r *resolver) dirOf(p string) *dirLookups {
	if p == "/" {
		return nil
	}
	dir := parentDir(p)
	d := r.dirs[dir]
	if d == nil {
		if r.dirs == nil {
			r.dirs = make(map[string]*dirLookups, 16)
		}
		d = &dirLookups{}
		r.dirs[dir] = d
	}
	return d
}

// isDir reports whether p is a directory, not through a symlink, from the
// resolve's own lookups when they tell: under a missing directory, say.
func (r *resolver) isDir(p string) bool {
	for a := path.Dir(p); a != "/"; a = path.Dir(a) {
		if v, ok := r.seen[a]; ok {
			if v.err != nil || !v.fi.IsDir() {
				return false
			}
			break
		}
	}
	fi, err := r.lstat(p)
	return err == nil && fi.IsDir()
}

// resolve returns the symlink-free form of the clean absolute path p and the
// lstat of the result, like filepath.EvalSymlinks. When a component is
// missing it returns the path resolved so far joined with the unresolved
// rest, together with the error, so a missing hidden path still names the
// place it would appear.
func (r *resolver) resolve(p string) (string, fs.FileInfo, error) {
	return r.resolveUnder("/", strings.TrimPrefix(p, "/"))
}

// resolveUnder resolves rest relative to dir, which must already be
// symlink-free (a resolved home directory, say).
func (r *resolver) resolveUnder(dir, rest string) (string, fs.FileInfo, error) {
	var fi fs.FileInfo
	links := 0
	r.via = r.via[:0]
	for rest != "" {
		var comp string
		comp, rest, _ = strings.Cut(rest, "/")
		switch comp {
		case "", ".":
			continue
		case "..":
			// dir is symlink-free, so its lexical parent is its real one.
			dir, fi = path.Dir(dir), nil
			continue
		}
		// dir is clean and comp has no slash: a concatenation is the
		// clean join, without path.Join's second pass.
		next := dir + "/" + comp
		if dir == "/" {
			next = "/" + comp
		}
		info, err := r.lstat(next)
		if err != nil {
			return joinRest(next, rest), nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if links++; links > maxLinks {
				return joinRest(next, rest), nil, &fs.PathError{Op: "resolve", Path: next, Err: syscall.ELOOP}
			}
			r.via = append(r.via, next)
			target, err := r.readlink(next)
			if err != nil {
				return joinRest(next, rest), nil, err
			}
			if strings.HasPrefix(target, "/") {
				dir = "/"
			}
			if rest != "" {
				target += "/" + rest
			}
			rest, fi = target, nil
			continue
		}
		if !info.IsDir() && strings.Trim(rest, "/") != "" {
			return joinRest(next, rest), nil, &fs.PathError{Op: "resolve", Path: next, Err: syscall.ENOTDIR}
		}
		dir, fi = next, info
	}
	if fi == nil {
		info, err := r.lstat(dir)
		if err != nil {
			return dir, nil, err
		}
		fi = info
	}
	return dir, fi, nil
}

// isMissing reports whether err means there is nothing at the path for this
// caller: it does not exist, a parent is not a directory, or the caller may
// not look. In the last case the sandboxed child, with the same uid and fewer
// privileges, cannot look either.
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrPermission)
}

// joinRest is path.Join(next, rest) for resolveUnder's clean next, without
// its allocations when nothing follows: a missing default hidden path
// under the home is most often a single component.
func joinRest(next, rest string) string {
	if rest == "" {
		return next
	}
	return path.Join(next, rest)
}
