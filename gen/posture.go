package gen

import (
	"fmt"
	"slices"
	"strings"
)

// The posture table of docs/POLICY.md answers "what can the child read,
// write and reach" from the rules themselves, so a reviewer never reads a
// summary that the table has moved away from. Every entry names the rule it
// comes from.

// postureRows are the posture table's rows, in the order a reviewer asks.
var postureRows = []string{
	"Read", "Write", "Home directory", "Hidden paths", "Network", "Processes",
	"Resources", "Devices", "Terminal", "Privileges", "Environment", "Other",
}

// entry is one thing a platform's rules give or take, and the rule's id.
type entry struct {
	text string
	rule string
}

// posture maps a row to its entries in table order.
type posture map[string][]entry

func (p posture) add(row, rule, text, cond string) {
	if cond != "" {
		text += ", " + cond
	}
	p[row] = append(p[row], entry{text: text, rule: rule})
}

// condPhrase says how a reviewer reads a `when` word, true and negated. A
// test keeps it in step with the vocabulary in vocab.go.
var condPhrase = map[string][2]string{
	"network":               {"unless the network is off (`NetworkOff`)", "only with `NetworkOff`"},
	"network-host":          {"with `NetworkHost` (`--network host`; the default)", "unless `NetworkHost`"},
	"network-proxy":         {"with `NetworkProxy` (`--network proxy`)", "unless `NetworkProxy`"},
	"interactive":           {"only with `Config.Interactive`", "unless `Config.Interactive`"},
	"caller-root":           {"only when the caller is root", "unless the caller is root"},
	"disable-userns":        {"when bwrap has `--disable-userns` (0.8.0+)", "when bwrap lacks `--disable-userns`"},
	"seccomp":               {"where `sandbox/seccomp.go` has a filter for the architecture", "where `sandbox/seccomp.go` has no filter for the architecture"},
	"status-fd":             {"only for `NewCmd`", "except for `NewCmd`"},
	"block-fd":              {"only for `NewCmd`, while it applies the run-time limits", "except while `NewCmd` applies the run-time limits"},
	"is-dir":                {"a directory", "not a directory"},
	"is-file":               {"a file", "not a file"},
	"is-missing":            {"missing", "not missing"},
	"ancestor-of-workspace": {"an ancestor of the workspace", "not an ancestor of the workspace"},
	"inside-workspace":      {"inside the workspace", "not inside the workspace"},
	"in-shared-temp":        {"under a world-writable sticky directory", "not under a world-writable sticky directory"},
	"all-mach":              {"only with `Config.AllowAllMach`", "unless `Config.AllowAllMach`"},
	"home":                  {"when there is a home directory", "without a home directory"},
	"tmpdir":                {"when the spawn has its own temporary directory", "without one"},
	"folded":                {"ASCII, so it has a case-folded pattern", "not ASCII"},
}

// iterSubject names the paths a `for` ranges over.
var iterSubject = map[string]string{
	"hidden":        "each hidden path",
	"read":          "each `Config.Read` path",
	"write":         "each `Config.Write` path",
	"pin":           "each directory between the workspace or a `Config.Write` path and a hidden or protected path inside it",
	"protected":     "each protected path found in the workspace or a `Config.Write` directory (see Protected paths)",
	"caches":        "each tool cache directory (the caches section; none under `Config.NoCache`)",
	"ancestor":      "each directory above the workspace and the `Config.Read` and `Config.Write` paths",
	"guard":         "each directory from a hidden path inside the workspace or a `Config.Write` path up to that root",
	"tty":           "the terminal each of the command's standard descriptors is",
	"redacted":      "each file of the redact section that exists",
	"sockets":       "each named unix socket of the host outside the writable roots and the grants",
	"socket-grants": "each `Config.Sockets` socket",
}

func phrase(c Cond) string {
	p, ok := condPhrase[c.Word]
	if !ok {
		return c.String()
	}
	if c.Not {
		return p[1]
	}
	return p[0]
}

// globalCond is the spawn-level part of a rule's condition, as a clause.
func globalCond(r *Rule) string {
	var out []string
	for _, c := range r.When {
		if conditions[c.Word].scope == scopeGlobal {
			out = append(out, phrase(c))
		}
	}
	return strings.Join(out, " and ")
}

// subject names an operand: a variable by what it stands for, with the
// rule's item conditions, or a constant path in code.
func subject(r *Rule, operand string) string {
	switch operand {
	case varWorkspace:
		return "the workspace"
	case varNullFD:
		return "the shared `/dev/null` descriptor"
	case varTmpdir:
		return "the spawn's own temporary directory"
	case varPath:
		s := iterSubject[r.For]
		if s == "" {
			s = "each `" + r.For + "` path"
		}
		var item []string
		for _, c := range r.When {
			if conditions[c.Word].scope == scopeItem {
				item = append(item, phrase(c))
			}
		}
		if len(item) > 0 {
			s += " that is " + strings.Join(item, " and is ")
		}
		return s
	}
	return code(operand)
}

