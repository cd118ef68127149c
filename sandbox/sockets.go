package sandbox

import (
	"io/fs"
	"slices"
	"strings"
)

// socketFacts resolves Config.Sockets, each an input of the refuse stage
// (with the links it went through, and what it is: row no-nonsocket-grant
// alone refuses anything but a socket; the builders bind whatever is
// granted).
func socketFacts(res *resolved, cfg Config, p *plan) (grants []pathFact, err error) {
	r := res.r
	for _, s := range cfg.Sockets {
		real, fi, err := r.resolve(s)
		if err != nil {
			return nil, fsPathError("socket", s, err)
		}
		res.input(refuseSubject{in: refuseSocket, field: "socket", path: s, via: viaOf(r), fi: fi})
		if err := checkResolved("socket", s, real); err != nil {
			return nil, err
		}
		grants = append(grants, fact(real, kindOf(fi), p.workspace))
	}
	return grants, nil
}

// hostSocketFacts lists, for a Linux sandbox, the host's named unix
// sockets that could be hidden: every one /proc/net/unix names, outside
// the writable roots (where the command may make and use its own) and the
// granted ones; hiddenSockets keeps those the plan's mounts would show.
// Nothing about a host socket refuses a spawn: one whose path cannot be
// resolved, is no socket any more, lies under a directory the caller
// cannot search (bwrap could not mount over it, and the command cannot
// reach it), or could not be written in a profile is left alone.
func hostSocketFacts(r *resolver, p *plan, grants []pathFact) (hide []pathFact) {
	paths := listHostSockets()
	if len(paths) == 0 {
		return nil
	}
	roots := p.roots
	id := socketIdentity()
	seen := make(map[string]bool, len(paths))
	for _, s := range paths {
		real, fi, err := r.resolve(s)
		if err != nil || fi.Mode()&fs.ModeSocket == 0 || seen[real] {
			continue
		}
		seen[real] = true
		reach, shared := searchable(r, real, id)
		if !reach || checkPath("socket", real) != nil || underAny(real, roots) ||
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

// hiddenSockets keeps the host sockets the mounts of p (which hide no
// socket yet) would show at their path and not replace there themselves
// (a hidden file, a read path that is the socket: hiding it again would
// mount twice there).
func hiddenSockets(p *plan, cands []pathFact) []pathFact {
	if len(cands) == 0 {
		return nil
	}
	v := newView(p)
	return slices.DeleteFunc(cands, func(f pathFact) bool { return !v.shows(f.path) || v.covers(f.path) })
}

// withSocketMounts is mounts (sorted, none a hidden socket's) with the
// mounts of p.sockets: the generated builder's, made over the sockets
// alone, merged in where sortMounts would put them (by depth; on a tie
// after the rules before them in the table, and before the socket grants
// after them), so the mount group is computed once.
func withSocketMounts(p *plan, mounts []mount) []mount {
	if len(p.sockets) == 0 {
		return mounts
	}
	var add []mount
	for _, m := range linuxMounts(&plan{sockets: p.sockets}, nil) {
		if m.rule == linuxRuleHideHostSocket {
			add = append(add, m)
		}
	}
	sortMounts(add)
	out := make([]mount, 0, len(mounts)+len(add))
	i := 0
	for _, m := range mounts {
		d := strings.Count(m.path, "/")
		for i < len(add) && (strings.Count(add[i].path, "/") < d || strings.Count(add[i].path, "/") == d && m.rule == linuxRuleGrantSocket) {
			out = append(out, add[i])
			i++
		}
		out = append(out, m)
	}
	return append(out, add[i:]...)
}

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
