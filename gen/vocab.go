package gen

// The closed vocabularies of the rule table. A word outside them is an error
// at generation time, so a typo can never silently turn a rule off.

// condScope says where a condition word may be used.
type condScope uint8

const (
	scopeGlobal condScope = iota // a fact of the spawn
	scopeItem                    // a fact of the iterated path; needs `for`
)

// condition is one `when` word: the Go expression that tests it in the
// generated builders, and the facts it ranges over (used by the lints).
type condition struct {
	scope condScope
	expr  goCond // the Go test, p for the plan and f for the item
	kind  bool   // one of the mutually exclusive path kinds
	place bool   // one of the mutually exclusive places (ancestor, inside)
}

// goCond is a condition's Go test as structure: a boolean operand, or an
// operand compared (== or !=) with a literal, so that negating it flips
// the operator or prefixes !, never edits the text.
type goCond struct {
	x  string // an operand: a field of p or f
	op string // "", "==" or "!="
	y  string // the literal x is compared with; "" when op is ""
}

// is is the boolean operand x.
func is(x string) goCond { return goCond{x: x} }

// cmp is x op y.
func cmp(x, op, y string) goCond { return goCond{x: x, op: op, y: y} }

// negated is the condition's opposite.
func (c goCond) negated() goCond {
	switch c.op {
	case "==":
		c.op = "!="
	case "!=":
		c.op = "=="
	default:
		c.x = "!" + c.x
	}
	return c
}

// String is the test as Go source.
func (c goCond) String() string {
	if c.op == "" {
		return c.x
	}
	return c.x + " " + c.op + " " + c.y
}

var conditions = map[string]condition{
	"network":               {scope: scopeGlobal, expr: is("p.network")},
	"network-host":          {scope: scopeGlobal, expr: is("p.netHost")},
	"network-proxy":         {scope: scopeGlobal, expr: is("p.netProxy")},
	"interactive":           {scope: scopeGlobal, expr: is("p.interactive")},
	"caller-root":           {scope: scopeGlobal, expr: is("p.callerRoot")},
	"disable-userns":        {scope: scopeGlobal, expr: is("p.disableUserns")},
	"seccomp":               {scope: scopeGlobal, expr: cmp("p.seccompFD", "!=", `""`)},
	"status-fd":             {scope: scopeGlobal, expr: cmp("p.statusFD", "!=", `""`)},
	"block-fd":              {scope: scopeGlobal, expr: cmp("p.blockFD", "!=", `""`)},
	"dns-stub":              {scope: scopeGlobal, expr: cmp("p.resolvFD", "!=", `""`)},
	"var-tmp":               {scope: scopeGlobal, expr: is("p.varTmp")},
	"is-dir":                {scope: scopeItem, expr: cmp("f.kind", "==", `kindDir`), kind: true},
	"is-file":               {scope: scopeItem, expr: cmp("f.kind", "==", `kindFile`), kind: true},
	"is-missing":            {scope: scopeItem, expr: cmp("f.kind", "==", `kindMissing`), kind: true},
	"ancestor-of-workspace": {scope: scopeItem, expr: is("f.ancestor"), place: true},
	"inside-workspace":      {scope: scopeItem, expr: is("f.inside"), place: true},
	// darwin: the reviewed opt-in to every Mach service; a home
	// directory to name paths under; a hidden path with a case-folded
	// pattern ($foldedpath).
	"all-mach": {scope: scopeGlobal, expr: is("p.allMach")},
	"home":     {scope: scopeGlobal, expr: cmp("p.home", "!=", `""`)},
	"tmpdir":   {scope: scopeGlobal, expr: cmp("p.tmpdir", "!=", `""`)},
	"folded":   {scope: scopeItem, expr: cmp("f.folded", "!=", `""`)},
	// linux: a host socket under a world-writable sticky directory
	// (/var/tmp): scratch space whose sockets come and go.
	"in-shared-temp": {scope: scopeItem, expr: is("f.sharedTemp")},
}

