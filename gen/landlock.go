package gen

import (
	"strings"

	"github.com/sandtable/sandtable/internal/landlock"
	"gopkg.in/yaml.v3"
)

// The reduced backend (Config.Backend BackendLandlock): Landlock and
// seccomp where user namespaces cannot be made. Two parts of the linux
// table describe it: the landlock section, rows of what it does instead
// of bwrap (LandlockEntry), and a landlock column on every other row of
// the linux table (BackendCol), saying how the reduced backend keeps
// that row's guarantee: kept, weaker or lost, and why. The column is
// required on every row once the table has a landlock section.

// BackendCol is one row's landlock column.
type BackendCol struct {
	Pos     Pos
	Enforce string // kept, weaker or lost
	Why     string
}

// backendEnforce ranks the column's words: a guarantee moving up the
// rank widens what the reduced backend's command may do.
var backendEnforce = map[string]int{"kept": 0, "weaker": 1, "lost": 2}

// LandlockEntry is one row of the landlock section; exactly one of its
// kind keys is set.
type LandlockEntry struct {
	Pos Pos
	ID  string
	// Handles: the file system rights the ruleset restricts.
	Handles []string
	// Grant and For or Paths: the rights a set of the plan's paths (or
	// constant paths) gets; Unless names the Config switch that drops it.
	Grant []string
	For   string
	Paths []string
	// Network and HandlesNet, Connect: in a network mode, the network
	// rights the ruleset restricts and the ports it allows connect on.
	Network    string
	HandlesNet []string
	Connect    string
	// Scopes: the scopes the domain gets.
	Scopes []string
	// RefuseSocket, with KeepTypes or KeepProtocols: socket(2) in these
	// families refused, or only with another type or protocol.
	RefuseSocket  []string
	KeepTypes     []string
	KeepProtocols []string
	// RefuseSyscall: a system call refused; RefuseClone: clone(2) with
	// any of these flags.
	RefuseSyscall string
	RefuseClone   []string
	Errno         string
	// Protect: how the protected paths are protected (detect, read-only);
	// Default marks the mode a spawn takes.
	Protect string
	Default bool
	// Does: a step of the helper (landlockDoes).
	Does string
	// Redirect and Env: the redact row whose file's copy the helper
	// writes to the run's TMPDIR, and the variable that points the tool
	// at it.
	Redirect string
	Env      string
	Why      string
}

// Kind is the row's kind key.
func (e LandlockEntry) Kind() string {
	switch {
	case e.Handles != nil:
		return "handles"
	case e.Grant != nil:
		return "grant"
	case e.Network != "":
		return "network"
	case e.Scopes != nil:
		return "scopes"
	case e.RefuseSocket != nil:
		return "refuse-socket"
	case e.RefuseSyscall != "":
		return "refuse-syscall"
	case e.RefuseClone != nil:
		return "refuse-clone"
	case e.Protect != "":
		return "protect"
	case e.Does != "":
		return "does"
	case e.Redirect != "":
		return "redirect"
	}
	return ""
}

// What is the row as a reviewer reads it.
func (e LandlockEntry) What() string {
	switch e.Kind() {
	case "handles":
		return "the ruleset restricts " + strings.Join(e.Handles, ", ")
	case "grant":
		on := landlockSets[e.For].what
		if e.Paths != nil {
			on = strings.Join(e.Paths, ", ")
		}
		return on + " may " + rightsOrNothing(e.Grant)
	case "network":
		s := "network mode " + e.Network + ": restricts " + rightsOrNothing(e.HandlesNet)
		if e.Connect != "" {
			s += "; connect allowed to " + landlockPorts[e.Connect]
		}
		return s
	case "scopes":
		return "scoped: " + strings.Join(e.Scopes, ", ")
	case "refuse-socket":
		s := "socket(2) in " + strings.Join(e.RefuseSocket, ", ")
		switch {
		case e.KeepTypes != nil:
			s += " unless of type " + strings.Join(e.KeepTypes, ", ")
		case e.KeepProtocols != nil:
			s += " unless of protocol " + strings.Join(e.KeepProtocols, ", ")
		}
		return s + " refused (" + e.errnoName() + ")"
	case "refuse-syscall":
		return "syscall " + e.RefuseSyscall + " refused (" + e.errnoName() + ")"
	case "refuse-clone":
		return "clone(2) with " + strings.Join(e.RefuseClone, ", ") + " refused (" + e.errnoName() + ")"
	case "protect":
		s := "protected paths: " + landlockProtectModes[e.Protect]
		if e.Default {
			s += " (the default)"
		}
		return s
	case "does":
		return landlockDoes[e.Does]
	case "redirect":
		return "the copy of " + e.Redirect + "'s file, in the run's TMPDIR, named by " + e.Env
	}
	return ""
}

