package sandbox

import (
	"bytes"
	"encoding/binary"
	"unsafe"

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
	// Not zfs: a dataset may be case-insensitive or normalize names
	// (casesensitivity, normalization), which nothing here can see.
}

// fsCasefoldFL is FS_CASEFOLD_FL, a case-insensitive directory (chattr +F).
const fsCasefoldFL = 0x40000000

// xfsGeometryV1 and xfsCI are XFS_IOC_FSGEOMETRY_V1 (its struct is 112
// bytes, flags at 92) and XFS_FSOP_GEOM_FLAGS_DIRV2CI.
const (
	xfsGeometryV1 = 0x80705864
	xfsFlagsOff   = 92
	xfsCI         = 0x1000
)

// foldsCase reports whether the directory fd may find a name under
// another spelling than the one it lists (.ssh as .SSH), or cannot tell:
// a casefolded directory (ext4, f2fs, tmpfs, and overlay over them), or
// an XFS made ASCII case-insensitive (mkfs.xfs -n version=ci).
func foldsCase(fd int, fsType int64) bool {
	if fsType == unix.XFS_SUPER_MAGIC {
		var geo [112]byte
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), xfsGeometryV1, uintptr(unsafe.Pointer(&geo[0]))); e != 0 ||
			binary.NativeEndian.Uint32(geo[xfsFlagsOff:])&xfsCI != 0 {
			return true
		}
	}
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	return err != nil || flags&fsCasefoldFL != 0
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
// file system not in listedFS, may find names under another spelling
// (foldsCase), or holds more than maxListing bytes of entries.
func listDirNames(dir string) (dirNames, bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dirNames{}, false
	}
	defer unix.Close(fd)
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || !listedFS[int64(st.Type)] || foldsCase(fd, int64(st.Type)) {
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
