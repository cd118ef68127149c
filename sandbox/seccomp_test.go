package sandbox

import (
	"slices"
	"testing"

	"github.com/sandtable/sandtable/internal/seccomp"
)

// seccompWithout returns t less the entries of rules ids, for a control
// that shows what one entry stops; an id that names no entry fails tb.
func seccompWithout(tb testing.TB, t seccomp.Table, ids ...string) seccomp.Table {
	tb.Helper()
	seen := map[string]bool{}
	keep := func(rule string) bool {
		if slices.Contains(ids, rule) {
			seen[rule] = true
			return false
		}
		return true
	}
	var out seccomp.Table
	for _, e := range t.Syscalls {
		if keep(e.Rule) {
			out.Syscalls = append(out.Syscalls, e)
		}
	}
	for _, e := range t.Modes {
		if keep(e.Rule) {
			out.Modes = append(out.Modes, e)
		}
	}
	for _, e := range t.Ioctls {
		if keep(e.Rule) {
			out.Ioctls = append(out.Ioctls, e)
		}
	}
	for _, e := range t.Families {
		if keep(e.Rule) {
			out.Families = append(out.Families, e)
		}
	}
	for _, id := range ids {
		if !seen[id] {
			tb.Fatalf("no seccomp entry %q in the table", id)
		}
	}
	return out
}

// TestSeccompFilterEveryArch assembles the filter for every architecture
// it knows, not only the one the tests run on: a bad jump panics, and
// every program ends in a return.
func TestSeccompFilterEveryArch(t *testing.T) {
	for goarch := range seccomp.Arches {
		if err := seccomp.Check(seccompFilter(goarch)); err != nil {
			t.Errorf("%s: %v", goarch, err)
		}
	}
}
