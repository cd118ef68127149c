package sandbox

import (
	"encoding/binary"
	"slices"
	"testing"
)

// without returns the table less the entries of rules ids, for a control
// that shows what one entry stops; an id that names no entry fails tb.
func (t seccompTable) without(tb testing.TB, ids ...string) seccompTable {
	tb.Helper()
	seen := map[string]bool{}
	keep := func(rule string) bool {
		if slices.Contains(ids, rule) {
			seen[rule] = true
			return false
		}
		return true
	}
	var out seccompTable
	for _, e := range t.syscalls {
		if keep(e.rule) {
			out.syscalls = append(out.syscalls, e)
		}
	}
	for _, e := range t.modes {
		if keep(e.rule) {
			out.modes = append(out.modes, e)
		}
	}
	for _, e := range t.ioctls {
		if keep(e.rule) {
			out.ioctls = append(out.ioctls, e)
		}
	}
	for _, e := range t.families {
		if keep(e.rule) {
			out.families = append(out.families, e)
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
	for goarch := range seccompArches {
		p := seccompFilter(goarch)
		if len(p) == 0 || len(p)%8 != 0 || binary.LittleEndian.Uint16(p[len(p)-8:]) != bpfRetK {
			t.Errorf("%s: a filter of %d bytes that does not end in a return", goarch, len(p))
		}
	}
}
