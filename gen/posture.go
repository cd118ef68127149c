package gen

import (
	"fmt"
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
	"network-host":          {"with `NetworkHost` (`--network host`; the default on macOS)", "unless `NetworkHost`"},
	"network-proxy":         {"with `NetworkProxy` (`--network proxy`; the default on Linux)", "unless `NetworkProxy`"},
	"interactive":           {"only with `Config.Interactive`", "unless `Config.Interactive`"},
	"caller-root":           {"only when the caller is root", "unless the caller is root"},
	"disable-userns":        {"when bwrap has `--disable-userns` (0.8.0+)", "when bwrap lacks `--disable-userns`"},
	"seccomp":               {"where `internal/seccomp` has a filter for the architecture", "where `internal/seccomp` has no filter for the architecture"},
	"status-fd":             {"only for `NewCmd`", "except for `NewCmd`"},
	"dns-stub":              {"in network mode proxy, where the host has an `/etc/resolv.conf`", "unless in network mode proxy with an `/etc/resolv.conf`"},
	"var-tmp":               {"where the host's `/var/tmp` is a directory, not a symlink, and neither the workspace nor a write, cache or read path is `/var/tmp` or above it", "where `/var/tmp` is missing or a symlink, or granted whole"},
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
	"pin":           "each directory between the workspace or a `Config.Write` path and a hidden or protected path, or a cache root, inside it",
	"protected":     "each protected path found in the workspace or a `Config.Write` directory (see Protected paths)",
	"caches":        "each tool cache directory (the caches section; none under `Config.NoCache`)",
	"cache-root":    "each cache root (sandtable's, `$XDG_CACHE_HOME/sandtable/caches` else `~/.cache/sandtable/caches`, and each home's default one; under `Config.NoCache` too)",
	"cache-scope":   "the cache root in use and the scope directory of the run's own caches",
	"ancestor":      "each directory above the workspace and the `Config.Read` and `Config.Write` paths",
	"guard":         "each directory from a hidden path or a cache root inside the workspace or a `Config.Write` path up to that root",
	"tty":           "the terminal each of the command's standard descriptors is",
	"redacted":      "each file of the redact section that exists",
	"sockets":       "each named unix socket of the host outside the writable roots and the grants",
	"socket-grants": "each `Config.Sockets` socket",

	// A directory of host sockets rebuilt without them.
	"socket-dirs":    "each directory of host sockets rebuilt without them (cheaper than a mount per socket)",
	"socket-subdirs": "each directory inside a rebuilt one that holds host sockets",
	"socket-links":   "each symlink of a rebuilt directory",
	"socket-entries": "each other entry of a rebuilt directory: a file, or a directory without host sockets",
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
	case varTarget:
		return "the host symlink's own target"
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
