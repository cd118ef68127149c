//go:build !linux

package sandbox

// dirNames is never made here.
type dirNames struct{}

func (dirNames) has(string) bool { return false }

// listDirNames lists nothing here: every lookup is its own lstat.
func listDirNames(string) (dirNames, bool) { return dirNames{}, false }
