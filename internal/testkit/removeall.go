package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveAll is os.RemoveAll for a tree that may hold directories without
// write permission, as Go's module cache makes them: each directory is
// made writable first, so a caller that is not root removes the tree too.
func RemoveAll(dir string) error {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
