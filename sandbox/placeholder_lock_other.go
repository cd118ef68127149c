//go:build !linux

package sandbox

// dirLocks is empty where no placeholder is made (macOS denies by path).
type dirLocks map[string]int

func lockProtectedDirs(*plan) (dirLocks, error) { return nil, nil }

func (l dirLocks) exclusive(string) bool { return false }

func (l dirLocks) release() {}

func markPlaceholder(string) {}

func markedPlaceholder(string) bool { return false }
