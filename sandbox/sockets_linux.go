package sandbox

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// hostSockets returns the paths of the named unix sockets in this
// process's network namespace, from /proc/net/unix: listening, bound and
// connected ones alike (an accepted connection repeats its listener's
// path). A socket bound in another network namespace is not listed. A
// socket named as no other process can use its name (placeSockets) is
// found through the process that holds it. An unreadable list is an empty
// one: hiding sockets is a narrowing, and no spawn is refused for want of
// it.
func hostSockets() []string {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil
	}
	paths, unplaced := unixSocketPaths(b)
	return append(paths, placeSockets(unplaced)...)
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
		name := string(rest[1:])
		switch {
		case name[0] == '@':
			// abstract: the network namespace's, not a file
		case name[0] == '/' && !strings.HasPrefix(name, "/proc/"):
			paths = append(paths, name)
		default:
			if unplaced == nil {
				unplaced = map[string]string{}
			}
			unplaced[string(inode)] = name
		}
	}
	return paths, unplaced
}

// maxPlaceLooks bounds the paths placeSockets looks at for one spawn.
const maxPlaceLooks = 1 << 14

// placeSockets finds where the sockets named in unplaced (inode: name)
// may be, as a process that holds one would read its name: a relative name
// under the working directory of each process the caller may look into,
// and /proc/self/fd/N/NAME (or thread-self) under what each one's
// descriptor N names; a name through /proc/PID is read as it resolves
// now. Every candidate that is a socket is returned, whichever process
// holds it: hiding one more is a narrowing, and a socket's holder may have
// forked and moved since. No descriptor table is read, so a process with
// many cannot slow a spawn, and at most maxPlaceLooks candidates are
// looked at. Not found: a socket renamed since its bind, or whose every
// holder has moved on or is another user's, for a caller that is not root
// (README, "Host unix sockets").
func placeSockets(unplaced map[string]string) []string {
	if len(unplaced) == 0 {
		return nil
	}
	var rel, viaFD []string // names under a process's working directory, "N/NAME" under its descriptor N
	var out []string
	seen := map[string]bool{}
	looks := 0
	look := func(p string) {
		p = filepath.Clean(p)
		if seen[p] || looks >= maxPlaceLooks || !filepath.IsAbs(p) || p == "/proc" || strings.HasPrefix(p, "/proc/") {
			return
		}
		seen[p] = true
		looks++
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			out = append(out, p)
		}
	}
	for _, name := range unplaced {
		switch rest, self := cutProcSelf(name); {
		case name[0] != '/':
			rel = append(rel, name)
		case self:
			if fd, tail, ok := strings.Cut(strings.TrimPrefix(rest, "fd/"), "/"); ok && strings.HasPrefix(rest, "fd/") {
				viaFD = append(viaFD, fd+"/"+tail)
			} else if cwdTail, ok := strings.CutPrefix(rest, "cwd/"); ok {
				rel = append(rel, cwdTail)
			}
		default: // /proc/PID/...: that process's, if it lives
			if p, err := filepath.EvalSymlinks(name); err == nil {
				look(p)
			}
		}
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, pe := range procs {
		pid := pe.Name()
		if pid[0] < '0' || pid[0] > '9' || looks >= maxPlaceLooks {
			continue
		}
		if len(rel) > 0 {
			if cwd, err := os.Readlink("/proc/" + pid + "/cwd"); err == nil {
				for _, name := range rel {
					look(cwd + "/" + name)
				}
			}
		}
		for _, v := range viaFD {
			fd, tail, _ := strings.Cut(v, "/")
			if dir, err := os.Readlink("/proc/" + pid + "/fd/" + fd); err == nil {
				look(dir + "/" + tail)
			}
		}
	}
	return out
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
	for d := path.Dir(p); ; d = path.Dir(d) {
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
