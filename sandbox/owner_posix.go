//go:build linux || darwin

package sandbox

import (
	"io/fs"
	"syscall"
)

// ownerOf is the file's owner, when the platform says.
func ownerOf(fi fs.FileInfo) (uint32, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid, true
	}
	return 0, false
}
