package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The reduced backend's protection by detection (rules/linux.yaml,
// landlock-protect-detect): each protected path is copied before the run
// (its tree, bounded), watched during it, and compared after it; what
// changed is put back from the copy once every process of the run is gone.

// The bounds on what one protected path's copy may hold: a tree larger
// than this refuses the spawn rather than go unprotected.
const (
	snapMaxEntries = 4096
	snapMaxBytes   = 64 << 20
)

// snapEntry is one file of a protected path's copy, by its path relative
// to the protected path ("" for the path itself).
type snapEntry struct {
	rel  string
	mode fs.FileMode
	data []byte // a regular file's contents, a symlink's target
}

// protectSnap is one protected path as it was before the run; missing
// when there was nothing there.
type protectSnap struct {
	path    string
	missing bool
	entries []snapEntry
}

// snapshotProtected copies each protected path.
func snapshotProtected(paths []pathFact) ([]protectSnap, error) {
	var out []protectSnap
	var total int
	for _, f := range paths {
		s, n, err := snapTree(f.path)
		if err != nil {
			return nil, fmt.Errorf("protected path %s (rule %s): %w", f.path, landlockProtectRows["detect"], err)
		}
		total += n
		if total > snapMaxBytes {
			return nil, fmt.Errorf("protected paths: more than %d bytes to copy (rule %s)", snapMaxBytes, landlockProtectRows["detect"])
		}
		out = append(out, s)
	}
	return out, nil
}

// snapTree copies path's tree without following symlinks.
func snapTree(path string) (protectSnap, int, error) {
	s := protectSnap{path: path}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
		s.missing = true
		return s, 0, nil
	}
	if err != nil {
		return s, 0, err
	}
	bytes := 0
	add := func(rel string, fi fs.FileInfo) error {
		if len(s.entries) >= snapMaxEntries {
			return fmt.Errorf("more than %d entries", snapMaxEntries)
		}
		e := snapEntry{rel: rel, mode: fi.Mode()}
		full := filepath.Join(path, rel)
		switch {
		case fi.Mode().IsRegular():
			if fi.Size() > snapMaxBytes-int64(bytes) {
				return fmt.Errorf("more than %d bytes", snapMaxBytes)
			}
			data, err := os.ReadFile(full)
			if err != nil {
				return err
			}
			e.data = data
			bytes += len(data)
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(full)
			if err != nil {
				return err
			}
			e.data = []byte(t)
		case fi.IsDir():
		default:
			// A socket, fifo or device is kept by its mode alone.
		}
		s.entries = append(s.entries, e)
		return nil
	}
	if err := add("", fi); err != nil {
		return s, 0, err
	}
	if fi.IsDir() {
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p == path {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(path, p)
			return add(rel, info)
		})
		if err != nil {
			return s, 0, err
		}
	}
	return s, bytes, nil
}

// same reports whether the path still is what s copied.
func (s protectSnap) same() bool {
	now, _, err := snapTree(s.path)
	if err != nil || now.missing != s.missing || len(now.entries) != len(s.entries) {
		return false
	}
	for i, e := range s.entries {
		n := now.entries[i]
		if n.rel != e.rel || n.mode != e.mode || !bytes.Equal(n.data, e.data) {
			return false
		}
	}
	return true
}

