package gen

import (
	"maps"
	"slices"
)

// The refuse section's closed vocabularies. An input is a kind of path (or
// variable) the caller's configuration and environment hand the sandbox;
// a check is one test the runtime applies to it, a small function of
// package sandbox (sandbox/refuse.go) named refuseCheck plus the check's
// words in camel case. Each check names the inputs it can be asked about.

// refuseInputs are the inputs, in the order of the generated bit set.
var refuseInputs = []string{
	"workspace",      // Config.Workspace
	"write-path",     // Config.Write
	"read-path",      // Config.Read
	"hidden-path",    // Config.Hidden
	"default-hidden", // the default hidden set's paths
	"derived-hidden", // the default hidden set's $env: rows, expanded
	"home",           // $HOME and the password database's home
	"cache-dir",      // the caches' root
	"git-pointer",    // where a .git file, commondir or gitdir leads
	"git-file",       // a git file read from a writable root
	"git-dir",        // a writable root's .git
	"protected-path", // a path of the protect section in a writable root
	"cache-made",     // each directory of sandtable's own caches, as made
	"redact-file",    // a file the redact section serves a copy of
	"socket",         // each Config.Sockets entry
	"loader-env",     // LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT in bwrap's environment
}

// refuseCheck is one check kind: what it refuses, as POLICY.md says it,
// and the inputs it applies to.
type refuseCheck struct {
	Name   string
	Says   string
	Inputs []string
}

// refuseChecks are the check kinds, in the order of the generated
// constants.
var refuseChecks = []refuseCheck{
	{"through-writable-link", "resolves through a symlink inside a writable root, which a sandboxed command can re-point between runs",
		[]string{"workspace", "write-path", "read-path", "hidden-path", "default-hidden", "derived-hidden", "home", "cache-dir", "git-pointer", "redact-file", "socket"}},
	{"unreadable-in-writable", "cannot be looked at (permission denied) inside a writable root, which a sandboxed command can make readable again",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "home"}},
	{"is-root", "is, or resolves to, the root directory",
		[]string{"workspace", "write-path", "hidden-path", "derived-hidden", "home"}},
	{"is-workspace", "is, or resolves to, the workspace",
		[]string{"hidden-path"}},
	{"holds-home", "is, or contains, a home directory ($HOME or the password database's)",
		[]string{"workspace", "write-path"}},
	{"second-name", "is a file with more than one name (hard links)",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "redact-file"}},
	{"loader-writable", "an entry leads into a writable root, is expanded by the loader ($ORIGIN, $LIB, $PLATFORM), or has . or .. components",
		[]string{"loader-env"}},
	{"oversized", "is larger than the bound its reader sets",
		[]string{"git-file"}},
	{"is-symlink", "is itself a symlink, which a sandboxed command could have planted, or can re-point",
		[]string{"git-dir", "protected-path", "cache-made"}},
	{"foreign-owner", "is owned by another user than the caller",
		[]string{"cache-made"}},
	{"holds-caret", "holds ^ where the macOS profile must match it by a pattern, in which ^ cannot be written (a bracket cannot hold it alone)",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "home", "protected-path"}},
	{"unfoldable", "does not exist inside a writable root, on macOS (a protected path: lies below one), and holds a character beyond the fold table (a protected path: below that root): APFS takes spellings of it no pattern lists as the same name",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "protected-path"}},
	{"not-clean-absolute", "an environment variable's value is not absolute, or has a .. component: what it names depends on the reader's directory, or on a symlink",
		[]string{"derived-hidden"}},
	{"not-socket", "is not a unix socket",
		[]string{"socket"}},
}

// sortedTempDirs are tempDirs in order: the runtime counts them among
// macOS's writable roots (sandbox/lookpath.go), and POLICY.md lists them.
func sortedTempDirs() []string { return slices.Sorted(maps.Keys(tempDirs)) }

func refuseCheckNamed(name string) (refuseCheck, bool) {
	for _, c := range refuseChecks {
		if c.Name == name {
			return c, true
		}
	}
	return refuseCheck{}, false
}

func refuseCheckNames() []string {
	out := make([]string, len(refuseChecks))
	for i, c := range refuseChecks {
		out[i] = c.Name
	}
	return out
}
