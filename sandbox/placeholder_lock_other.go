//go:build !linux

package sandbox

// No placeholder is made where bwrap does not run (macOS denies by path).
type phRun struct{}

func startPlaceholders(*plan, []string) (*phRun, error) { return nil, nil }

func journalDirs(string) []string { return nil }

func (*phRun) spawned() {}

func (*phRun) finish() {}

func repairPlaceholders() {}
