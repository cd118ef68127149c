package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// maxDirNames bounds the names readDir returns from one directory.
const maxDirNames = 256

// readDir lists up to maxDirNames names in dir, sorted; nothing when dir
// cannot be read.
func (r *resolver) readDir(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxDirNames)
	slices.Sort(names)
	return names
}

// errTooLarge is readSmall's answer for a file over its bound.
var errTooLarge = errors.New("too large")

// readSmall reads the regular file p, which must not be a symlink, and
// at most max+1 bytes of it: it is a file a sandboxed command could have
// written, read by the host. The refuse rows (check oversized) refuse
// one over max (gitFinder.read).
func readSmall(p string, max int64) ([]byte, error) {
	f, err := openNoFollow(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	return data, nil
}