func rightsOrNothing(rs []string) string {
	if len(rs) == 0 {
		return "nothing"
	}
	return strings.Join(rs, ", ")
}

func (e LandlockEntry) errnoName() string {
	if e.Errno == "" {
		return "EPERM"
	}
	return e.Errno
}

// landlockSets are the plan's path sets a grant row may name, each with
// the constant of package sandbox and how a reviewer reads it.
var landlockSets = map[string]struct{ goName, what string }{
	"root":       {"llRoot", "/ (the whole host)"},
	"hidden":     {"llHidden", "each hidden path"},
	"cache-root": {"llCacheRoots", "each cache root of sandtable's (every workspace's caches)"},
	"redacted":   {"llRedacted", "each redacted file"},
	"read":       {"llRead", "each Config.Read path"},
	"workspace":  {"llWorkspace", "the workspace"},
	"write":      {"llWrite", "each Config.Write path"},
	"caches":     {"llCaches", "each tool cache"},
	"tmpdir":     {"llTmpdir", "the run's private temporary directory (TMPDIR)"},
	"terminals":  {"llTerminals", "the terminals among the command's standard streams"},
	"protected":  {"llProtected", "each protected path (protect read-only only)"},
	"paths":      {"llPaths", "constant paths"},
}

// landlockPorts are what a network row's connect may name.
var landlockPorts = map[string]string{"proxy": "the proxy's port (any address)"}

// landlockNetworkModes are the network modes a network row may name.
var landlockNetworkModes = map[string]string{"proxy": "NetworkProxy", "off": "NetworkOff", "host": "NetworkHost"}

// landlockProtectModes are how a protect row keeps the protected paths.
var landlockProtectModes = map[string]string{
	"detect":    "writable; hashed before the run, watched during it and compared after; a change kills the run and is restored",
	"read-only": "read-only by the ruleset; the workspace's top level and each directory above a protected path take no new entries",
}

// landlockDoes are the helper's steps a does row may name.
var landlockDoes = map[string]string{
	"cap-drop":    "a root caller's command runs with no capabilities: bounding set, ambient, inheritable, permitted and effective emptied",
	"subreaper":   "the helper is the run's child subreaper and kills what is left when the command ends",
	"new-session": "the command starts in a session of its own unless Config.Interactive",
	"tmpdir":      "a private temporary directory, made 0700 for the run and removed after it, named by TMPDIR",
	"say-reduced": "one line on stderr at the start of each run names the backend and the guarantees it does not keep",
}

// socketTypes, socketProtocols and cloneFlags are the words the
// refuse-socket and refuse-clone rows may name (the same numbers on
// every ABI the filter knows).
var (
	socketTypes     = map[string]uint32{"SOCK_STREAM": 1, "SOCK_DGRAM": 2, "SOCK_RAW": 3, "SOCK_RDM": 4, "SOCK_SEQPACKET": 5}
	socketProtocols = map[string]uint32{"IPPROTO_IP": 0, "IPPROTO_TCP": 6, "IPPROTO_UDP": 17, "IPPROTO_SCTP": 132, "IPPROTO_MPTCP": 262}
	cloneFlags      = map[string]uint32{
		"CLONE_NEWTIME": 0x80, "CLONE_NEWNS": 0x20000, "CLONE_NEWCGROUP": 0x2000000, "CLONE_NEWUTS": 0x4000000,
		"CLONE_NEWIPC": 0x8000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000,
	}
	// landlockSyscalls are the calls a refuse-syscall row may name, and
	// the ones the filter reads the arguments of, numbered as
	// seccompSyscalls.
	landlockSyscalls = map[string][4]uint32{
		"unshare": {272, 310, 97, 337},
		"setns":   {308, 346, 268, 375},
		"clone3":  {435, 435, 435, 435},
	}
	landlockArgCalls = map[string][4]uint32{
		"clone":  {56, 120, 220, 120},
		"socket": {41, 359, 198, 281},
	}
	// landlockErrnos are the errors a landlock seccomp row may return.
	landlockErrnos = map[string]uint32{"EPERM": 1, "ENOSYS": 38, "EAFNOSUPPORT": 97, "EPROTONOSUPPORT": 93, "ESOCKTNOSUPPORT": 94, "EACCES": 13}
)

