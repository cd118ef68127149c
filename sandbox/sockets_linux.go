package sandbox

import (
	"bytes"
	"cmp"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// hostSockets returns the paths of the named unix sockets in this
// process's network namespace, from the kernel's list (diagSocketPaths;
// /proc/net/unix on a kernel without it): listening, bound and
// connected ones alike (an accepted connection repeats its listener's
// path). A socket bound in another network namespace is not listed. A
// socket named as no other process can use its name (placeSockets) is
// found through the process that holds it. An unreadable list is an empty
// one: hiding sockets is a narrowing, and no spawn is refused for want of
// it.
func hostSockets() []string {
	paths, unplaced, err := diagSocketPaths()
	if err != nil {
		b, err := readProcFile("/proc/net/unix")
		if err != nil {
			return nil
		}
		paths, unplaced = unixSocketPaths(b)
	}
	return append(paths, placeSockets(unplaced)...)
}

// readProcFile is os.ReadFile for a file of procfs, whose size says 0:
// reads into a buffer of 16 KiB, doubled when full, not one grown from 512
// bytes, so that a list of thousands of sockets is read in a few calls
// and a host's usual few dozen cost one 16 KiB buffer.
func readProcFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, 16<<10)
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, cap(b))
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF || n == 0 && err == nil {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// unixSocketPaths reads the paths out of /proc/net/unix's text, and, by
// socket inode, the names that are no path in this process: a relative
// name (bound from its binder's working directory, as Go's
// net.Listen("unix", "x.sock") does) or one through /proc (its binder's
// descriptor of a directory, /proc/self/fd/N/NAME, the way around the
// length limit of a socket's path). A path with a newline in it reads as
// two lines, neither of them the socket's path, and is missed.
func unixSocketPaths(b []byte) (paths []string, unplaced map[string]string) {
	for line := range bytes.Lines(b) {
		// "Num: RefCount Protocol Flags Type St Inode Path": the path
		// follows the seventh field and one space, and may hold spaces.
		rest := bytes.TrimRight(line, "\n")
		var inode []byte
		for range 7 {
			rest = bytes.TrimLeft(rest, " ")
			i := bytes.IndexByte(rest, ' ')
			if i < 0 {
				rest = nil
				break
			}
			inode, rest = rest[:i], rest[i:]
		}
		if len(rest) < 2 || rest[0] != ' ' || len(inode) == 0 || bytes.ContainsFunc(inode, func(r rune) bool { return r < '0' || r > '9' }) {
			continue // no name, or the heading
		}
		if rest[1] == '@' {
			continue // abstract: the network namespace's, not a file
		}
		paths, unplaced = placeSocketName(paths, unplaced, string(rest[1:]), string(inode))
	}
	return paths, unplaced
}

// isPlacedName reports whether a socket's name is a path in this process:
// absolute, and not through /proc.
func isPlacedName(name []byte) bool {
	return name[0] == '/' && !bytes.HasPrefix(name, []byte("/proc/"))
}

// placeSocketName adds a named socket's name to paths when it is a path in
// this process, or to unplaced by its inode when it is not (relative, or
// through /proc).
func placeSocketName(paths []string, unplaced map[string]string, name, inode string) ([]string, map[string]string) {
	if isPlacedName([]byte(name)) {
		return append(paths, name), unplaced
	}
	if unplaced == nil {
		unplaced = map[string]string{}
	}
	unplaced[inode] = name
	return paths, unplaced
}

// The bounds of placeSockets for one spawn: the names of more than one
// component it looks at in a directory, and the directory entries it
// reads (of the directories it looks in, and of the processes' descriptor
// tables).
const (
	maxPlaceNested  = 64
	maxPlaceEntries = 1 << 18
)

// placeSockets finds where the sockets named in unplaced (inode: name)
// may be, as a process that holds one would read its name: a relative name
// under the working directory of each process the caller may look into,
// and /proc/self/fd/N/NAME (or thread-self) under what each one's
// descriptor N names; a name through /proc/PID is read as it resolves now.
// Every socket found so is returned, whichever process holds it: hiding
// one more is a narrowing, and a socket's holder may have forked and moved
// since. Each directory met is listed once and every name looked up in
// that listing, and a descriptor table is listed, not read link by link,
// so neither the number of names nor a process's descriptors multiply the
// work; processes are read in pid order, a service before what was
// started after it, and the bounds above stop a flood. Not found: a
// socket renamed since its bind, or whose every holder has moved on or is
// another user's, for a caller that is not root (docs/filesystem.md,
// "Host unix sockets").
func placeSockets(unplaced map[string]string) []string {
	if len(unplaced) == 0 {
		return nil
	}
	rel := map[string]bool{}              // names under a working directory
	viaFD := map[string]map[string]bool{} // names under descriptor N, by N
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = filepath.Clean(p)
		if seen[p] || !filepath.IsAbs(p) || p == "/proc" || strings.HasPrefix(p, "/proc/") {
			return
		}
		seen[p] = true
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			out = append(out, p)
		}
	}
	for _, name := range unplaced {
		switch rest, self := cutProcSelf(name); {
		case name[0] != '/':
			rel[name] = true
		case self:
			if fd, tail, ok := strings.Cut(strings.TrimPrefix(rest, "fd/"), "/"); ok && strings.HasPrefix(rest, "fd/") && fd != "" && strings.Trim(fd, "0123456789") == "" {
				if viaFD[fd] == nil {
					viaFD[fd] = map[string]bool{}
				}
				viaFD[fd][tail] = true
			} else if tail, ok := strings.CutPrefix(rest, "cwd/"); ok {
				rel[tail] = true
			}
		default: // /proc/PID/...: that process's, if it lives
			if p, err := filepath.EvalSymlinks(name); err == nil {
				add(p)
			}
		}
	}
	procs, err := os.ReadDir("/proc") // sorted: pids in order of their digits' count, then value
	if err != nil {
		return out
	}
	slices.SortStableFunc(procs, func(a, b os.DirEntry) int { return cmp.Compare(len(a.Name()), len(b.Name())) })
	listed := map[string]bool{}
	budget := maxPlaceEntries
	look := func(via, dir string, names map[string]bool) {
		if !listed[via+"\x00"+dir] { // its names, in that directory
			listed[via+"\x00"+dir] = true
			budget = placeIn(dir, names, budget, add)
		}
	}
	for _, pe := range procs {
		pid := pe.Name()
		if pid[0] < '0' || pid[0] > '9' || budget <= 0 {
			continue
		}
		if len(rel) > 0 {
			if dir, err := os.Readlink("/proc/" + pid + "/cwd"); err == nil {
				look("cwd", dir, rel)
			}
		}
		if len(viaFD) == 0 {
			continue
		}
		f, err := os.Open("/proc/" + pid + "/fd")
		if err != nil {
			continue
		}
		for budget > 0 {
			fds, err := f.Readdirnames(min(budget, 1024))
			budget -= len(fds)
			for _, fd := range fds {
				if names := viaFD[fd]; names != nil {
					if dir, err := os.Readlink("/proc/" + pid + "/fd/" + fd); err == nil {
						look("fd/"+fd, dir, names)
					}
				}
			}
			if err != nil || len(fds) == 0 {
				break
			}
		}
		f.Close()
	}
	return out
}

