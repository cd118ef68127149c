package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
)

// A path the caller names is resolved through symlinks, and a symlink in a
// directory the sandboxed command can write is one it can re-point between
// runs. The next run would then grant, or hide, whatever the link names by
// then: a read grant over a hidden file, a write grant on any host
// directory, a hidden path moved off the secret it was hiding. Such paths
// are refused; the caller can name the link's target itself.

// within reports whether p, a symlink-free path, is one of roots or lies
// inside one, by name or, for a root the host also shows elsewhere (a bind
// mount), by identity: some directory on p's way down is the root itself.
func (r *resolver) within(p string, roots []string) bool {
	if underAny(p, roots) {
		return true
	}
	// Through a bind mount of a root or of a directory inside one: the
	// same file system, at or below the root's place in it.
	if dev, in, ok := r.fsPlace(p); ok {
		for _, root := range roots {
			if rdev, rin, ok := r.fsPlace(root); ok && dev == rdev && (in == rin || strings.HasPrefix(in, rin+"/") || rin == "/") {
				return true
			}
		}
	}
	// And by identity, where the mount table cannot say (macOS) or says
	// nothing: some directory on p's way down is the root itself. The
	// root directory is never a writable root (checkConfig refuses it), so
	// the walk stops below it.
	for a := p; a != "/"; a = path.Dir(a) {
		if fa, err := r.lstat(a); err == nil && fa.IsDir() {
			for _, root := range roots {
				if fr, err := r.lstat(root); err == nil && os.SameFile(fa, fr) {
					return true
				}
			}
		}
	}
	return false
}

// plantable returns a symlink the last resolve went through that lies in
// one of roots, or "".
func (r *resolver) plantable(roots []string) string {
	for _, link := range r.via {
		if r.within(path.Dir(link), roots) {
			return link
		}
	}
	return ""
}

// checkVia refuses p, just resolved by r, when it went through a symlink
// that lies in one of roots.
func checkVia(r *resolver, field, p string, roots []string) error {
	if link := r.plantable(roots); link != "" {
		want := "the link's target named itself"
		switch field {
		case "home":
			want = "HOME set to the link's target"
		case "default hidden path":
			want = "the link replaced by what it points to"
		}
		return badPath(field, p, "resolves through the symlink "+strconv.Quote(link)+
			", which a sandboxed command can write, and so re-point between runs (want "+want+")")
	}
	return nil
}

// checkHomes refuses a workspace or write path that is a home directory or
// contains one ($HOME, and the password database's entry for this user,
// which the shell uses whatever HOME says), and a $HOME reached through a
// link the sandbox could re-point. A sandboxed command could write the
// shell's startup files, which run unsandboxed at the next login, or move
// the default hidden paths out from under a later run.
func checkHomes(r *resolver, cfg Config, p *plan, roots []string) error {
	home, err := homeDir()
	if err != nil {
		return nil // hiddenFacts reports it
	}
	homes := []string{home, ownPasswdHome()}
	for i, h := range homes {
		if h == "" || (i > 0 && h == homes[0]) {
			continue
		}
		// A home that does not exist yet counts where it would be: the
		// sandbox could create it, and its startup files with it.
		realHome, _, err := r.resolve(h)
		if err != nil && !isMissing(err) {
			continue
		}
		if err := checkVia(r, "home", h, roots); err != nil {
			return err
		}
		grants := append([]string{cfg.Workspace}, cfg.Write...)
		reals := []string{p.workspace}
		for _, f := range p.write {
			reals = append(reals, f.path)
		}
		for k, g := range reals {
			if !r.within(realHome, []string{g}) {
				continue
			}
			field, what := "workspace", "is the home directory"
			if k > 0 {
				field = "write path"
			}
			if realHome != g {
				what = "contains the home directory " + strconv.Quote(realHome)
			}
			return badPath(field, grants[k], what+": a sandboxed command could write ~/.bashrc and the like, "+
				"which run outside the sandbox at the next login (want a directory under it)")
		}
	}
	return nil
}

// ownPasswdHome is this process's home in the password database, asked once:
// it may cost a getent(1) run.
var ownPasswdHome = sync.OnceValue(func() string { return passwdHome(os.Getuid()) })

// checkUnlocked refuses a hidden path (or the home that holds the default
// ones) that this process may not look at, err being its lookup's
// EACCES, when it lies where the sandbox can write. Such a path is one the
// child cannot see either, for now: but it can chmod its way back in, in
// this run or, once the spawn has hidden nothing there, in the next.
func checkUnlocked(r *resolver, err error, field, p, real string, roots []string) error {
	if !errors.Is(err, fs.ErrPermission) || !r.within(real, roots) {
		return nil
	}
	return badPath(field, p, "cannot be looked at (permission denied) where a sandboxed command can write, "+
		"so it could make it readable again (want its directory's permissions restored)")
}
