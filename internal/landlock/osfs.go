package landlock

import (
	"errors"
	"io/fs"
	"os"
)

// OS is the FS of this machine.
type OS struct{}

// Lstat is os.Lstat's kind; a missing path (or a parent that is not a
// directory) is KindMissing.
func (OS) Lstat(path string) (Kind, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
		return KindMissing, nil
	}
	if err != nil {
		return KindMissing, err
	}
	return kindOf(fi.Mode()), nil
}

// ReadDir lists dir with the kinds its entries' types give.
func (OS) ReadDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
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