// derivePosture reads both platforms' rules and the shared entries.
func derivePosture(t *Table) (linux, darwin posture) {
	linux, darwin = posture{}, posture{}
	linuxPosture(linux, t.Linux)
	darwinPosture(darwin, t.Darwin)
	linux["Home directory"] = []entry{linuxHome(t.Linux, "/home/user")}
	darwin["Home directory"] = darwinHome(t.Darwin, "/Users/user")
	var names []string
	for _, e := range t.Common.StripEnv {
		names = append(names, code(e.Value))
	}
	if len(names) > 0 {
		text := "inherited, with " + strings.Join(names, ", ") + " unset"
		if len(names) > 6 {
			text = fmt.Sprintf("inherited, with %d names and patterns unset (%s, ...: see the stripped variables below)", len(names), strings.Join(names[:3], ", "))
		}
		for _, p := range []posture{linux, darwin} {
			p.add("Environment", "strip-env", text, "")
		}
	}
	return linux, darwin
}

// linuxPosture walks the argv flag by flag: a flag's meaning, not its rule's
// name, decides the row.
func linuxPosture(p posture, pl *Platform) {
	for _, r := range pl.Rules {
		cond := globalCond(r)
		for i := 0; i < len(r.Args); {
			flag := r.Args[i]
			n := bwrapFlags[flag].operands
			if i+1+n > len(r.Args) {
				break
			}
			ops := r.Args[i+1 : i+1+n]
			if !sizePosture(p, r, i, cond) {
				linuxFlag(p, r, flag, ops, cond, pl.Seccomp)
			}
			i += 1 + n
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

func linuxFlag(p posture, r *Rule, flag string, ops []string, cond string, seccomp []SeccompEntry) {
	try := ""
	if strings.HasSuffix(flag, "-try") {
		try = " if it exists"
	}
	hidden := r.For == "hidden" || r.For == "sockets"
	switch strings.TrimSuffix(flag, "-try") {
	case "--ro-bind":
		if ops[0] == "/" && ops[1] == "/" {
			p.add("Read", r.ID, "the whole host file system, read-only"+try, cond)
			p.add("Write", r.ID, "the rest of the host: read-only", cond)
			return
		}
		p.add("Read", r.ID, mountTarget(r, ops[0], ops[1])+", read-only"+try, cond)
	case "--bind":
		if ops[0] == "/" && ops[1] == "/" {
			p.add("Write", r.ID, "the whole host file system, read-write"+try, cond)
			return
		}
		p.add("Write", r.ID, mountTarget(r, ops[0], ops[1])+", read-write"+try, cond)
	case "--dev-bind":
		p.add("Write", r.ID, mountTarget(r, ops[0], ops[1])+", read-write with device access"+try, cond)
		p.add("Devices", r.ID, "the host's devices under "+subject(r, ops[1])+try, cond)
	case "--ro-bind-fd":
		p.add("Read", r.ID, subject(r, ops[1])+": the directory of descriptor "+code(ops[0])+", read-only", cond)
	case "--bind-fd":
		p.add("Write", r.ID, subject(r, ops[1])+": the directory of descriptor "+code(ops[0])+", read-write", cond)
	case "--remount-ro":
		p.add("Write", r.ID, subject(r, ops[0])+" remounted read-only", cond)
	case "--tmpfs":
		if hidden {
			p.add("Hidden paths", r.ID, subject(r, ops[0])+": covered by an empty tmpfs", cond)
			return
		}
		p.add("Write", r.ID, subject(r, ops[0])+": private and empty, discarded on exit", cond)
	case "--ro-bind-data", "--bind-data", "--file":
		what := "a file read from descriptor " + code(ops[0])
		if ops[0] == varNullFD {
			what = "an empty file"
		}
		if flag == "--ro-bind-data" {
			what += ", read-only"
		}
		row := "Other"
		if hidden {
			row = "Hidden paths"
		}
		p.add(row, r.ID, subject(r, ops[1])+": replaced by "+what, cond)
	case "--dev":
		p.add("Devices", r.ID, "a new minimal device tree at "+subject(r, ops[0])+", not the host's devices", cond)
	case "--proc":
		p.add("Processes", r.ID, "a procfs at "+subject(r, ops[0])+" that shows only the sandbox's processes", cond)
	case "--unshare-all":
		p.add("Network", r.ID, "none: a new, empty network namespace", cond)
		p.add("Processes", r.ID, "new pid, ipc, uts and cgroup namespaces", cond)
		p.add("Privileges", r.ID, "a new user namespace where the kernel allows one", cond)
	case "--unshare-net":
		p.add("Network", r.ID, "none: a new, empty network namespace", cond)
	case "--share-net":
		if slices.ContainsFunc(r.When, func(c Cond) bool { return c.Word == "network-proxy" && !c.Not }) {
			p.add("Network", r.ID, "the network helper's own namespace: a loopback where the proxy listens, nothing of the host's", cond)
			return
		}
		if slices.ContainsFunc(r.When, func(c Cond) bool { return c.Word == "network-host" && !c.Not }) {
			p.add("Network", r.ID, "the host's network, including its loopback services; its abstract unix sockets only without Landlock's scope (before Linux 6.12), through `Command`, or with `Network.HostAbstract`", cond)
			return
		}
		p.add("Network", r.ID, "the host's network, including its abstract unix sockets", cond)
	case "--unshare-pid":
		p.add("Processes", r.ID, "a new pid namespace", cond)
	case "--unshare-user":
		p.add("Privileges", r.ID, "a new user namespace", cond)
	case "--disable-userns", "--assert-userns-disabled":
		p.add("Privileges", r.ID, "cannot create nested user namespaces", cond)
	case "--cap-drop":
		p.add("Privileges", r.ID, "capabilities dropped: "+code(ops[0]), cond)
	case "--cap-add":
		p.add("Privileges", r.ID, "capabilities added: "+code(ops[0]), cond)
	case "--seccomp", "--add-seccomp-fd":
		if ops[0] == varSeccompFD {
			// The variable is the filter of the table's seccomp section,
			// so what it refuses is known here.
			seccompPosture(p, r.ID, cond, seccomp)
			return
		}
		p.add("Privileges", r.ID, "a seccomp filter from descriptor "+code(ops[0]), cond)
	case "--json-status-fd":
		to := "descriptor " + code(ops[0])
		if ops[0] == varStatusFD {
			to = "a pipe the caller reads"
		}
		p.add("Other", r.ID, "bwrap's progress (the sandbox built, the command's exit status) on "+to, cond)
	case "--new-session":
		p.add("Terminal", r.ID, "no controlling terminal (a new session), so no TIOCSTI into the caller's", cond)
	case "--die-with-parent":
		p.add("Processes", r.ID, "killed when the thread that started it dies", cond)
	case "--clearenv":
		p.add("Environment", r.ID, "cleared", cond)
	case "--setenv":
		p.add("Environment", r.ID, code(ops[0])+" set to "+code(ops[1]), cond)
	case "--unsetenv":
		p.add("Environment", r.ID, code(ops[0])+" unset", cond)
	case "--":
		// The end of bwrap's options grants nothing.
	default:
		p.add("Other", r.ID, code(strings.Join(append([]string{flag}, ops...), " ")), cond)
	}
}

// opRows maps an SBPL operation to the rows it decides. Operations outside
// the map land in Other.
func opRows(op string) []string {
	switch {
	case op == "file*":
		return []string{"Read", "Write"}
	case strings.HasPrefix(op, "file-read"):
		return []string{"Read"}
	case strings.HasPrefix(op, "file-write"):
		return []string{"Write"}
	case strings.HasPrefix(op, "network"):
		return []string{"Network"}
	case strings.HasPrefix(op, "process"), op == "signal":
		return []string{"Processes"}
	case op == "pseudo-tty":
		return []string{"Terminal"}
	}
	return []string{"Other"}
}

// filterText lists a rule's filters as a reviewer reads them: subtrees
// first, then exact paths.
func filterText(r *Rule) string {
	if len(r.Filters) == 0 {
		return "everything"
	}
	var sub, lit, other []string
	for _, f := range r.Filters {
		switch {
		case !isPathFilter(f):
			other = append(other, code(filterKey(f)))
		case f.Kind == "literal":
			lit = append(lit, subject(r, f.Value))
		default:
			sub = append(sub, subject(r, f.Value))
		}
	}
	if len(other) > 0 && len(sub)+len(lit) == 0 {
		return strings.Join(other, ", ")
	}
	var parts []string
	if len(sub) > 0 {
		parts = append(parts, "under "+strings.Join(sub, ", "))
	}
	if len(lit) > 0 {
		parts = append(parts, "exactly "+strings.Join(lit, ", "))
	}
	if len(other) > 0 {
		parts = append(parts, "where "+strings.Join(other, ", "))
	}
	return strings.Join(parts, "; ")
}

// darwinPosture reads allow and deny forms by their operations. Whatever
// no rule allows is denied when the table starts with (deny default).
func darwinPosture(p posture, pl *Platform) {
	denyDefault := ""
	for _, r := range pl.Rules {
		cond := globalCond(r)
		switch r.Action {
		case "deny":
			if slices.Equal(r.Ops, []string{"default"}) && len(r.Filters) == 0 {
				denyDefault = r.ID
				continue
			}
			if r.For == "hidden" {
				p.add("Hidden paths", r.ID, filterText(r)+": "+codes(r.Ops)+" denied", cond)
				continue
			}
			for _, row := range rowsOf(r.Ops) {
				p.add(row, r.ID, "denied ("+codes(opsIn(r.Ops, row))+"): "+filterText(r), cond)
			}
		case "allow":
			for _, row := range rowsOf(r.Ops) {
				ops := opsIn(r.Ops, row)
				text := filterText(r)
				switch row {
				case "Read", "Write":
				case "Network":
					text = "allowed (" + codes(ops) + ")"
					if len(r.Filters) > 0 {
						text += ": " + filterText(r)
					}
				default:
					text = "allowed: " + codes(ops)
					if len(r.Filters) > 0 {
						text += ": " + filterText(r)
					}
				}
				p.add(row, r.ID, text, cond)
			}
			for _, row := range []string{"Read", "Write"} {
				if devs := devFilters(r); len(devs) > 0 && slices.Contains(rowsOf(r.Ops), row) {
					p.add("Devices", r.ID, strings.ToLower(row)+": "+devs, cond)
				}
			}
		}
	}
	if denyDefault == "" {
		return
	}
	for _, row := range []string{"Read", "Write", "Network", "Processes", "Devices", "Other"} {
		if row == "Devices" && len(p[row]) == 0 {
			continue
		}
		p.add(row, denyDefault, "everything else denied", "")
	}
}

// devFilters repeats a rule's filters on /dev, where the device nodes are,
// for the Devices row.
func devFilters(r *Rule) string {
	var devs []Filter
	for _, f := range r.Filters {
		if under(f.Value, "/dev") {
			devs = append(devs, f)
		}
	}
	if len(devs) == 0 {
		return ""
	}
	return filterText(&Rule{ID: r.ID, For: r.For, When: r.When, Filters: devs})
}

// rowsOf lists the rows a rule's operations decide, in postureRows order.
func rowsOf(ops []string) []string {
	var out []string
	for _, row := range postureRows {
		for _, op := range ops {
			if slices.Contains(opRows(op), row) {
				out = append(out, row)
				break
			}
		}
	}
	return out
}

func opsIn(ops []string, row string) []string {
	var out []string
	for _, op := range ops {
		if slices.Contains(opRows(op), row) {
			out = append(out, op)
		}
	}
	return out
}

func codes(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return strings.Join(out, ", ")
}

// under reports whether path lies at or below dir.
func under(path, dir string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, dir+"/")
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
			if spec.dest && len(ops) > 0 && !strings.HasPrefix(ops[len(ops)-1], "$") && under(home, ops[len(ops)-1]) {
				switch strings.TrimSuffix(r.Args[i], "-try") {
				case "--ro-bind":
					state = entry{text: "readable, not writable", rule: r.ID}
				case "--bind", "--dev-bind":
					state = entry{text: "readable and writable", rule: r.ID}
				case "--tmpfs":
					state = entry{text: "an empty tmpfs", rule: r.ID}
				}
			}
			i += 1 + spec.operands
		}
	}
	state.text += ", except the hidden paths, and the workspace (never the home itself) and any `Config.Read` or `Config.Write` path under it"
	return state
}

