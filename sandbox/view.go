package sandbox

import "strings"

// shows reports whether path, which exists on the host, can exist at the
// same path inside the Linux sandbox the plan builds: the last mount over
// it, in argv order, decides. Under a fresh file system (a private
// /tmp, a hidden directory's tmpfs) nothing of the host's remains; a bind
// shows the host's file, and a hidden file's replacement is a file too.
// It serves the exec failure bwrap reports as exit status 1 only, when its
// message went to the caller: a command found on the host may still be
// missing in the sandbox, and that is "not found", not "cannot execute".
func (p *plan) shows(path string) bool {
	fresh := false
	for _, s := range linuxSteps(p) {
		if len(s.Args) < 2 {
			continue
		}
		dst := s.Args[len(s.Args)-1]
		if path != dst && !strings.HasPrefix(path, dst+"/") && dst != "/" {
			continue
		}
		switch bwrapMount(s.Args[mountFlagAt(s.Args)]) {
		case mountFresh:
			fresh = path != dst
		case mountShown:
			fresh = false
		}
	}
	return !fresh
}

// sees reports whether the sandboxed command finds at p (absolute and
// clean) what this process finds there: p, and every symlink on its way,
// shown inside (see shows). A path that does not resolve here is left to
// the caller's own lookup.
func (p *plan) sees(path string) bool {
	var r resolver
	real, _, err := r.resolve(path)
	if err != nil {
		return true
	}
	if !p.shows(real) {
		return false
	}
	for _, link := range r.via {
		if !p.shows(link) {
			return false
		}
	}
	return true
}
