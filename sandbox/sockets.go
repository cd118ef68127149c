package sandbox

import (
	"io/fs"
	"slices"
	"strings"
)

// socketFacts validates Config.Sockets (each must resolve to a unix socket)
// and, for a Linux sandbox, lists the host's named unix sockets to hide:
// every one /proc/net/unix names that the sandbox would otherwise show at
// its path, outside the writable roots (where the command may make and
// use its own) and the granted ones. Nothing about a host socket refuses a
// spawn: one whose path cannot be resolved, is no socket any more, lies
// under a directory the caller cannot search (bwrap could not mount over
// it, and the command cannot reach it), or could not be written in a
// profile is left alone.
func socketFacts(r *resolver, goos string, cfg Config, p *plan, roots []string, strict bool) (hide, grants []pathFact, err error) {
	for _, s := range cfg.Sockets {
		real, fi, err := r.resolve(s)
		if err != nil {
			return nil, nil, fsPathError("socket", s, err)
		}
		if err := checkVia(r, refuseSocket, "socket", s, roots); err != nil {
			return nil, nil, err
		}
		if err := checkResolved("socket", s, real); err != nil {
			return nil, nil, err
		}
		if err := refuse(&refuseSubject{in: refuseSocket, field: "socket", path: s, sock: fi}); err != nil {
			return nil, nil, err
		}
		// Row no-nonsocket-grant alone refuses anything but a socket; the
		// builders bind whatever is granted.
		grants = append(grants, fact(real, kindOf(fi), p.workspace))
	}
	if !strict || goos != "linux" {
		return nil, grants, nil
	}
	return hostSocketFacts(r, p, roots, grants), grants, nil
}

// hostSocketFacts lists the host's sockets to hide, for a plan whose
// mounts hold no socket's yet; see socketFacts.
func hostSocketFacts(r *resolver, p *plan, roots []string, grants []pathFact) (hide []pathFact) {
	paths := listHostSockets()
	if len(paths) == 0 {
		return nil
	}
	v := newView(p)
	id := socketIdentity()
	seen := make(map[string]bool, len(paths))
	for _, s := range paths {
		real, fi, err := r.resolve(s)
		if err != nil || fi.Mode()&fs.ModeSocket == 0 || seen[real] {
			continue
		}
		seen[real] = true
		reach, shared := searchable(r, real, id)
		if !reach || checkPath("socket", real) != nil || underAny(real, roots) || !v.shows(real) || v.covers(real) ||
			slices.ContainsFunc(grants, func(g pathFact) bool { return g.path == real }) {
			continue
		}
		f := fact(real, kindFile, p.workspace)
		f.sharedTemp = shared
		hide = append(hide, f)
	}
	return hide
}

// listHostSockets is hostSockets; a test that counts a spawn's file
// system calls replaces it.
var listHostSockets = hostSockets

// view is the plan's mounts as shows reads them, computed once for many
// paths.
type view []viewMount

type viewMount struct {
	dst   string
	fresh bool // a new file system (tmpfs, dev, proc): the host's is gone under it
}

func newView(p *plan) view {
	var v view
	for _, s := range linuxSteps(p) {
		if len(s.Args) < 2 {
			continue
		}
		switch bwrapMount(s.Args[mountFlagAt(s.Args)]) {
		case mountFresh:
			v = append(v, viewMount{dst: s.Args[len(s.Args)-1], fresh: true})
		case mountShown:
			v = append(v, viewMount{dst: s.Args[len(s.Args)-1]})
		}
	}
	return v
}

// covers reports whether a mount replaces path itself (a hidden file, a
// read path that is the socket): hiding it again would mount twice there.
func (v view) covers(path string) bool {
	return slices.ContainsFunc(v, func(m viewMount) bool { return m.dst == path })
}

// shows is plan.shows over the precomputed mounts.
func (v view) shows(path string) bool {
	fresh := false
	for _, m := range v {
		if path != m.dst && !under(path, m.dst) && m.dst != "/" {
			continue
		}
		fresh = m.fresh && path != m.dst
	}
	return !fresh
}

// vanishedSocket returns the hidden host socket bwrap's message says it
// could not mount over, or "": one removed between the plan and the mount,
// which fails the spawn (bwrap cannot create the mount point on the
// read-only root). Running again lists the host's sockets anew.
func vanishedSocket(p *plan, msg string) string {
	for _, f := range p.sockets {
		if strings.Contains(msg, " "+f.path+":") || strings.Contains(msg, "/newroot"+f.path+":") {
			return f.path
		}
	}
	return ""
}
