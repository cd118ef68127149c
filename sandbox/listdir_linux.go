package sandbox

import (
	"bytes"
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// maxListing bounds the bytes of entries listDirNames reads from one
// directory (some 2,000 names): past it, a lookup per name is cheaper.
const maxListing = 64 << 10

// listedFS are the file systems whose listing names every entry a lookup
// finds. Others need not: procfs answers lookups of thread ids it does not
// list, autofs mounts what a lookup names.
var listedFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC:      true, // ext2, ext3 and ext4 share it
	unix.XFS_SUPER_MAGIC:       true,
	unix.BTRFS_SUPER_MAGIC:     true,
	unix.TMPFS_MAGIC:           true,
	unix.OVERLAYFS_SUPER_MAGIC: true,
	unix.F2FS_SUPER_MAGIC:      true,
	0x2fc12fc1:                 true, // zfs
}

// dirNames is one listing of a directory: its entries as getdents64(2)
// returned them, searched in place.
type dirNames struct{ buf []byte }

// has reports whether the listing has name.
func (d dirNames) has(name string) bool {
	const nameOff = 19 // d_ino, d_off, d_reclen, d_type
	for b := d.buf; len(b) > nameOff; {
		n := int(binary.NativeEndian.Uint16(b[16:18]))
		if n <= nameOff || n > len(b) {
			return false
		}
		rec := b[nameOff:n]
		if i := bytes.IndexByte(rec, 0); i >= 0 {
			rec = rec[:i]
		}
		if string(rec) == name && name != "." && name != ".." {
			return true
		}
		b = b[n:]
	}
	return false
}

// listDirNames lists dir once; false when dir cannot be listed, is on a
// file system not in listedFS, or holds more than maxListing bytes of
// entries.
func listDirNames(dir string) (dirNames, bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dirNames{}, false
	}
	defer unix.Close(fd)
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || !listedFS[int64(st.Type)] {
		return dirNames{}, false
	}
	buf := make([]byte, 8<<10)
	used := 0
	for {
		// Room for the longest entry (a 255-byte name) at least.
		if len(buf)-used < 512 {
			if len(buf) >= maxListing {
				return dirNames{}, false
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
		n, err := unix.Getdents(fd, buf[used:])
		if err != nil {
			return dirNames{}, false
		}
		if n <= 0 {
			return dirNames{buf[:used]}, true
		}
		used += n
	}
}
