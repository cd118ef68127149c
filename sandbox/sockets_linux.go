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

// placeSockets finds where the sockets of unplaced (inode: name) are: it
// looks for a process holding each (a descriptor "socket:[INODE]" in
// /proc/PID/fd) and reads the name as that process would, against its
// working directory or its /proc; what resolves to a path outside /proc
// is returned. A socket the caller may not see the holder of (another
// user's, for an unprivileged caller), whose holder has moved since it
// bound (another working directory, the descriptor closed), or that was
// renamed is not found: README, "Host unix sockets".
func placeSockets(unplaced map[string]string) []string {
	if len(unplaced) == 0 {
		return nil
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, pe := range procs {
		pid := pe.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		fds, err := os.ReadDir("/proc/" + pid + "/fd")
		if err != nil {
			continue
		}
		for _, fe := range fds {
			link, err := os.Readlink("/proc/" + pid + "/fd/" + fe.Name())
			inode, ok := strings.CutPrefix(link, "socket:[")
			if err != nil || !ok {
				continue
			}
			inode = strings.TrimSuffix(inode, "]")
			name, ok := unplaced[inode]
			if !ok {
				continue
			}
			delete(unplaced, inode)
			if p, ok := placeSocket(pid, name); ok {
				out = append(out, p)
			}
			if len(unplaced) == 0 {
				return out
			}
		}
	}
	return out
}

// placeSocket reads name, a socket's name as process pid bound it, as
// that process would now, and returns the path it resolves to.
func placeSocket(pid, name string) (string, bool) {
	via := name
	switch {
	case name[0] != '/':
		via = "/proc/" + pid + "/cwd/" + name
	case strings.HasPrefix(name, "/proc/self/"):
		via = "/proc/" + pid + "/" + strings.TrimPrefix(name, "/proc/self/")
	case strings.HasPrefix(name, "/proc/thread-self/"):
		via = "/proc/" + pid + "/" + strings.TrimPrefix(name, "/proc/thread-self/")
	}
	p, err := filepath.EvalSymlinks(via)
	if err != nil || !filepath.IsAbs(p) || p == "/proc" || strings.HasPrefix(p, "/proc/") {
		return "", false
	}
	return p, true
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
