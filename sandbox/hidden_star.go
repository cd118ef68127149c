package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path"
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
			before, after, star := strings.Cut("/"+d.path, "/*/")
			if !star || !d.underHome {
				if !yield(i, d) {
					return
				}
				continue
			}
			if realHome == "" {
				continue
			}
			names, err := starNames(r, realHome, strings.TrimPrefix(before, "/"))
			if err != nil {
				*errp = err
				return
			}
			for _, name := range names {
				e := d
				e.path = strings.TrimPrefix(before+"/"+name+"/"+after, "/")
				if !yield(i, e) {
					return
				}
			}
		}
	}
}

// starNames lists the directory rel (relative to base, a resolved
// directory such as the home, or /), sorted: nothing when it is missing or
// not a directory.
func starNames(r *resolver, base, rel string) ([]string, error) {
	const field = "default hidden path"
	dir, fi, err := r.resolveUnder(base, rel)
	if err != nil {
		if isMissing(err) {
			return nil, nil
		}
		return nil, fsPathError(field, path.Join(base, rel)+"/*", err)
	}
	if fi != nil && !fi.IsDir() { // nil: rel is empty, base itself
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

// expandDerivedStars replaces each derived path with a * component (from
// a $env:NAME/REL row) by one path per name in the directory the * stands
// in, as homeRows does for $home rows; derived comes back as it is when
// none has a *.
func expandDerivedStars(r *resolver, derived []derivedPath) ([]derivedPath, error) {
	if !slices.ContainsFunc(derived, func(d derivedPath) bool { return strings.Contains(d.path, "/*/") }) {
		return derived, nil
	}
	out := make([]derivedPath, 0, len(derived))
	for _, d := range derived {
		before, after, star := strings.Cut(d.path, "/*/")
		if !star || d.revealed {
			out = append(out, d)
			continue
		}
		names, err := starNames(r, "/", strings.TrimPrefix(before, "/"))
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			e := d
			e.path = before + "/" + name + "/" + after
			out = append(out, e)
		}
	}
	return out, nil
}