// darwinHome applies the rules that cover a typical home directory in
// profile order, where the last match wins, once for reads and once for
// writes.
func darwinHome(pl *Platform, home string) []entry {
	var read, write *Rule
	for _, r := range pl.Rules {
		if r.For != "" || len(r.When) > 0 || (r.Action != "allow" && r.Action != "deny") {
			continue
		}
		covers := len(r.Filters) == 0
		for _, f := range r.Filters {
			if f.Kind == "subpath" && !strings.HasPrefix(f.Value, "$") && under(home, f.Value) {
				covers = true
			}
		}
		if !covers {
			continue
		}
		for _, op := range r.Ops {
			rows := opRows(op)
			if op == "default" {
				rows = []string{"Read", "Write"}
			}
			if slices.Contains(rows, "Read") {
				read = r
			}
			if slices.Contains(rows, "Write") {
				write = r
			}
		}
	}
	can := func(r *Rule, verb string) string {
		if r != nil && r.Action == "allow" {
			return verb
		}
		return "not " + verb
	}
	id := func(r *Rule) string {
		if r == nil {
			return ""
		}
		return r.ID
	}
	const except = ", except the workspace (never the home itself) and any `Config.Read` or `Config.Write` path under it"
	if read == write {
		return []entry{{text: can(read, "readable") + ", " + can(write, "writable") + except, rule: id(read)}}
	}
	return []entry{
		{text: can(read, "readable") + except, rule: id(read)},
		{text: can(write, "writable") + except, rule: id(write)},
	}
}

// andList joins items as prose: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func fail(n int) string {
	if n == 1 {
		return " fails"
	}
	return " fail"
}
