//go:build !linux

package sandbox

import (
	"io/fs"
	"os"
	"strings"
)

// dirLister lists directories with os.File.ReadDir, which on macOS takes
// each entry's type from the listing.
type dirLister struct{}

func newDirLister() *dirLister { return &dirLister{} }

// list calls fn for each entry of dir, up to max of them, and returns how
// many it read and whether that was all. APFS finds .GIT as .git, so the
// names the walk looks for are matched in any case.
func (l *dirLister) list(dir string, max int, fn func(name string, kind dirEntryKind)) (int, bool) {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return 0, true
	}
	f, err := os.Open(dir)
	if err != nil {
		return 0, true
	}
	defer f.Close()
	count := 0
	for {
		ents, err := f.ReadDir(256)
		for _, e := range ents {
			if count >= max {
				return count, false
			}
			count++
			kind := entryOther
			switch t := e.Type(); {
			case t.IsDir():
				kind = entryDir
			case t.IsRegular():
				kind = entryFile
			case t&fs.ModeType == 0:
				kind = entryUnknown
			default:
				continue
			}
			name := e.Name()
			for _, want := range []string{".git", "HEAD", "objects", "refs"} {
				if strings.EqualFold(name, want) {
					name = want
				}
			}
			fn(name, kind)
		}
		if err != nil || len(ents) == 0 {
			return count, true
		}
	}
}
