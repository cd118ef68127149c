package gen

import "strings"

// bwrapFlag is one option of bwrap 0.8.0 (`bwrap --help`), read by the
// checks, the semantic diff, the posture table and (through
// sandbox/zz_vocab.go) the sandbox's view of its own mounts.
type bwrapFlag struct {
	operands int       // how many operands follow it
	fd       bool      // its first operand is a descriptor number
	mount    mountKind // what it does at its destination; dest() if it has one
	// hostWrite marks a flag that lets the sandbox write to the host path
	// it names; such a grant outside the workspace needs `reviewed`.
	hostWrite bool
	// level orders the bind flags by what they let through (1 read,
	// 2 write, 3 devices), so --bind to --ro-bind reads as a narrowing.
	level int
	// pol is which way the flag moves the sandbox; polOf, when set,
	// decides by the rule and the operands instead.
	pol   polarity
	polOf func(r *Rule, ops []string) polarity
	// posture adds what the flag gives or takes to the posture table.
	posture func(p posture, u flagAt)
	// home is what the flag makes of a home directory under its
	// destination, for the posture's Home directory row; "" leaves it.
	home string
	// seccomp marks a flag whose descriptor is a seccomp filter bwrap
	// loads; caps one whose operand is a capability name; size one whose
	// operand is a size in bytes.
	seccomp, caps, size bool
	// before is the flag a modifier must come right before ("" for any).
	before string
}

// mountKind is what a flag leaves at its destination.
type mountKind uint8

const (
	mountNone     mountKind = iota // no destination: a namespace, an option, a descriptor
	mountBind                      // a host path bound there: the host's file shows
	mountData                      // a file read from a descriptor
	mountFD                        // the directory of a descriptor
	mountFresh                     // a new file system: nothing of the host's remains under it
	mountCreate                    // a directory or symlink made there
	mountRemount                   // an existing mount changed (--remount-ro)
	mountModifier                  // no destination: it modifies the next mount (--size, --perms)
)

// dest reports whether the flag's last operand is a mount destination.
func (f bwrapFlag) dest() bool { return f.mount != mountNone && f.mount != mountModifier }

// shows reports whether something of the table's making is at the
// destination after the flag: a bind's or a data file's content.
func (f bwrapFlag) shows() bool { return f.mount == mountBind || f.mount == mountData }

// flagAt is one use of a flag in a rule, as the posture reads it: i is the
// flag's index in r.Args, cond the rule's spawn-level condition.
type flagAt struct {
	r       *Rule
	i       int
	flag    string
	spec    bwrapFlag
	ops     []string
	cond    string
	seccomp []SeccompEntry
}

func (u flagAt) add(p posture, row, text string) { p.add(row, u.r.ID, text, u.cond) }

// try is what a -try flag adds to its entry.
func (u flagAt) try() string {
	if strings.HasSuffix(u.flag, "-try") {
		return " if it exists"
	}
	return ""
}

// postureText adds one fixed entry to a row.
func postureText(row, text string) func(posture, flagAt) {
	return func(p posture, u flagAt) { u.add(p, row, text) }
}

// postureNothing is a flag that gives and takes nothing a reviewer reads
// in the posture (the end of options, a tmpfs's mode).
func postureNothing(posture, flagAt) {}

// postureOther shows the flag as written, under Other.
func postureOther(p posture, u flagAt) {
	u.add(p, "Other", code(strings.Join(append([]string{u.flag}, u.ops...), " ")))
}

var (
	postureNewUserns = postureText("Privileges", "a new user namespace")
	postureNoUserns  = postureText("Privileges", "cannot create nested user namespaces")
	postureNoNet     = postureText("Network", "none: a new, empty network namespace")
)

