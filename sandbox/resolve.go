package sandbox

import (
	"slices"
	"strings"
)

// The resolve stage: each path of a Config is resolved once, and what a
// later check needs of that resolve is kept with it, rather than read off
// the resolver, whose via holds only the last resolve's links.

// grantPath is a workspace or write path as its one resolve found it.
type grantPath struct {
	path string   // as the caller spelled it
	real string   // symlink-free
	via  []string // the symlinks the resolve went through
}

// homeDirs are the caller's home directories, read once per plan.
type homeDirs struct {
	home string // homeDir's: $HOME, or the password database's when HOME is unset; "" for none
	err  error  // homeDir's refusal of it
	// passwd is the password database's home, trailing slashes trimmed,
	// when it differs from home (and home is set): the shell and ssh
	// look there whatever HOME says. passwdErr is its syntax refusal.
	passwd    string
	passwdErr error
}

// readHomes reads the caller's home directories.
func readHomes() homeDirs {
	var h homeDirs
	if h.home, h.err = homeDir(); h.err != nil {
		return h
	}
	if ph := strings.TrimRight(ownPasswdHome(), "/"); ph != "" && ph != h.home && h.home != "" {
		h.passwd, h.passwdErr = ph, checkPath("home", ph)
	}
	return h
}

// list is home, then passwd when there is one.
func (h homeDirs) list() []string {
	if h.passwd != "" {
		return []string{h.home, h.passwd}
	}
	return []string{h.home}
}

// grant is the grantPath of p, just resolved by r to real.
func (r *resolver) grant(p, real string) grantPath {
	return grantPath{path: p, real: real, via: slices.Clone(r.via)}
}
