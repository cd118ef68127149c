package landlock

import (
	"errors"
	"io/fs"
	"os"
)

// OS is the FS of this machine.
type OS struct{}

// Lstat is os.Lstat's kind; a missing path, one below a file, or one
// this process may not look up (a directory it cannot search) is
// KindMissing: the ruleset grants nothing there, and a process of the
// same user, or of a lesser one, cannot reach it either.
func (OS) Lstat(path string) (Kind, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) || errors.Is(err, fs.ErrPermission) {
		return KindMissing, nil
	}
	if err != nil {
		return KindMissing, err
	}
	return kindOf(fi.Mode()), nil
}

// ReadDir lists dir with the kinds its entries' types give. A directory
// this process may not list has no entries to grant.
func (OS) ReadDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(des))
	for i, de := range des {
		out[i] = Entry{Name: de.Name(), Kind: kindOf(de.Type())}
	}
	return out, nil
}

func kindOf(m fs.FileMode) Kind {
	switch {
	case m&fs.ModeSymlink != 0:
		return KindSymlink
	case m.IsDir():
		return KindDir
	}
	return KindFile
}
