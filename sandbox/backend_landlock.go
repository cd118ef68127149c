package sandbox

import (
	"fmt"
	"strings"

	"github.com/sandtable/sandtable/internal/landlock"
)

// The reduced backend's plan: the Landlock ruleset the landlock section of
// rules/linux.yaml gives a plan, computed here (pure, on every OS, over the
// file system internal/landlock lists) and applied by the helper
// (backend_landlock_linux.go), which adds the run's own temporary directory
// and terminals. The grants only add rights below paths that already have
// fewer, so the helper's additions need no new plan.

// landlockDropRows are landlock rows a test's control leaves out of the
// ruleset and the second filter; empty otherwise.
var landlockDropRows = map[string]bool{}

// landlockSpec is the ruleset's input for plan p in network mode mode.
// The protected paths are granted read-only only in protect mode
// read-only; detection needs no grant.
func landlockSpec(p *plan, mode NetworkMode, protectReadOnly bool) landlock.Spec {
	spec := landlock.Spec{Handled: landlock.AccessFS(landlockHandled), Scoped: landlock.Scope(landlockScoped)}
	if landlockDropRows[landlockScopeRule] {
		spec.Scoped = 0
	}
	if mode == NetworkHost && p.net.HostAbstract {
		spec.Scoped &^= landlock.ScopeAbstractUnix
	}
	for _, r := range landlockNetRows {
		if r.mode == mode && !landlockDropRows[r.rule] {
			spec.HandledNet = landlock.AccessNet(r.handled)
		}
	}
	for _, g := range landlockGrants {
		if landlockDropRows[g.rule] {
			continue
		}
		a := landlock.AccessFS(g.rights)
		add := func(path string, must bool) {
			spec.Grants = append(spec.Grants, landlock.Grant{Path: path, Access: a, Must: must})
		}
		facts := func(fs []pathFact, must bool) {
			for _, f := range fs {
				add(f.path, must)
			}
		}
		switch g.set {
		case llRoot:
			add("/", false)
		case llHidden:
			facts(p.hidden, false)
		case llCacheRoots:
			facts(p.cacheRoots, false)
		case llRedacted:
			facts(p.redacted, false)
		case llRead:
			facts(p.read, false)
		case llWorkspace:
			add(p.workspace, true)
		case llWrite:
			facts(p.write, true)
		case llCaches:
			facts(p.caches, true)
		case llProtected:
			if protectReadOnly {
				facts(p.protected, false)
			}
		case llPaths:
			for _, path := range g.paths {
				add(path, false)
			}
		}
		// llTmpdir and llTerminals are the helper's, at run time.
	}
	return spec
}

// landlockGrantFor is the rights the grant row of set gives, and its id.
func landlockGrantFor(set llSet) (landlock.AccessFS, string) {
	for _, g := range landlockGrants {
		if g.set == set {
			return landlock.AccessFS(g.rights), g.rule
		}
	}
	return 0, ""
}

// planLandlock plans p's ruleset for ABI abi in mode, reading this
// machine's file system.
func planLandlock(p *plan, mode NetworkMode, abi int, protectReadOnly bool) (*landlock.Ruleset, error) {
	rs, err := landlock.Plan(landlockSpec(p, mode, protectReadOnly), abi, landlock.OS{})
	if err != nil {
		return nil, fmt.Errorf("sandbox: backend landlock: %w", err)
	}
	return rs, nil
}

// missingRow is a right or scope of the landlock section that ABI abi
// lacks, with the row that asks for it.
type missingRow struct {
	name, rule, why string
}

// landlockMissing is what the landlock section asks of the kernel that
// ABI abi does not have.
func landlockMissing(abi int) []missingRow {
	if abi < 1 {
		return []missingRow{{name: "landlock", rule: "landlock-handled", why: "this kernel has no Landlock (or a seccomp filter refuses its calls): the reduced backend cannot run"}}
	}
	var out []missingRow
	lack := func(name, rule string, needs int) {
		out = append(out, missingRow{name: name, rule: rule, why: fmt.Sprintf("this kernel's Landlock ABI %d lacks %s (ABI %d)", abi, name, needs)})
	}
	if fs := landlock.AccessFS(landlockHandled) &^ landlock.FSAt(abi); fs != 0 {
		for _, n := range strings.Split(fs.String(), ",") {
			needs := 1
			for v := 1; v <= 9; v++ {
				if r, _ := landlock.ParseFS(n); landlock.FSAt(v)&r != 0 {
					needs = v
					break
				}
			}
			lack(n, "landlock-handled", needs)
		}
	}
	for _, r := range landlockNetRows {
		if net := landlock.AccessNet(r.handled) &^ landlock.NetAt(abi); net != 0 {
			lack(net.String(), r.rule, 4)
		}
	}
	if sc := landlock.Scope(landlockScoped) &^ landlock.ScopesAt(abi); sc != 0 {
		lack(sc.String(), landlockScopeRule, 6)
	}
	return out
}

// landlockNeedsNet reports whether mode needs Landlock's network rights:
// without them (ABI before 4) modes proxy and off cannot be kept, and the
// spawn is refused rather than run with the network open.
func landlockNeedsNet(mode NetworkMode) bool {
	for _, r := range landlockNetRows {
		if r.mode == mode && r.handled != 0 {
			return true
		}
	}
	return false
}

// landlockUsable says why the reduced backend cannot run for mode here,
// or nil.
func landlockUsable(mode NetworkMode) error {
	abi := landlock.ABI()
	if abi < 1 {
		return &unavailableError{
			reason: "the reduced backend (landlock) cannot run: this kernel has no Landlock, or a seccomp filter refuses its system calls (a container profile from before Landlock)",
			hint:   "allow landlock_create_ruleset, landlock_add_rule and landlock_restrict_self in the container's seccomp profile; " + optOut(),
		}
	}
	if landlockNeedsNet(mode) && landlock.NetAt(abi) == 0 {
		return &unavailableError{
			reason: fmt.Sprintf("the reduced backend (landlock) cannot keep network mode %s: this kernel's Landlock ABI %d has no network rights (ABI 4, Linux 6.7)", mode, abi),
			hint:   "choose --network host (Network.Mode NetworkHost) explicitly; " + optOut(),
		}
	}
	return nil
}
