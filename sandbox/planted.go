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

// viaInput gives the refuse stage input in, p, as just resolved by r:
// the checks that look at the links the resolve went through.
func viaInput(res *resolved, in refuseInput, field, p string) {
	res.input(refuseSubject{in: in, field: field, path: p, via: viaOf(res.r)})
}

// resolveHomes resolves the homes ($HOME, and the password database's
// entry for this user, which the shell uses whatever HOME says) for the
// refuse stage: each as an input, with the links it went through, and
// where each is (a home that does not exist yet counts where it would
// be: the sandbox could create it, and its startup files with it) for
// the workspace and write paths that could hold one.
func resolveHomes(res *resolved) {
	if res.homes.err != nil {
		return // hiddenFacts reports it
	}
	for _, h := range res.homes.list() {
		if h == "" {
			continue
		}
		realHome, _, err := res.r.resolve(h)
		if err != nil && !isMissing(err) {
			continue
		}
		viaInput(res, refuseHome, "home", h)
		res.realHomes = append(res.realHomes, realHome)
	}
}

// ownPasswdHome is this process's home in the password database, asked once:
// it may cost a getent(1) run.
var ownPasswdHome = sync.OnceValue(func() string { return passwdHome(os.Getuid()) })