// placeIn looks for names in dir: a name of one component in dir's
// listing, read once and at most budget entries of it; a name of more, up
// to maxPlaceNested, directly. It returns what is left of budget.
func placeIn(dir string, names map[string]bool, budget int, add func(string)) int {
	nested := 0
	for name := range names {
		if strings.Contains(name, "/") && nested < maxPlaceNested {
			nested++
			add(dir + "/" + name)
		}
	}
	f, err := os.Open(dir)
	if err != nil {
		return budget
	}
	defer f.Close()
	for budget > 0 {
		ents, err := f.ReadDir(min(budget, 1024))
		for _, e := range ents {
			if names[e.Name()] { // add looks: a file system may not say an entry's type
				add(dir + "/" + e.Name())
			}
		}
		budget -= len(ents)
		if err != nil || len(ents) == 0 {
			break
		}
	}
	return budget
}

// cutProcSelf cuts /proc/self/ or /proc/thread-self/ off name.
func cutProcSelf(name string) (rest string, ok bool) {
	if rest, ok := strings.CutPrefix(name, "/proc/self/"); ok {
		return rest, true
	}
	return strings.CutPrefix(name, "/proc/thread-self/")
}

// identity is whose permissions bwrap works with when it mounts: the
// calling process's, without capabilities (in its user namespace a root
// caller's bypass does not reach inodes of unmapped owners).
type identity struct {
	uid  uint32
	gids []uint32
}

// socketIdentity is the identity the host's sockets are checked for; tests
// whose bwrap runs under other credentials set it for the duration.
var socketIdentity = func() identity {
	id := identity{uid: uint32(os.Geteuid()), gids: []uint32{uint32(os.Getegid())}}
	if gs, err := os.Getgroups(); err == nil {
		for _, g := range gs {
			id.gids = append(id.gids, uint32(g))
		}
	}
	return id
}

// searchable reports whether every directory above p can be searched by
// id by its mode bits alone: bwrap has to reach p to mount over it, and
// fails the spawn when it cannot. A socket it cannot reach, the command
// cannot reach either. shared reports a world-writable sticky directory
// among them (/var/tmp).
func searchable(r *resolver, p string, id identity) (ok, shared bool) {
	for d := parentDir(p); ; d = parentDir(d) {
		fi, err := r.lstat(d)
		if err != nil || !fi.IsDir() {
			return false, shared
		}
		st, isStat := fi.Sys().(*syscall.Stat_t)
		if !isStat {
			return false, shared
		}
		if st.Mode&(syscall.S_ISVTX|0o002) == syscall.S_ISVTX|0o002 {
			shared = true
		}
		var bit uint32
		switch {
		case st.Uid == id.uid:
			bit = 0o100
		case slices.Contains(id.gids, st.Gid):
			bit = 0o010
		default:
			bit = 0o001
		}
		if st.Mode&bit == 0 {
			return false, shared
		}
		if d == "/" {
			return true, shared
		}
	}
}

// listable reports whether id may list and search the directory fi by its
// mode bits alone, as searchable reads them.
func listable(fi fs.FileInfo, id identity) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	var bits uint32
	switch {
	case st.Uid == id.uid:
		bits = 0o500
	case slices.Contains(id.gids, st.Gid):
		bits = 0o050
	default:
		bits = 0o005
	}
	return st.Mode&bits == bits
}
