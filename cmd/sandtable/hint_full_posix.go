//go:build linux || darwin

package main

import (
	"errors"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// fsFree is statfs(2) of dir, or of its nearest existing ancestor: the
// bytes and inodes free to an unprivileged writer, and the inode count
// (0 for a file system that keeps none).
func fsFree(dir string) (at string, free, inodes, files uint64, ok bool) {
	for d := dir; ; d = filepath.Dir(d) {
		var st unix.Statfs_t
		err := unix.Statfs(d, &st)
		if err == nil {
			return d, uint64(st.Bavail) * uint64(st.Bsize), uint64(st.Ffree), uint64(st.Files), true
		}
		if !errors.Is(err, fs.ErrNotExist) || d == "/" || d == "." {
			return "", 0, 0, 0, false
		}
	}
}
