package gen

// seccompPosture adds what the table's seccomp filter refuses to the
// posture, one entry per kind of refusal and errno, in table order. The
// ioctls the vocabulary has are all terminal ones.
func seccompPosture(p posture, id, cond string, es []SeccompEntry) {
	type group struct {
		kind, errno string
		names       []string
	}
	var groups []*group
	for _, e := range es {
		if e.KeepFamilies != nil {
			var kept []string
			for _, f := range e.KeepFamilies {
				kept = append(kept, code(f))
			}
			p.add("Network", id, "sockets of "+andList(kept)+" only: `socket` and `socketpair` fail with "+e.ErrnoName()+" for every other address family (`AF_VSOCK` among them), in every network mode", cond)
			continue
		}
		name := e.Syscall + e.Ioctl + e.SetidMode
		var g *group
		for _, h := range groups {
			if h.kind == e.Kind() && h.errno == e.ErrnoName() {
				g = h
			}
		}
		if g == nil {
			g = &group{kind: e.Kind(), errno: e.ErrnoName()}
			groups = append(groups, g)
		}
		g.names = append(g.names, code(name))
	}
	for _, g := range groups {
		failing := andList(g.names) + fail(len(g.names)) + " with " + g.errno
		switch g.kind {
		case "syscall":
			p.add("Privileges", id, failing, cond)
		case "setid-mode":
			p.add("Privileges", id, "no setuid or setgid file: "+failing+" when setting either bit", cond)
		case "ioctl":
			p.add("Terminal", id, failing+", with `Config.Interactive` too", cond)
		}
	}
}
