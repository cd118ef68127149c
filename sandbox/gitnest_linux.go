package sandbox

import (
	"bytes"
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// dirLister lists directories with getdents64(2) into one buffer, reused:
// no stat per entry, and no allocation but the names of directories.
type dirLister struct{ buf []byte }

func newDirLister() *dirLister { return &dirLister{buf: make([]byte, 32<<10)} }

// list calls fn for each entry of dir but . and .., up to max of them,
// and returns how many it read and whether that was all; a directory it
// cannot open (or a symlink) lists nothing, whole.
func (l *dirLister) list(dir string, max int, fn func(name string, kind dirEntryKind)) (int, bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return 0, true
	}
	defer unix.Close(fd)
	const nameOff = 19 // d_ino, d_off, d_reclen, d_type
	count := 0
	for {
		n, err := unix.Getdents(fd, l.buf)
		if err != nil || n <= 0 {
			return count, true
		}
		for b := l.buf[:n]; len(b) > nameOff; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen <= nameOff || reclen > len(b) {
				break
			}
			typ, name := b[18], b[nameOff:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			if count >= max {
				return count, false
			}
			count++
			kind := entryOther
			switch typ {
			case unix.DT_DIR:
				kind = entryDir
			case unix.DT_REG:
				kind = entryFile
			case unix.DT_UNKNOWN:
				kind = entryUnknown
			default:
				continue // a link, a socket, a device: nothing to look at
			}
			if kind == entryFile && !gitNameOfInterest(name) {
				continue
			}
			fn(string(name), kind)
		}
	}
}

// gitNameOfInterest reports whether a file of this name tells the walk
// anything (a .git file, a bare repository's HEAD).
func gitNameOfInterest(name []byte) bool {
	return string(name) == ".git" || string(name) == "HEAD"
}