// iterations maps a `for` word to the plan field it ranges over. Read and
// write paths are validated to exist, so they are never missing; pins are
// the existing directories between a writable root and a hidden path
// inside it.
var iterations = map[string]struct {
	field      string
	canMissing bool
}{
	"hidden": {field: "hidden", canMissing: true},
	"read":   {field: "read"},
	"write":  {field: "write"},
	"pin":    {field: "pins"},
	// protected are the paths of the protect section found in the
	// writable roots; a missing one gets a placeholder.
	"protected": {field: "protected", canMissing: true},
	"caches":    {field: "caches"},
	// The cache roots the run must not read: the caches' root in use and
	// the home's default one, each resolved (missing where nobody made
	// it); and the directories between the root in use and the run's own
	// caches (the root, each scope directory).
	"cache-root":  {field: "cacheRoots", canMissing: true},
	"cache-scope": {field: "cacheScopes"},
	// darwin: the directories above the workspace and the granted paths;
	// those from a hidden path inside a writable root up to that root;
	// the terminals the command's standard descriptors are.
	"ancestor": {field: "ancestors"},
	"guard":    {field: "guards"},
	"tty":      {field: "ttys"},
	// redacted are the redact section's files that exist, each with the
	// descriptor its copy is read from.
	"redacted": {field: "redacted"},
	// The host's named unix sockets to hide, and the ones the caller
	// grants: existing sockets, so never missing.
	"sockets":       {field: "sockets"},
	"socket-grants": {field: "socketGrants"},
	// A directory of host sockets rebuilt without them: the directories
	// replaced by a tmpfs, the ones made inside it, its symlinks (each
	// with its target, $target) and the other entries shown again.
	"socket-dirs":    {field: "socketDirs"},
	"socket-subdirs": {field: "socketSubdirs"},
	"socket-links":   {field: "socketLinks"},
	"socket-entries": {field: "socketEntries"},
}

// Variables. $path is the iterated item and needs `for`. The descriptor
// variables are numbers the plan hands out; $seccompfd is the filter of
// internal/seccomp, $statusfd the pipe NewCmd reads bwrap's status from.
const (
	varWorkspace = "$workspace"
	varPath      = "$path"
	varNullFD    = "$nullfd"
	varSeccompFD = "$seccompfd"
	varStatusFD  = "$statusfd"
	// varResolvFD is the DNS stub's resolv.conf in network mode proxy.
	varResolvFD = "$resolvfd"
	varHome     = "$home"
	// varEnv and varEnvList start a default-hidden path derived from an
	// environment variable's value: $env:NAME/REL, or for a variable
	// that holds a colon-separated list of paths, $env-list:NAME/REL.
	varEnv     = "$env:"
	varEnvList = "$env-list:"
	// varFoldedPath is a pattern that matches $path in any letter case,
	// for a name that does not exist yet on a case-insensitive file
	// system (sandbox/fold.go).
	varFoldedPath = "$foldedpath"
	// varTmpdir is the spawn's own temporary directory on macOS, made
	// for it and removed after it (sandbox/tmpdir.go).
	varTmpdir = "$tmpdir"
	// varTarget is the iterated symlink's target (for: socket-links),
	// written as it is, never resolved.
	varTarget = "$target"
)

var linuxVars = []string{varWorkspace, varPath, varTarget, varNullFD, varSeccompFD, varStatusFD, varTmpSize, varShmSize, varBlockFD, varRedactFD, varResolvFD}

// fdVars are the variables whose value is a descriptor number; the others
// are paths. A descriptor operand takes one of these and nothing else: a
// path there makes bwrap read a random descriptor, and a constant number
// could name any descriptor the plan hands out.
var fdVars = []string{varNullFD, varSeccompFD, varStatusFD, varBlockFD, varRedactFD, varResolvFD}

