// Package gen loads the rule table under rules/, checks it, and emits the
// typed builders of package sandbox and the reviewers' docs/POLICY.md.
package gen

import (
	"fmt"
	"strings"
)

// Pos is a place in a rule file, for errors a reviewer can jump to.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Table is the whole policy: the shared data and one table per platform.
type Table struct {
	Common Common
	Linux  *Platform
	Darwin *Platform
}

// Common is what both platforms share (rules/common.yaml).
type Common struct {
	Policy Policy
	// Backend is the backend section; nil when the table has none.
	Backend  *Policy
	StripEnv []Entry // Value is the variable's name or pattern (see env.go)
	// StripEnvValues strip a variable by its value; see env_values.go.
	StripEnvValues []ValueEntry
	KeepEnv        []Entry // Value is the variable's name
	DefaultHidden  []Entry // Value is "$home/rel" or an absolute path
	Stdio          []StdioEntry
	Protect        []ProtectEntry
	Caches         []CacheEntry
	Redact         []RedactEntry
	Offline        []OfflineEntry
	ProxyRefuse    []ProxyRefuse
	// Refuse is nil when the table has no refuse section.
	Refuse     []RefuseEntry
	NetDefault []NetDefaultEntry
	ProxyAuth  []ProxyAuth
	GitSearch  []GitSearch
}

// Policy names the environment variable that selects the policy and the
// values it accepts.
type Policy struct {
	Variable    string
	Default     string
	Values      []Entry // ID is the value itself
	VariablePos Pos
	DefaultPos  Pos
}

// Entry is one row of the shared table.
type Entry struct {
	Pos   Pos
	ID    string
	Value string
	Why   string
	// Catches and Spares are a strip-env pattern's examples: names it
	// must match and names it must not.
	Catches, Spares []string
}

// Platform is one platform's ordered rules.
type Platform struct {
	Pos     Pos
	Name    string // linux or darwin
	Program string
	Rules   []*Rule
	// Seccomp is what the filter a --seccomp $seccompfd rule loads
	// refuses (linux only).
	Seccomp []SeccompEntry
	// Limits bound what one run may use (linux only); see LimitEntry.
	Limits []LimitEntry
	// Watch is what NewCmd watches on the host during a run (linux only).
	Watch []WatchEntry
	// Diagnose is why the sandbox cannot start, and the fixes (linux only).
	Diagnose []DiagnoseEntry
	// Landlock is what the reduced backend does instead of the program
	// (linux only; landlock.go). Nil without a landlock section.
	Landlock []LandlockEntry
}

// SeccompEntry is one row of the linux table's seccomp section: a system
// call, or an ioctl request, that fails with EPERM in the sandbox.
type SeccompEntry struct {
	Pos     Pos
	ID      string
	Syscall string
	Ioctl   string
	// SetidMode is a system call refused only when the mode it sets has
	// the setuid or setgid bit.
	SetidMode string
	// KeepFamilies are the only address families socket(2) and
	// socketpair(2) may ask for; every other one is refused.
	KeepFamilies []string
	// Errno is what the refused call returns: a name from the generator's
	// vocabulary; "" is EPERM.
	Errno    string
	ErrnoPos Pos
	Why      string
	// Landlock is the reduced backend's column (landlock.go).
	Landlock *BackendCol
}

// What is the entry as a reviewer reads it.
func (e SeccompEntry) What() string {
	switch {
	case e.Ioctl != "":
		return "ioctl " + e.Ioctl
	case e.SetidMode != "":
		return "setuid/setgid mode in " + e.SetidMode
	case e.KeepFamilies != nil:
		return familiesPrefix + strings.Join(e.KeepFamilies, " ")
	}
	return "syscall " + e.Syscall
}

// familiesPrefix begins What of a keep-families entry.
const familiesPrefix = "socket and socketpair in every family but "

// Kind is the entry's key: syscall, ioctl or setid-mode.
func (e SeccompEntry) Kind() string {
	switch {
	case e.Ioctl != "":
		return "ioctl"
	case e.SetidMode != "":
		return "setid-mode"
	case e.KeepFamilies != nil:
		return "keep-families"
	}
	return "syscall"
}

// ErrnoName is the errno the refused call returns.
func (e SeccompEntry) ErrnoName() string {
	if e.Errno == "" {
		return "EPERM"
	}
	return e.Errno
}

// Cond is one `when` word, possibly negated.
type Cond struct {
	Not  bool
	Word string
}

func (c Cond) String() string {
	if c.Not {
		return "not " + c.Word
	}
	return c.Word
}

// Filter is one SBPL filter: (subpath "/usr"), (literal $path),
// (global-name "com.apple.logd"), (remote ip "*:*"), (require-not ...).
// Value is the operand of a leaf filter; Form is the address form of
// remote and local (ip or unix-socket); Of holds the filters a
// require-all, require-not or unix-socket address combines. See
// gen/sbpl_filter.go for the vocabulary.
type Filter struct {
	Kind  string
	Value string
	Form  string
	Of    []Filter
}

// Rule is one row of a platform table. Linux rules carry Args; darwin rules
// carry an Action with its Ops and Filters, or a Version.
type Rule struct {
	Pos      Pos
	ID       string
	Why      string
	Reviewed string
	// Landlock is the reduced backend's column (linux only; landlock.go).
	Landlock *BackendCol
	When     []Cond
	WhenPos  Pos
	For      string
	Group    string

	Args    []string
	ArgsPos Pos

	Version int
	Action  string // "version", "allow" or "deny"
	Ops     []string
	Filters []Filter
	OpsPos  Pos
}

// WhenString is the condition as a reviewer reads it.
func (r *Rule) WhenString() string {
	s := ""
	for i, c := range r.When {
		if i > 0 {
			s += ", "
		}
		s += c.String()
	}
	return s
}
