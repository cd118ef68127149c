package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
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
	// Never nil, even without links: a nil via would read as "not
	// known here" and fall back to the resolver's last resolve.
	return grantPath{path: p, real: real, via: append(make([]string, 0, len(r.via)), r.via...)}
}

// resolveWorkspace resolves the workspace, which must be a directory, and
// runs the refuse rows on where it leads.
func resolveWorkspace(r *resolver, ws string) (grantPath, error) {
	real, fi, err := r.resolve(ws)
	if err != nil {
		return grantPath{}, fsPathError("workspace", ws, err)
	}
	if !fi.IsDir() {
		return grantPath{}, badPath("workspace", ws, "not a directory")
	}
	if err := refuse(&refuseSubject{in: refuseWorkspace, field: "workspace", path: ws, resolved: true, real: real}); err != nil {
		return grantPath{}, err
	}
	return r.grant(ws, real), checkResolved("workspace", ws, real)
}

// homeDir is $HOME, or the password database's entry when HOME is unset (a
// service manager's environment), cleaned. An unusable home is an error
// rather than a reason to skip the credential directories under it.
func homeDir() (string, error) {
	home := os.Getenv("HOME")
	if home == "" {
		if home = passwdHome(os.Getuid()); home == "" {
			return "", nil // no home to hide anything under
		}
	}
	if home != "/" {
		home = strings.TrimRight(home, "/")
	}
	if err := checkPath("home", home); err != nil {
		return "", err
	}
	if err := refuse(&refuseSubject{in: refuseHome, field: "home", path: home, spelled: true}); err != nil {
		return "", err
	}
	return home, nil
}

// checkResolved runs the syntax check again on where a path's symlinks led:
// a link target is as untrusted as the path itself.
func checkResolved(field, orig, real string) error {
	if real == orig {
		return nil
	}
	if err := checkPath(field, real); err != nil {
		var pe *pathError
		if errors.As(err, &pe) {
			pe.path, pe.problem = orig, "resolves to "+strconv.Quote(real)+": "+pe.problem
		}
		return err
	}
	return nil
}

// fsPathError reports a path the file system would not resolve.
func fsPathError(field, p string, err error) error {
	problem := "does not exist"
	if !errors.Is(err, fs.ErrNotExist) {
		problem = "cannot be resolved: " + err.Error()
	}
	return &pathError{field: field, path: p, problem: problem, err: err}
}

func kindOf(fi fs.FileInfo) pathKind {
	switch {
	case fi == nil:
		return kindMissing
	case fi.IsDir():
		return kindDir
	}
	return kindFile
}
