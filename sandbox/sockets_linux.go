package sandbox

import (
	"bytes"
	"os"
	"path"
	"slices"
	"syscall"
)

// hostSockets returns the paths of the named unix sockets in this
// process's network namespace, from /proc/net/unix: listening, bound and
// connected ones alike (an accepted connection repeats its listener's
// path). A socket bound in another network namespace is not listed. An
// unreadable list is an empty one: hiding sockets is a narrowing, and no
// spawn is refused for want of it.
func hostSockets() []string {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil
	}
	return unixSocketPaths(b)
}

// unixSocketPaths reads the paths out of /proc/net/unix's text. A path
// with a newline in it reads as two lines, neither of them the socket's
// path, and is missed.
func unixSocketPaths(b []byte) []string {
	var out []string
	for line := range bytes.Lines(b) {
		// "Num: RefCount Protocol Flags Type St Inode Path": the path
		// follows the seventh field and one space, and may hold spaces.
		rest := bytes.TrimRight(line, "\n")
		for range 7 {
			rest = bytes.TrimLeft(rest, " ")
			i := bytes.IndexByte(rest, ' ')
			if i < 0 {
				rest = nil
				break
			}
			rest = rest[i:]
		}
		if len(rest) > 1 && rest[0] == ' ' && rest[1] == '/' {
			out = append(out, string(rest[1:]))
		}
	}
	return out
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