// landlockKeys are the section's keys: the row's id and why, and each
// kind's.
var landlockKeys = []string{"id", "why", "handles", "grant", "for", "paths", "network", "handles-net", "connect",
	"scopes", "refuse-socket", "keep-types", "keep-protocols", "refuse-syscall", "refuse-clone", "errno",
	"protect", "default", "does", "redirect", "env"}

// landlockSection reads the linux table's landlock section.
func (l *loader) landlockSection(n *yaml.Node) []LandlockEntry {
	if !l.kind(n, yaml.SequenceNode, "", "landlock") {
		return nil
	}
	var out []LandlockEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "landlock entry") {
			continue
		}
		en := LandlockEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "landlock: id")
		}
		list := func(v *yaml.Node, what string) []string {
			s := l.strs(v, en.ID, what)
			if s == nil {
				s = []string{}
			}
			return s
		}
		l.keys(e, en.ID, landlockKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			case "handles":
				en.Handles = list(v, key)
			case "grant":
				en.Grant = list(v, key)
			case "for":
				en.For, _ = l.str(v, en.ID, key)
			case "paths":
				en.Paths = list(v, key)
			case "network":
				en.Network, _ = l.str(v, en.ID, key)
			case "handles-net":
				en.HandlesNet = list(v, key)
			case "connect":
				en.Connect, _ = l.str(v, en.ID, key)
			case "scopes":
				en.Scopes = list(v, key)
			case "refuse-socket":
				en.RefuseSocket = list(v, key)
			case "keep-types":
				en.KeepTypes = list(v, key)
			case "keep-protocols":
				en.KeepProtocols = list(v, key)
			case "refuse-syscall":
				en.RefuseSyscall, _ = l.str(v, en.ID, key)
			case "refuse-clone":
				en.RefuseClone = list(v, key)
			case "errno":
				en.Errno, _ = l.str(v, en.ID, key)
			case "protect":
				en.Protect, _ = l.str(v, en.ID, key)
			case "default":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
					l.at(l.pos(v), en.ID, "default: got %q (want true or false)", v.Value)
					return
				}
				en.Default = v.Value == "true"
			case "does":
				en.Does, _ = l.str(v, en.ID, key)
			case "redirect":
				en.Redirect, _ = l.str(v, en.ID, key)
			case "env":
				en.Env, _ = l.str(v, en.ID, key)
			}
		})
		if lookup(e, "why") == nil {
			l.at(en.Pos, en.ID, "landlock: missing key why (want the reason a reviewer reads)")
		}
		kinds := 0
		for _, k := range []string{"handles", "grant", "network", "scopes", "refuse-socket", "refuse-syscall", "refuse-clone", "protect", "does", "redirect"} {
			if lookup(e, k) != nil {
				kinds++
			}
		}
		if kinds != 1 {
			l.at(en.Pos, en.ID, "landlock: a row is of one kind (want exactly one of handles, grant, network, scopes, refuse-socket, refuse-syscall, refuse-clone, protect, does, redirect)")
		}
		out = append(out, en)
	}
	return out
}

// backendCol reads a row's landlock column: {enforce, why}.
func (l *loader) backendCol(v *yaml.Node, id string) *BackendCol {
	if !l.kind(v, yaml.MappingNode, id, "landlock") {
		return nil
	}
	c := &BackendCol{Pos: l.pos(v)}
	l.keys(v, id, []string{"enforce", "why"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "enforce":
			c.Enforce, _ = l.str(v, id, "landlock.enforce")
		case "why":
			c.Why, _ = l.str(v, id, "landlock.why")
		}
	})
	for _, key := range []string{"enforce", "why"} {
		if lookup(v, key) == nil {
			l.at(c.Pos, id, "landlock: missing key %s (want %s)", key, map[string]string{
				"enforce": "kept, weaker or lost", "why": "how the reduced backend enforces the row, or why it cannot",
			}[key])
		}
	}
	return c
}

// parseRights reads right names with the mechanism's own parser.
func parseRights(words []string) (landlock.AccessFS, error) {
	return landlock.ParseFS(strings.Join(words, ","))
}
