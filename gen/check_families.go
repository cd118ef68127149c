package gen

import (
	"maps"
	"slices"
)

// checkFamilies checks a keep-families entry: known, distinct families, at
// least one; one such entry in the table; and, since i386's socketcall
// carries socket(2)'s family where the filter cannot read it, a row that
// refuses socketcall outright.
func checkFamilies(c *errs, e SeccompEntry, all []SeccompEntry) {
	if len(e.KeepFamilies) == 0 {
		c.at(e.Pos, e.ID, "seccomp: keep-families keeps no family, so no program could open a socket (want the families to keep, such as AF_UNIX)")
	}
	seen := map[string]bool{}
	for _, f := range e.KeepFamilies {
		if _, ok := socketFamilies[f]; !ok {
			c.at(e.Pos, e.ID, "seccomp: keep-families: unknown address family %q (want one of %s)", f, words(slices.Sorted(maps.Keys(socketFamilies))))
		}
		if seen[f] {
			c.at(e.Pos, e.ID, "seccomp: keep-families: %s is listed twice (want each once)", f)
		}
		seen[f] = true
	}
	bypassed := true
	first := ""
	for _, o := range all {
		if o.KeepFamilies != nil && first == "" {
			first = o.ID
		}
		if o.Syscall == familyBypass {
			bypassed = false
		}
	}
	if first != e.ID {
		c.at(e.Pos, e.ID, "seccomp: keep-families already in %q (want one entry: a family must pass both)", first)
	}
	if bypassed {
		c.at(e.Pos, e.ID, "seccomp: i386's %s passes socket's family in memory the filter cannot read (want a row refusing syscall %s)", familyBypass, familyBypass)
	}
}