// bwrapFlags is the bwrap vocabulary: one row per flag.
var bwrapFlags = map[string]bwrapFlag{
	"--args":                   {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--unshare-all":            {pol: restrict, posture: postureUnshareAll},
	"--share-net":              {pol: grant, posture: postureShareNet},
	"--unshare-user":           {pol: restrict, posture: postureNewUserns},
	"--unshare-user-try":       {pol: restrict, posture: postureNewUserns},
	"--unshare-ipc":            {pol: restrict, posture: postureOther},
	"--unshare-pid":            {pol: restrict, posture: postureText("Processes", "a new pid namespace")},
	"--unshare-net":            {pol: restrict, posture: postureNoNet},
	"--unshare-uts":            {pol: restrict, posture: postureOther},
	"--unshare-cgroup":         {pol: restrict, posture: postureOther},
	"--unshare-cgroup-try":     {pol: restrict, posture: postureOther},
	"--userns":                 {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--userns2":                {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--disable-userns":         {pol: restrict, posture: postureNoUserns},
	"--assert-userns-disabled": {pol: restrict, posture: postureNoUserns},
	"--pidns":                  {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--uid":                    {operands: 1, pol: mixed, posture: postureOther},
	"--gid":                    {operands: 1, pol: mixed, posture: postureOther},
	"--hostname":               {operands: 1, pol: mixed, posture: postureOther},
	"--chdir":                  {operands: 1, pol: mixed, posture: postureOther},
	"--clearenv":               {pol: restrict, posture: postureText("Environment", "cleared")},
	"--setenv":                 {operands: 2, pol: mixed, posture: postureSetenv},
	"--unsetenv":               {operands: 1, pol: restrict, posture: postureUnsetenv},
	"--lock-file":              {operands: 1, pol: mixed, posture: postureOther},
	"--sync-fd":                {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--bind":                   {operands: 2, mount: mountBind, hostWrite: true, level: 2, pol: grant, posture: postureBind, home: homeWritable},
	"--bind-try":               {operands: 2, mount: mountBind, hostWrite: true, level: 2, pol: grant, posture: postureBind, home: homeWritable},
	"--dev-bind":               {operands: 2, mount: mountBind, hostWrite: true, level: 3, pol: grant, posture: postureDevBind, home: homeWritable},
	"--dev-bind-try":           {operands: 2, mount: mountBind, hostWrite: true, level: 3, pol: grant, posture: postureDevBind, home: homeWritable},
	"--ro-bind":                {operands: 2, mount: mountBind, level: 1, polOf: roBindPolarity, posture: postureROBind, home: homeReadOnly},
	"--ro-bind-try":            {operands: 2, mount: mountBind, level: 1, polOf: roBindPolarity, posture: postureROBind, home: homeReadOnly},
	"--bind-fd":                {operands: 2, fd: true, mount: mountFD, hostWrite: true, pol: grant, posture: postureBindFD},
	"--ro-bind-fd":             {operands: 2, fd: true, mount: mountFD, pol: grant, posture: postureROBindFD},
	"--remount-ro":             {operands: 1, mount: mountRemount, pol: restrict, posture: postureRemountRO},
	"--exec-label":             {operands: 1, pol: mixed, posture: postureOther},
	"--file-label":             {operands: 1, pol: mixed, posture: postureOther},
	"--proc":                   {operands: 1, mount: mountFresh, pol: restrict, posture: postureProc},
	"--dev":                    {operands: 1, mount: mountFresh, pol: restrict, posture: postureDev},
	"--tmpfs":                  {operands: 1, mount: mountFresh, polOf: tmpfsPolarity, posture: postureTmpfs, home: "an empty tmpfs"},
	"--mqueue":                 {operands: 1, mount: mountFresh, pol: mixed, posture: postureOther},
	"--dir":                    {operands: 1, mount: mountCreate, pol: mixed, posture: postureOther},
	"--file":                   {operands: 2, fd: true, mount: mountData, pol: mixed, posture: postureData("")},
	"--bind-data":              {operands: 2, fd: true, mount: mountData, pol: mixed, posture: postureData("")},
	"--ro-bind-data":           {operands: 2, fd: true, mount: mountData, pol: restrict, posture: postureData(", read-only")},
	"--symlink":                {operands: 2, mount: mountCreate, pol: mixed, posture: postureOther},
	"--seccomp":                {operands: 1, fd: true, seccomp: true, pol: restrict, posture: postureSeccomp},
	"--add-seccomp-fd":         {operands: 1, fd: true, seccomp: true, pol: restrict, posture: postureSeccomp},
	"--block-fd":               {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--userns-block-fd":        {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--info-fd":                {operands: 1, fd: true, pol: mixed, posture: postureOther},
	"--json-status-fd":         {operands: 1, fd: true, pol: mixed, posture: postureStatusFD},
	"--new-session":            {pol: restrict, posture: postureText("Terminal", "no controlling terminal (a new session), so no TIOCSTI into the caller's")},
	"--die-with-parent":        {pol: restrict, posture: postureText("Processes", "killed when the thread that started it dies")},
	"--as-pid-1":               {pol: mixed, posture: postureOther},
	"--cap-add":                {operands: 1, caps: true, pol: grant, posture: postureCapAdd},
	"--cap-drop":               {operands: 1, caps: true, pol: restrict, posture: postureCapDrop},
	"--perms":                  {operands: 1, mount: mountModifier, pol: mixed, posture: postureNothing},
	"--size":                   {operands: 1, mount: mountModifier, size: true, before: "--tmpfs", pol: restrict, posture: postureSize},
	"--chmod":                  {operands: 2, pol: mixed, posture: postureOther},
	"--":                       {pol: neutral, posture: postureNothing},
}

// The Home directory row's words for a mount over the home.
const (
	homeReadOnly = "readable, not writable"
	homeWritable = "readable and writable"
)

// roBindPolarity: a read-only bind of the root or of a caller's path
// grants reads; of another constant it both exposes the host's copy and
// stops writes to what it covers.
func roBindPolarity(_ *Rule, ops []string) polarity {
	if ops[0] == "/" || strings.HasPrefix(ops[0], "$") {
		return grant
	}
	return mixed
}

// tmpfsPolarity: a tmpfs over a hidden path hides it; over a constant it
// also makes the place writable.
func tmpfsPolarity(r *Rule, _ []string) polarity {
	if hidingFor(r.For) {
		return restrict
	}
	return mixed
}