// varCondition is the condition under which a variable has a value: a
// descriptor the plan does not always hand out is "" otherwise, and bwrap
// would read an empty operand as a descriptor number.
//
// A protected path that is missing gets a placeholder read from $nullfd,
// so for: protected, is-missing hands out the descriptor too.
var varCondition = map[string]string{
	varNullFD:    "is-file",
	varSeccompFD: "seccomp",
	varStatusFD:  "status-fd",
	varBlockFD:   "block-fd",
	varResolvFD:  "dns-stub",
	varTmpdir:    "tmpdir",
}

// darwinPathVars are the variables a path filter may name;
// darwinRegexVars those a regex filter may.
var (
	darwinPathVars  = []string{varWorkspace, varPath, varTmpdir}
	darwinRegexVars = []string{varFoldedPath}
)

var groups = []string{"mounts"}

// tempDirs are the paths an SBPL write grant may name without `reviewed`:
// macOS's temporary directories, writable on macOS as /tmp is on Linux. Linux has
// none: its private /tmp is a --tmpfs, and a bind of the host's /tmp is a
// host write like any other. They are the one list of them: emitted as
// darwinTempDirs, which the runtime counts among the writable roots, and
// listed in POLICY.md's refused configurations.
var tempDirs = map[string]bool{"/private/tmp": true, "/private/var/folders": true}

// seccompSyscalls are the system calls a seccomp entry may name, with their
// numbers in each ABI the filter knows, in this order: x86-64 and its i386
// compat ABI, aarch64 and its arm compat ABI (the kernel's syscall tables;
// sandbox/seccomp_linux_test.go checks the native one against x/sys).
var seccompSyscalls = map[string][4]uint32{
	"add_key":        {248, 286, 217, 309},
	"request_key":    {249, 287, 218, 310},
	"keyctl":         {250, 288, 219, 311},
	"openat2":        {437, 437, 437, 437},
	"io_uring_setup": {425, 425, 425, 425},
	"socketcall":     {noSyscall, 102, noSyscall, noSyscall},
}

// noSyscall marks an ABI that lacks a call (aarch64 has no chmod or open).
const noSyscall = 0xffffffff

// seccompModeCalls are the system calls a setid-mode entry may name: each
// sets a file's mode, in the argument at index mode; for open and openat
// that argument counts only when the flags at index flags create a file.
// Numbers as in seccompSyscalls.
var seccompModeCalls = map[string]struct {
	nr          [4]uint32
	mode, flags int
}{
	"chmod":     {nr: [4]uint32{90, 15, noSyscall, 15}, mode: 1, flags: -1},
	"fchmod":    {nr: [4]uint32{91, 94, 52, 94}, mode: 1, flags: -1},
	"fchmodat":  {nr: [4]uint32{268, 306, 53, 333}, mode: 2, flags: -1},
	"fchmodat2": {nr: [4]uint32{452, 452, 452, 452}, mode: 2, flags: -1},
	"creat":     {nr: [4]uint32{85, 8, noSyscall, 8}, mode: 1, flags: -1},
	"mknod":     {nr: [4]uint32{133, 14, noSyscall, 14}, mode: 1, flags: -1},
	"mknodat":   {nr: [4]uint32{259, 297, 33, 324}, mode: 2, flags: -1},
	"open":      {nr: [4]uint32{2, 5, noSyscall, 5}, mode: 2, flags: 1},
	"openat":    {nr: [4]uint32{257, 295, 56, 322}, mode: 3, flags: 2},
}

// seccompIoctls are the ioctl requests a seccomp entry may name, the same
// number on every ABI the filter knows.
var seccompIoctls = map[string]uint32{
	"TIOCSTI":        0x5412,
	"TIOCLINUX":      0x541c,
	"TIOCSETD":       0x5423,
	"TIOCEXCL":       0x540c,
	"TIOCCONS":       0x541d,
	"TIOCSSERIAL":    0x541f,
	"TIOCVHANGUP":    0x5437,
	"TIOCSLCKTRMIOS": 0x5457,
	"TCXONC":         0x540a,
}
