package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sandtable/sandtable/internal/landlock"
)

// Backend is how Linux builds the sandbox. [BackendBwrap], the default, is
// bubblewrap with every rule of the table; [BackendLandlock] is the
// reduced backend, Landlock and seccomp without namespaces, for where user
// namespaces cannot be made, which keeps less (each row of the table says
// what: docs/POLICY.md, "The reduced backend"); [BackendAuto] takes bwrap
// where it works here and the reduced backend elsewhere. The reduced
// backend is never a fallback by itself: [Required] with [BackendBwrap]
// refuses to spawn where bwrap cannot build a sandbox. macOS has one
// backend, Seatbelt: there BackendLandlock is refused and the others mean
// it.
type Backend uint8

const (
	// BackendFromEnv, the zero value, is the backend BackendVariable
	// names when the spawn is built; unset or empty, [BackendBwrap]. A
	// value that names no backend is an error.
	BackendFromEnv Backend = iota
	// BackendBwrap is bubblewrap: the table's full sandbox.
	BackendBwrap
	// BackendLandlock is the reduced backend.
	BackendLandlock
	// BackendAuto is bwrap where a probe shows it builds a sandbox here
	// (once per process), else the reduced backend.
	BackendAuto
)

// String returns the backend's name as BackendVariable spells it.
func (b Backend) String() string {
	switch b {
	case BackendBwrap:
		return "bwrap"
	case BackendLandlock:
		return "landlock"
	case BackendAuto:
		return "auto"
	case BackendFromEnv:
		return "$" + BackendVariable
	}
	return "Backend(" + strconv.Itoa(int(b)) + ")"
}

// ParseBackend reads a backend name, ignoring case. An unknown name is an
// error wrapping [ErrBadPolicy].
func ParseBackend(s string) (Backend, error) {
	b, ok := lookupBackend(s)
	if !ok {
		return BackendBwrap, fmt.Errorf("sandbox: backend %q: %w (accepted: %s)", s, ErrBadPolicy, strings.Join(backendValues[:], ", "))
	}
	return b, nil
}

// BackendFromEnvironment reads BackendVariable. Unset or empty means the
// table's default, [BackendBwrap].
func BackendFromEnvironment() (Backend, error) {
	s := os.Getenv(BackendVariable)
	if s == "" {
		s = backendDefault
	}
	b, ok := lookupBackend(s)
	if !ok {
		return BackendBwrap, fmt.Errorf("sandbox: %s=%q: %w (accepted: %s)", BackendVariable, s, ErrBadPolicy, strings.Join(backendValues[:], ", "))
	}
	return b, nil
}

// resolve is the backend a spawn follows: BackendFromEnv read now.
func (b Backend) resolve() (Backend, error) {
	switch b {
	case BackendFromEnv:
		return BackendFromEnvironment()
	case BackendBwrap, BackendLandlock, BackendAuto:
		return b, nil
	}
	return BackendBwrap, fmt.Errorf("sandbox: backend %s: %w (accepted: %s)", b, ErrBadPolicy, strings.Join(backendValues[:], ", "))
}

// lookupBackend accepts only the names the rule table lists.
func lookupBackend(s string) (Backend, bool) {
	for _, v := range backendValues {
		if !strings.EqualFold(s, v) {
			continue
		}
		switch v {
		case "bwrap":
			return BackendBwrap, true
		case "landlock":
			return BackendLandlock, true
		case "auto":
			return BackendAuto, true
		}
	}
	return BackendBwrap, false
}

// Guarantee is one row of the rule table that the reduced backend keeps
// only in part (Enforce "weaker") or not at all ("lost"), with why: the
// row's landlock column, or what this kernel's Landlock ABI lacks.
type Guarantee struct {
	Rule    string
	Enforce string
	Why     string
}

// Reduced lists what the reduced backend does not keep of the table, for
// Landlock ABI abi ([LandlockABI] for this kernel's): every row whose
// landlock column says weaker or lost, then each right or scope the ABI
// lacks, named by the row that asks for it. A host shows it to its user.
func Reduced(abi int) []Guarantee {
	var out []Guarantee
	for _, c := range backendColumn {
		if c.enforce != "kept" {
			out = append(out, Guarantee{Rule: c.rule, Enforce: c.enforce, Why: c.why})
		}
	}
	for _, m := range landlockMissing(abi) {
		out = append(out, Guarantee{Rule: m.rule, Enforce: "lost", Why: m.why})
	}
	return out
}

// Backend is the backend the command runs under: [BackendBwrap] (on macOS,
// Seatbelt) or [BackendLandlock]; the zero value when nothing wraps it.
func (c *Cmd) Backend() Backend { return c.backend }

// Reduced is what the command's backend does not keep of the table here
// (see the package function Reduced); nil under bwrap.
func (c *Cmd) Reduced() []Guarantee { return c.reduced }

// LandlockABI is this kernel's Landlock ABI version for this process, 0
// when the reduced backend cannot run here.
func LandlockABI() int { return landlock.ABI() }