// restore puts the copy back: what is at the path now goes, and the copy
// is written in its place (a path that was missing stays missing). Only
// once no process of the run is left to race it.
func (s protectSnap) restore() error {
	if err := os.RemoveAll(s.path); err != nil {
		return err
	}
	if s.missing {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	for _, e := range s.entries {
		full := filepath.Join(s.path, e.rel)
		var err error
		switch {
		case e.mode.IsDir():
			err = os.Mkdir(full, e.mode.Perm())
		case e.mode&fs.ModeSymlink != 0:
			err = os.Symlink(string(e.data), full)
		case e.mode.IsRegular():
			err = os.WriteFile(full, e.data, e.mode.Perm())
		default:
			continue // not recreated: a socket, fifo or device
		}
		if err != nil {
			return err
		}
		if e.mode&fs.ModeSymlink == 0 {
			if err := os.Chmod(full, e.mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
				return err
			}
		}
	}
	return nil
}

// protectWatch is the inotify watch over the protected paths for one run.
type protectWatch struct {
	fd      int
	mu      sync.Mutex
	changed []string
	once    sync.Once
}

// The events that change a protected path: in a watched directory, an
// entry made, removed, renamed or changed; on the path, its contents or
// its mode, or the path itself moved or removed.
const protectEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// watchProtectedTrees watches each snapshot's path (its tree when it is a
// directory) and each directory from its writable root down to it, and
// calls onChange, once, at the first event that touches one.
func watchProtectedTrees(snaps []protectSnap, roots []string, onChange func()) (*protectWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	w := &protectWatch{fd: fd}
	names := map[int32]string{} // watch descriptor -> the path it watches
	watch := func(p string, mask uint32) error {
		wd, err := unix.InotifyAddWatch(fd, p, mask|unix.IN_DONT_FOLLOW)
		if err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
				return nil
			}
			return fmt.Errorf("watch %s: %w", p, err)
		}
		names[int32(wd)] = p
		return nil
	}
	for _, s := range snaps {
		root := ""
		for _, r := range roots {
			if s.path == r || strings.HasPrefix(s.path, r+"/") {
				root = r
			}
		}
		// Every directory from the root down to the path's parent: a
		// rename of one moves the path.
		for d := filepath.Dir(s.path); ; d = filepath.Dir(d) {
			if err := watch(d, protectEvents); err != nil {
				unix.Close(fd)
				return nil, err
			}
			if d == root || d == "/" || root == "" {
				break
			}
		}
		for _, e := range s.entries {
			if e.mode.IsDir() || e.rel == "" {
				if err := watch(filepath.Join(s.path, e.rel), protectEvents); err != nil {
					unix.Close(fd)
					return nil, err
				}
			}
		}
	}
	relevant := func(dir, name string) bool {
		p := filepath.Join(dir, name)
		for _, s := range snaps {
			if p == s.path || strings.HasPrefix(p, s.path+"/") || strings.HasPrefix(s.path, p+"/") || dir == s.path || strings.HasPrefix(dir, s.path+"/") {
				return true
			}
		}
		return false
	}
	inside := func(dir string) bool {
		for _, s := range snaps {
			if dir == s.path || strings.HasPrefix(dir, s.path+"/") {
				return true
			}
		}
		return false
	}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if err != nil || n <= 0 {
				if errors.Is(err, unix.EINTR) {
					continue
				}
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
				off += unix.SizeofInotifyEvent + int(ev.Len)
				dir := names[ev.Wd]
				if dir == "" || ev.Mask&unix.IN_IGNORED != 0 {
					continue
				}
				// An event of a directory's own (name "") counts on a
				// protected path or inside one; on an ancestor, only its
				// move or removal does.
				if name == "" {
					if !inside(dir) && ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) == 0 {
						continue
					}
					if !relevant(filepath.Dir(dir), filepath.Base(dir)) {
						continue
					}
				} else if !relevant(dir, name) {
					continue
				}
				w.mu.Lock()
				w.changed = append(w.changed, filepath.Join(dir, name))
				w.mu.Unlock()
				w.once.Do(onChange)
			}
		}
	}()
	return w, nil
}

// stop ends the watch.
func (w *protectWatch) stop() {
	if w != nil {
		unix.Close(w.fd)
	}
}

// checkProtected compares every snapshot with its path and puts back each
// that changed, returning the paths that did (sorted) and the first error
// of a restore.
func checkProtected(snaps []protectSnap) (changed []string, err error) {
	for _, s := range snaps {
		if s.same() {
			continue
		}
		changed = append(changed, s.path)
		if rerr := s.restore(); rerr != nil && err == nil {
			err = fmt.Errorf("restore %s: %w", s.path, rerr)
		}
	}
	slices.Sort(changed)
	return changed, err
}
