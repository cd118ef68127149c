package sandbox

import (
	"fmt"
	"os"
	"strconv"

	"github.com/sandtable/sandtable/internal/cgroup"
)

// LimitReport says, one line each, which limits this machine lets this
// process enforce, tried rather than guessed: a run group is made and
// removed for each cgroup a limit needs. For sandtable probe.
func LimitReport() []string {
	root := os.Geteuid() == 0
	who := "uid " + strconv.Itoa(os.Geteuid())
	if root {
		who = "root"
	}
	try := func(controller, file, file2, value string) (string, bool) {
		g, err := cgroup.New(controller, file, file2, value)
		if err == nil {
			err = g.Remove()
		}
		if err != nil {
			return err.Error(), false
		}
		parent, _, _ := cgroup.Parent(controller)
		return "a " + controller + " cgroup beneath " + parent, true
	}
	state := func(ok bool) string {
		if ok {
			return "enforced"
		}
		return "NOT enforceable"
	}
	out := []string{
		fmt.Sprintf("tmp-size, shm-size: enforced (bwrap --size) for every caller, by NewCmd, Command and sandtable run"),
	}
	procs, ok := "RLIMIT_NPROC, counted in the sandbox's user namespace", true
	if root {
		procs, ok = try("pids", "pids.max", "pids.max", "4096")
		procs = "uid 0 is exempt from RLIMIT_NPROC; " + procs
	}
	def := ""
	if !ok {
		def = " (the default of " + strconv.FormatUint(limitTable[limitProcesses].value, 10) + " is skipped with a warning; a value set is refused)"
	}
	out = append(out, fmt.Sprintf("processes: %s for %s: %s%s", state(ok), who, procs, def))
	mem, ok := try("memory", "memory.limit_in_bytes", "memory.max", "1073741824")
	out = append(out, fmt.Sprintf("memory: %s for %s: %s", state(ok), who, mem))
	out = append(out, fmt.Sprintf("cpu-time: enforced for %s: RLIMIT_CPU on each process", who))
	if root {
		out = append(out, "an unprivileged caller: processes by RLIMIT_NPROC; memory only where its cgroup v2 group delegates memory; cpu-time by RLIMIT_CPU")
	}
	return append(out, "processes, memory and cpu-time are applied by NewCmd and sandtable run only: Command refuses a value set for them, and skips their defaults")
}
