package sandbox

import (
	"path"
	"strconv"
	"strings"
)

// A path the caller names is resolved through symlinks, and a symlink in a
// directory the sandboxed command can write is one it can re-point between
// runs. The next run would then grant, or hide, whatever the link names by
// then: a read grant over a hidden file, a write grant on any host
// directory, a hidden path moved off the secret it was hiding. Such paths
// are refused; the caller can name the link's target itself.

// checkVia refuses p, just resolved by r, when it went through a symlink
// that lies in one of roots.
func checkVia(r *resolver, field, p string, roots []string) error {
	for _, link := range r.via {
		if underAny(path.Dir(link), roots) {
			return badPath(field, p, "resolves through the symlink "+strconv.Quote(link)+
				", which a sandboxed command can write, and so re-point between runs (want the link's target named itself)")
		}
	}
	return nil
}

// checkNotHome refuses a workspace that is the home directory or contains
// it. A sandboxed command could write the shell's startup files there,
// which run unsandboxed at the next login, and rename the directories that
// hold the default hidden paths, which a later run would then not find.
func checkNotHome(r *resolver, orig, ws string) error {
	home, err := homeDir()
	if err != nil || home == "" {
		return nil
	}
	realHome, _, err := r.resolve(home)
	if err != nil {
		return nil // no home: nothing there to protect
	}
	if realHome == ws || strings.HasPrefix(realHome, ws+"/") {
		what := "is the home directory"
		if realHome != ws {
			what = "contains the home directory " + strconv.Quote(realHome)
		}
		return badPath("workspace", orig, what+": a sandboxed command could write ~/.bashrc and the like, "+
			"which run outside the sandbox at the next login (want a project directory under it)")
	}
	return nil
}
