// Package cmdlookup finds a command the way execvp(3) will inside the
// sandbox: the name itself when it has a slash, else each entry of PATH in
// turn (execvp's default /bin:/usr/bin when PATH is unset), a relative
// entry or name being taken from the command's directory. It is the one
// lookup the sandbox (to explain a failed exec) and the sandtable command
// (to decide 127 or 126 before anything is spawned) share.
package cmdlookup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Verdict is what the lookup found.
type Verdict uint8

const (
	Found     Verdict = iota // a candidate the command can execute
	NotFound                 // no candidate exists where the sandbox shows it (a shell's 127)
	CannotRun                // one exists but cannot be executed (a shell's 126)
)

// DefaultPath is execvp's search path when PATH is unset.
const DefaultPath = "/bin:/usr/bin"

// SearchPath is env's PATH as exec reads it (the last entry wins), or
// [DefaultPath].
func SearchPath(env []string) string {
	path := DefaultPath
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return path
}

// Find looks name up from dir with env's PATH on this file system, where
// sees says the sandbox shows a path (not its private /tmp, nor a hidden
// directory). why is the reason, as a shell says it: for a name with a
// slash, that file's ("no such file or directory", "permission denied",
// "is a directory"); on PATH, "command not found" or "permission denied".
func Find(name, dir string, env []string, sees func(string) bool) (v Verdict, why string) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return check(p, sees)
	}
	denied := false
	for _, d := range filepath.SplitList(SearchPath(env)) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		switch v, _ := check(filepath.Join(d, name), sees); v {
		case Found:
			return Found, ""
		case CannotRun:
			denied = true
		}
	}
	if denied {
		return CannotRun, "permission denied"
	}
	return NotFound, "command not found"
}

// check says whether p can be executed, and why not.
func check(p string, sees func(string) bool) (Verdict, string) {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err == nil && !sees(filepath.Clean(p)):
		return NotFound, "no such file or directory"
	case err != nil:
		return CannotRun, "permission denied"
	case fi.IsDir():
		return CannotRun, "is a directory"
	case !mayExecute(p):
		return CannotRun, "permission denied"
	}
	return Found, ""
}
