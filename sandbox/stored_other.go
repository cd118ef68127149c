//go:build !darwin

package sandbox

// storedName reports nothing here: only a Mac's profile denies a path by
// the spelling its file system stores.
func storedName(string) (string, bool) { return "", false }
