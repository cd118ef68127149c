//go:build linux

package sandbox

// The fixture of the git include attempts (escape_gitinclude_test.go):
// the line that plants a core.fsmonitor.

const fsmonitorPlant = `printf '[core]\n\tfsmonitor = "echo pwned; false"\n' >> `
