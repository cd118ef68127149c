//go:build linux || darwin

package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// fsSpaceOf is statSpace; a test replaces it.
var fsSpaceOf = statSpace

// statSpace says how much room the file system holding dir has, or would
// hold it once made (its nearest existing ancestor's); nil when statfs
// cannot say.
func statSpace(dir string) *fsSpace {
	for d := dir; ; d = filepath.Dir(d) {
		var st unix.Statfs_t
		err := unix.Statfs(d, &st)
		if err == nil {
			return &fsSpace{dir: d, free: uint64(st.Bavail) * uint64(st.Bsize), inodes: uint64(st.Ffree), files: uint64(st.Files)}
		}
		if !errors.Is(err, fs.ErrNotExist) || d == "/" || d == "." {
			return nil
		}
	}
}
