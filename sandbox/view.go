package sandbox

import "strings"

// inSandbox reports whether path, which exists on the host, can exist at
// the same path inside the Linux sandbox the plan builds: the last mount
// over it, in argv order, decides. Under a fresh file system (a private
// /tmp, a hidden directory's tmpfs) nothing of the host's remains; a bind
// shows the host's file, and a hidden file's replacement is a file too.
// It serves the exec failure bwrap reports as exit status 1 only, when its
// message went to the caller: a command found on the host may still be
// missing in the sandbox, and that is "not found", not "cannot execute".
func (p *plan) inSandbox(path string) bool {
	fresh := false
	for _, s := range linuxSteps(p) {
		if len(s.Args) < 2 {
			continue
		}
		dst := s.Args[len(s.Args)-1]
		if path != dst && !strings.HasPrefix(path, dst+"/") && dst != "/" {
			continue
		}
		switch s.Args[0] {
		case "--tmpfs", "--dev", "--proc", "--mqueue":
			fresh = path != dst
		case "--bind", "--ro-bind", "--bind-try", "--ro-bind-try", "--dev-bind", "--dev-bind-try",
			"--ro-bind-data", "--bind-data", "--file":
			fresh = false
		}
	}
	return !fresh
}
