package gen

import "fmt"

// limitsDiff compares the limits sections by limit: a default raised, a
// limit dropped or made unenforced widens what a run may use.
func limitsDiff(o, n *Platform) []string {
	var out []string
	line := func(format string, args ...any) {
		out = append(out, "linux: "+fmt.Sprintf(format, args...))
	}
	byLimit := func(p *Platform) map[string]LimitEntry {
		m := map[string]LimitEntry{}
		if p == nil {
			return m // a table without the platform: every limit removed
		}
		for _, e := range p.Limits {
			_ = e.parse()
			m[e.Limit] = e
		}
		return m
	}
	om, nm := byLimit(o), byLimit(n)
	for _, name := range limitOrder {
		a, hadA := om[name]
		b, hasB := nm[name]
		switch {
		case !hadA && !hasB:
		case !hasB:
			line("limits %q: removed: %s (widened)", a.ID, a.What())
		case !hadA:
			line("limits %q: added: %s (%s)", b.ID, b.What(), limitReach(LimitEntry{}, b))
		case a.What() != b.What():
			line("limits %q: changed: %s -> %s (%s)", b.ID, a.What(), b.What(), limitReach(a, b))
		}
	}
	return out
}

// limitReach is how a change of default moves what a run may use; 0 is
// none, the widest.
func limitReach(a, b LimitEntry) reach {
	var r reach
	wider := func(x, y uint64) bool { return x != 0 && (y == 0 || y > x) }
	share := func(x, y uint64) bool { return x != 0 && (y == 0 || y < x) }
	r.wider = wider(a.Value, b.Value) || share(a.RAMShare, b.RAMShare) ||
		a.Unenforceable == "refuse" && b.Unenforceable == "run"
	r.narrower = wider(b.Value, a.Value) || share(b.RAMShare, a.RAMShare) ||
		a.Unenforceable == "run" && b.Unenforceable == "refuse"
	return r
}
