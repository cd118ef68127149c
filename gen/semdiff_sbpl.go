package gen

import (
	"fmt"
	"slices"
	"strings"
)

// sbplPolarity: an allow grants, a deny restricts, whatever the operations.
func sbplPolarity(r *Rule) polarity {
	switch r.Action {
	case "allow":
		return grant
	case "deny":
		return restrict
	}
	return neutral
}

func opContains(a, b string) bool {
	if sbplOps[a].every || a == b {
		return true
	}
	p, ok := strings.CutSuffix(a, "*")
	return ok && strings.HasPrefix(b, p)
}

func filterContains(a, b Filter) bool {
	if a.Kind == "*" || filterEqual(a, b) {
		return true
	}
	if !isPathFilter(a) || !isPathFilter(b) {
		return sbplFilterContains(a, b)
	}
	switch {
	case a.Kind == "literal":
		return b.Kind == "literal" && a.Value == b.Value
	case b.Kind == "literal" && a.Value == b.Value:
		return true
	}
	return contains(a.Value, b.Value)
}

// filterCoverage treats an unfiltered rule as one that matches every path.
func filterCoverage(old, new []Filter) reach {
	all := Filter{Kind: "*"} // matches what any filter matches
	if len(old) == 0 {
		old = []Filter{all}
	}
	if len(new) == 0 {
		new = []Filter{all}
	}
	return coverage(old, new, filterContains)
}

// moveReach judges a moved SBPL rule by the rules of the other action it
// crossed, since the last matching rule wins: an allow that moves past a
// deny of an overlapping operation now overrides it. Filters are not
// compared; two filters may always match the same path through a variable.
func moveReach(old, new []*Rule, m *Rule) reach {
	oldAt, newAt := indexByID(old), indexByID(new)
	var r reach
	for _, c := range new {
		oc, ok := oldAt[c.ID]
		if !ok || c.ID == m.ID || c.Action == m.Action || (c.Action != "allow" && c.Action != "deny") {
			continue
		}
		wasAfter, nowAfter := oldAt[m.ID] > oc, newAt[m.ID] > newAt[c.ID]
		if wasAfter == nowAfter || !overlaps(m.Ops, c.Ops) {
			continue
		}
		if (m.Action == "allow") == nowAfter {
			r.wider = true
		} else {
			r.narrower = true
		}
	}
	return r
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if opContains(x, y) || opContains(y, x) {
				return true
			}
		}
	}
	return false
}

func sbplDiff(o, n *Rule) []string {
	if o.Action != n.Action {
		var r reach
		switch {
		case o.Action == "deny" && n.Action == "allow":
			r.wider = true
		case o.Action == "allow" && n.Action == "deny":
			r.narrower = true
		default:
			r.unknown = true
		}
		return []string{fmt.Sprintf("action changed: %q -> %q (%s)", Emits("darwin", o), Emits("darwin", n), r)}
	}
	var out []string
	pol := rulePolarity("darwin", n)
	if o.Version != n.Version {
		out = append(out, fmt.Sprintf("version changed: %d -> %d", o.Version, n.Version))
	}
	if !slices.Equal(o.Ops, n.Ops) {
		r := coverage(o.Ops, n.Ops, opContains)
		out = append(out, fmt.Sprintf("operations changed: %s (%s)", setDiff(o.Ops, n.Ops, func(s string) string { return s }), pol.apply(r)))
	}
	if !slices.EqualFunc(o.Filters, n.Filters, filterEqual) {
		r := filterCoverage(o.Filters, n.Filters)
		out = append(out, fmt.Sprintf("filters changed: %s (%s)", setDiff(filterKeys(o.Filters), filterKeys(n.Filters), filterShow), pol.apply(r)))
	}
	return out
}
