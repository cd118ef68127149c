package sandbox

import (
	"os"
	"path"
	"strings"
	"sync"
)

// A path the caller names is resolved through symlinks, and a symlink in a
// directory the sandboxed command can write is one it can re-point between
// runs. The next run would then grant, or hide, whatever the link names by
// then: a read grant over a hidden file, a write grant on any host
// directory, a hidden path moved off the secret it was hiding. Such paths
// are refused (refuse rows of check through-writable-link); the caller can
// name the link's target itself.

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
func (r *resolver) plantable(roots []string) string { return r.plantableIn(r.via, roots) }

// plantableIn returns a symlink of via that lies in one of roots, or "".
func (r *resolver) plantableIn(via, roots []string) string {
	for _, link := range via {
		if r.within(path.Dir(link), roots) {
			return link
		}
	}
	return ""
}

// checkVia runs the refuse rows of input in on p, just resolved by r,
// with the writable roots: the checks that look at the links the resolve
// went through.
func checkVia(r *resolver, in refuseInput, field, p string, roots []string) error {
	return refuse(&refuseSubject{in: in, field: field, path: p, r: r, roots: roots, guard: true})
}

// checkHomes runs the refuse rows on the homes ($HOME, and the password
// database's entry for this user, which the shell uses whatever HOME
// says) and on the workspace and write paths that could hold one.
func checkHomes(r *resolver, grants []grantPath, homes homeDirs, roots []string) error {
	if homes.err != nil {
		return nil // hiddenFacts reports it
	}
	for _, h := range homes.list() {
		if h == "" {
			continue
		}
		// A home that does not exist yet counts where it would be: the
		// sandbox could create it, and its startup files with it.
		realHome, _, err := r.resolve(h)
		if err != nil && !isMissing(err) {
			continue
		}
		if err := checkVia(r, refuseHome, "home", h, roots); err != nil {
			return err
		}
		for k, g := range grants {
			s := refuseSubject{in: refuseWorkspace, field: "workspace", path: g.path, real: g.real, home: realHome, r: r, guard: true}
			if k > 0 {
				s.in, s.field = refuseWritePath, "write path"
			}
			if err := refuse(&s); err != nil {
				return err
			}
		}
	}
	return nil
}

// ownPasswdHome is this process's home in the password database, asked once:
// it may cost a getent(1) run.
var ownPasswdHome = sync.OnceValue(func() string { return passwdHome(os.Getuid()) })
