package sandbox

import (
	"encoding/binary"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// readDirents lists dir with getdents64(2) into buf (grown as needed) and
// calls add with each entry's name and type, "." and ".." left out; a
// type the file system does not say is read with lstat. No more than max
// entries are read: past them it returns false, as for a directory it
// cannot read.
func readDirents(dir string, buf *[]byte, max int, add func(name string, typ fs.FileMode)) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if len(*buf) == 0 {
		*buf = make([]byte, 16<<10)
	}
	n := 0
	for {
		k, err := unix.Getdents(fd, *buf)
		if err != nil {
			return false
		}
		if k <= 0 {
			return true
		}
		for b := (*buf)[:k]; len(b) > 19; {
			// d_ino, d_off, d_reclen, d_type, then the name and a NUL.
			rl := int(binary.NativeEndian.Uint16(b[16:18]))
			if rl <= 19 || rl > len(b) {
				return false
			}
			name := b[19:rl]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if s := string(name); s != "." && s != ".." {
				if n++; n > max {
					return false
				}
				add(s, direntType(dir, s, b[18]))
			}
			b = b[rl:]
		}
	}
}

// direntType is the mode type of a d_type, or lstat's for DT_UNKNOWN.
func direntType(dir, name string, t byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	fi, err := os.Lstat(dir + "/" + name)
	if err != nil {
		return fs.ModeIrregular
	}
	return fi.Mode().Type()
}
