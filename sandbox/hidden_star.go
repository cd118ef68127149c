package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"slices"
	"strings"
	"syscall"
)

// maxStarNames bounds the names one * of a default-hidden row stands for:
// a directory with more is refused (fail closed), never partly hidden.
const maxStarNames = 256

// homeRows yields each default-hidden row with its index in defaultHidden,
// a $home row whose path has a * component once per name in the directory
// the * stands in (read once, at spawn time, sorted), with the name in
// place of the *; each such row is then hidden, checked and refused like
// any other. A missing directory, or one that is not a directory, yields
// nothing for the row. Another error reading it, or more than
// maxStarNames names, stops the walk with *errp set.
func homeRows(r *resolver, realHome string, errp *error) iter.Seq2[int, defaultHiddenPath] {
	return func(yield func(int, defaultHiddenPath) bool) {
		for i, d := range defaultHidden {
			before, after, star := strings.Cut(d.path, "/*/")
			if !star || !d.underHome {
				if !yield(i, d) {
					return
				}
				continue
			}
			if realHome == "" {
				continue
			}
			names, err := starNames(r, realHome, before)
			if err != nil {
				*errp = err
				return
			}
			for _, name := range names {
				e := d
				e.path = before + "/" + name + "/" + after
				if !yield(i, e) {
					return
				}
			}
		}
	}
}

// starNames lists the directory rel (relative to the resolved home),
// sorted: nothing when it is missing or not a directory.
func starNames(r *resolver, realHome, rel string) ([]string, error) {
	const field = "default hidden path"
	dir, fi, err := r.resolveUnder(realHome, rel)
	if err != nil {
		if isMissing(err) {
			return nil, nil
		}
		return nil, fsPathError(field, realHome+"/"+rel+"/*", err)
	}
	if !fi.IsDir() {
		return nil, nil
	}
	// A directory this process may pass but not list is refused, not
	// skipped: the command could still open a name it guesses.
	f, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, fsPathError(field, dir+"/*", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(maxStarNames + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fsPathError(field, dir+"/*", err)
	}
	if len(names) > maxStarNames {
		return nil, badPath(field, dir+"/*", fmt.Sprintf("the * stands for more than %d names (want at most %d, or the row revealed)", maxStarNames, maxStarNames))
	}
	slices.Sort(names)
	return names, nil
}
