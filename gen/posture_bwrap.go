package gen

import (
	"slices"
	"strings"
)

// linuxPosture walks the argv flag by flag: a flag's vocabulary row, not
// its rule's name, decides the row of the posture.
func linuxPosture(p posture, pl *Platform) {
	for _, r := range pl.Rules {
		cond := globalCond(r)
		for i := 0; i < len(r.Args); {
			flag := r.Args[i]
			spec := bwrapFlags[flag]
			if i+1+spec.operands > len(r.Args) {
				break
			}
			show := spec.posture
			if show == nil {
				show = postureOther
			}
			show(p, flagAt{r: r, i: i, flag: flag, spec: spec, ops: r.Args[i+1 : i+1+spec.operands], cond: cond, seccomp: pl.Seccomp})
			i += 1 + spec.operands
		}
	}
}

// mountTarget names a bind's destination, and its host source when the two
// differ.
func mountTarget(r *Rule, src, dest string) string {
	if src == dest {
		return subject(r, dest)
	}
	return subject(r, dest) + " (from host " + subject(r, src) + ")"
}

// hides reports whether the rule's paths are ones the sandbox hides.
func (u flagAt) hides() bool { return hidingFor(u.r.For) }

// hidingFor reports whether a rule iterating items of word hides them.
func hidingFor(word string) bool {
	return word == "hidden" || word == "sockets" || word == "socket-dirs"
}

func postureROBind(p posture, u flagAt) {
	if u.ops[0] == "/" && u.ops[1] == "/" {
		u.add(p, "Read", "the whole host file system, read-only"+u.try())
		u.add(p, "Write", "the rest of the host: read-only")
		return
	}
	u.add(p, "Read", mountTarget(u.r, u.ops[0], u.ops[1])+", read-only"+u.try())
}

func postureBind(p posture, u flagAt) {
	if u.ops[0] == "/" && u.ops[1] == "/" {
		u.add(p, "Write", "the whole host file system, read-write"+u.try())
		return
	}
	u.add(p, "Write", mountTarget(u.r, u.ops[0], u.ops[1])+", read-write"+u.try())
}

func postureDevBind(p posture, u flagAt) {
	u.add(p, "Write", mountTarget(u.r, u.ops[0], u.ops[1])+", read-write with device access"+u.try())
	u.add(p, "Devices", "the host's devices under "+subject(u.r, u.ops[1])+u.try())
}

func postureROBindFD(p posture, u flagAt) {
	u.add(p, "Read", subject(u.r, u.ops[1])+": the directory of descriptor "+code(u.ops[0])+", read-only")
}

func postureBindFD(p posture, u flagAt) {
	u.add(p, "Write", subject(u.r, u.ops[1])+": the directory of descriptor "+code(u.ops[0])+", read-write")
}

func postureRemountRO(p posture, u flagAt) {
	u.add(p, "Write", subject(u.r, u.ops[0])+" remounted read-only")
}

func postureTmpfs(p posture, u flagAt) {
	if u.hides() {
		u.add(p, "Hidden paths", subject(u.r, u.ops[0])+": covered by an empty tmpfs")
		return
	}
	u.add(p, "Write", subject(u.r, u.ops[0])+": private and empty, discarded on exit")
}

// postureData is --file, --bind-data and --ro-bind-data: a file read from
// a descriptor, with how it may be used (", read-only") after it.
func postureData(mode string) func(posture, flagAt) {
	return func(p posture, u flagAt) {
		what := "a file read from descriptor " + code(u.ops[0])
		if u.ops[0] == varNullFD {
			what = "an empty file"
		}
		row := "Other"
		if u.hides() {
			row = "Hidden paths"
		}
		u.add(p, row, subject(u.r, u.ops[1])+": replaced by "+what+mode)
	}
}

func postureDev(p posture, u flagAt) {
	u.add(p, "Devices", "a new minimal device tree at "+subject(u.r, u.ops[0])+", not the host's devices")
}

func postureProc(p posture, u flagAt) {
	u.add(p, "Processes", "a procfs at "+subject(u.r, u.ops[0])+" that shows only the sandbox's processes")
}

func postureUnshareAll(p posture, u flagAt) {
	u.add(p, "Network", "none: a new, empty network namespace")
	u.add(p, "Processes", "new pid, ipc, uts and cgroup namespaces")
	u.add(p, "Privileges", "a new user namespace where the kernel allows one")
}

func postureShareNet(p posture, u flagAt) {
	if slices.ContainsFunc(u.r.When, func(c Cond) bool { return c.Word == "network-proxy" && !c.Not }) {
		u.add(p, "Network", "the network helper's own namespace: a loopback where the proxy listens, nothing of the host's")
		return
	}
	if slices.ContainsFunc(u.r.When, func(c Cond) bool { return c.Word == "network-host" && !c.Not }) {
		u.add(p, "Network", "the host's network, including its loopback services; its abstract unix sockets only without Landlock's scope (before Linux 6.12), through `Command`, or with `Network.HostAbstract`")
		return
	}
	u.add(p, "Network", "the host's network, including its abstract unix sockets")
}

func postureCapDrop(p posture, u flagAt) {
	u.add(p, "Privileges", "capabilities dropped: "+code(u.ops[0]))
}

func postureCapAdd(p posture, u flagAt) {
	u.add(p, "Privileges", "capabilities added: "+code(u.ops[0]))
}

func postureSeccomp(p posture, u flagAt) {
	if u.ops[0] == varSeccompFD {
		// The variable is the filter of the table's seccomp section,
		// so what it refuses is known here.
		seccompPosture(p, u.r.ID, u.cond, u.seccomp)
		return
	}
	u.add(p, "Privileges", "a seccomp filter from descriptor "+code(u.ops[0]))
}

func postureStatusFD(p posture, u flagAt) {
	to := "descriptor " + code(u.ops[0])
	if u.ops[0] == varStatusFD {
		to = "a pipe the caller reads"
	}
	u.add(p, "Other", "bwrap's progress (the sandbox built, the command's exit status) on "+to)
}

func postureSetenv(p posture, u flagAt) {
	u.add(p, "Environment", code(u.ops[0])+" set to "+code(u.ops[1]))
}

func postureUnsetenv(p posture, u flagAt) {
	u.add(p, "Environment", code(u.ops[0])+" unset")
}

// linuxHome follows the mounts over a typical home directory in argv
// order, where the last one wins.
func linuxHome(pl *Platform, home string) entry {
	state := entry{text: "as on the host: no rule mounts over it"}
	for _, r := range pl.Rules {
		if r.For != "" || len(r.When) > 0 {
			continue
		}
		for i := 0; i < len(r.Args); {
			spec := bwrapFlags[r.Args[i]]
			if i+1+spec.operands > len(r.Args) {
				break
			}
			ops := r.Args[i+1 : i+1+spec.operands]
			if spec.dest() && len(ops) > 0 && !strings.HasPrefix(ops[len(ops)-1], "$") && under(home, ops[len(ops)-1]) && spec.home != "" {
				state = entry{text: spec.home, rule: r.ID}
			}
			i += 1 + spec.operands
		}
	}
	state.text += ", except the hidden paths, and the workspace (never the home itself) and any `Config.Read` or `Config.Write` path under it"
	return state
}
