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
	"bwrap-argv",     // the arguments bwrap is given, the command's included
	"memory-limit",   // Config.Limits.Memory, when set
}

// refuseCheck is one check kind: what it refuses, as POLICY.md says it,
// and the inputs it applies to. A bounded check compares a number of its
// input with its row's bound, in Unit: the row must have one, and a row of
// any other check must not. Max says the bound is a maximum (a higher one
// lets more through), else a minimum.
type refuseCheck struct {
	Name   string
	Says   string
	Inputs []string
	Unit   string // "", or arguments, bytes or inodes
	Max    bool
}

// refuseChecks are the check kinds, in the order of the generated
// constants.
var refuseChecks = []refuseCheck{
	{"through-writable-link", "resolves through a symlink inside a writable root, which a sandboxed command can re-point between runs",
		[]string{"workspace", "write-path", "read-path", "hidden-path", "default-hidden", "derived-hidden", "home", "cache-dir", "git-pointer", "redact-file", "socket"}, "", false},
	{"unreadable-in-writable", "cannot be looked at (permission denied) inside a writable root, which a sandboxed command can make readable again",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "home"}, "", false},
	{"is-root", "is, or resolves to, the root directory",
		[]string{"workspace", "write-path", "hidden-path", "derived-hidden", "home"}, "", false},
	{"is-workspace", "is, or resolves to, the workspace",
		[]string{"hidden-path"}, "", false},
	{"holds-home", "is, or contains, a home directory ($HOME or the password database's)",
		[]string{"workspace", "write-path"}, "", false},
	{"second-name", "is a file with more than one name (hard links)",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "redact-file"}, "", false},
	{"loader-writable", "an entry leads into a writable root, is expanded by the loader ($ORIGIN, $LIB, $PLATFORM), or has . or .. components",
		[]string{"loader-env"}, "", false},
	{"oversized", "is larger than the bound its reader sets",
		[]string{"git-file"}, "", false},
	{"is-symlink", "is itself a symlink, which a sandboxed command could have planted, or can re-point",
		[]string{"git-dir", "protected-path", "cache-made"}, "", false},
	{"foreign-owner", "is owned by another user than the caller",
		[]string{"cache-made"}, "", false},
	{"holds-caret", "holds ^ where the macOS profile must match it by a pattern, in which ^ cannot be written (a bracket cannot hold it alone)",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "home", "protected-path"}, "", false},
	{"unfoldable", "does not exist inside a writable root, on macOS (a protected path: lies below one), and holds a character beyond the fold table (a protected path: below that root): APFS takes spellings of it no pattern lists as the same name",
		[]string{"hidden-path", "default-hidden", "derived-hidden", "protected-path"}, "", false},
	{"not-clean-absolute", "an environment variable's value is not absolute, or has a .. component: what it names depends on the reader's directory, or on a symlink",
		[]string{"derived-hidden"}, "", false},
	{"not-socket", "is not a unix socket",
		[]string{"socket"}, "", false},
	{"in-cache-root", "is, or lies inside, a cache root of sandtable's ($XDG_CACHE_HOME/sandtable/caches, ~/.cache/sandtable/caches), which holds every workspace's caches",
		[]string{"workspace", "write-path", "read-path"}, "", false},
	{"too-many", "has more entries than the bound",
		[]string{"bwrap-argv"}, "arguments", true},
	{"below-bound", "is set below the bound",
		[]string{"memory-limit"}, "bytes", false},
	{"little-space", "lies on a file system with less space free to the caller than the bound",
		[]string{"cache-dir"}, "bytes", false},
	{"few-inodes", "lies on a file system with fewer free inodes than the bound (one with no inode count passes)",
		[]string{"cache-dir"}, "inodes", false},
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
