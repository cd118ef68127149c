package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/sandtable/sandtable/internal/netlink"
	"golang.org/x/sys/unix"
)

// unix_diag's request and answer (linux/unix_diag.h): the request's
// family, the states asked for and what to show; the answer's inode, then
// attributes, the name among them.
const (
	unixDiagShowName  = 1 // UDIAG_SHOW_NAME
	unixDiagName      = 0 // UNIX_DIAG_NAME
	sizeofUnixDiagMsg = 16
)

// diagSocketPaths is unixSocketPaths's answer from the kernel's own list
// of this network namespace's unix sockets (NETLINK_SOCK_DIAG, which ss
// -x reads): the same sockets /proc/net/unix shows (TestDiagSocketPaths),
// as binary, so a name with a newline in it is read whole, and at a fifth
// of the text's cost for a thousand sockets. An error (a kernel without
// unix_diag, an answer it cannot read) means the list is not whole.
func diagSocketPaths() (paths []string, unplaced map[string]string, err error) {
	req := make([]byte, 24) // struct unix_diag_req
	req[0] = unix.AF_UNIX
	binary.NativeEndian.PutUint32(req[4:], ^uint32(0)) // every state
	binary.NativeEndian.PutUint32(req[12:], unixDiagShowName)
	err = netlink.Dump(unix.NETLINK_SOCK_DIAG, unix.SOCK_DIAG_BY_FAMILY, req, func(m []byte) error {
		if len(m) < sizeofUnixDiagMsg {
			return errors.New("unix_diag: a short message")
		}
		ino := binary.NativeEndian.Uint32(m[4:])
		for a := m[sizeofUnixDiagMsg:]; len(a) >= unix.SizeofRtAttr; {
			l := int(binary.NativeEndian.Uint16(a))
			if l < unix.SizeofRtAttr || l > len(a) {
				return errors.New("unix_diag: an attribute length out of range")
			}
			if binary.NativeEndian.Uint16(a[2:]) == unixDiagName && l > unix.SizeofRtAttr {
				name := a[unix.SizeofRtAttr:l]
				if name[0] == 0 {
					return nil // abstract: the network namespace's, not a file
				}
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i] // a path's terminating NUL, counted in its length
				}
				inode := ""
				if !isPlacedName(name) {
					inode = strconv.FormatUint(uint64(ino), 10)
				}
				paths, unplaced = placeSocketName(paths, unplaced, string(name), inode)
				return nil
			}
			a = a[min(len(a), (l+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1)):]
		}
		return nil // unnamed
	})
	return paths, unplaced, err
}
