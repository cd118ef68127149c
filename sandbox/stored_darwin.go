package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// storedName is the path the file system stores for p, as F_GETPATH
// reports it on a descriptor opened for events only (no read permission
// needed, nothing read); false when p cannot be opened so (a socket).
func storedName(p string) (string, bool) {
	fd, err := unix.Open(p, unix.O_EVTONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	buf := make([]byte, unix.PathMax)
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETPATH, int(uintptr(unsafe.Pointer(&buf[0])))); err != nil {
		return "", false
	}
	n := 0
	for n < len(buf) && buf[n] != 0 {
		n++
	}
	return string(buf[:n]), n > 0
}
