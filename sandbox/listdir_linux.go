package sandbox

import "golang.org/x/sys/unix"

// maxListed bounds the names listDirNames reads from one directory: past it,
// a lookup per name is cheaper than the listing.
const maxListed = 4096

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

// listDirNames returns the names in dir, from one listing; false when dir
// cannot be listed, is on a file system not in listedFS, or holds more
// than maxListed names.
func listDirNames(dir string) (map[string]struct{}, bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || !listedFS[int64(st.Type)] {
		return nil, false
	}
	var buf [8192]byte
	var names []string
	for {
		n, err := unix.Getdents(fd, buf[:])
		if err != nil {
			return nil, false
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
		if len(names) > maxListed {
			return nil, false
		}
	}
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return set, true
}
