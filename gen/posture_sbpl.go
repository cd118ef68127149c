package gen

import (
	"slices"
	"strings"
)

// opRows are the posture rows an SBPL operation decides, as its
// vocabulary row says; an operation outside it lands in Other.
func opRows(op string) []string {
	if o, ok := sbplOps[op]; ok {
		return o.rows
	}
	return rowsOther
}

// filterText lists a rule's filters as a reviewer reads them: subtrees
// first, then exact paths.
func filterText(r *Rule) string {
	if len(r.Filters) == 0 {
		return "everything"
	}
	var sub, lit, other []string
	for _, f := range r.Filters {
		switch {
		case !isPathFilter(f):
			other = append(other, code(filterKey(f)))
		case f.Kind == "literal":
			lit = append(lit, subject(r, f.Value))
		default:
			sub = append(sub, subject(r, f.Value))
		}
	}
	if len(other) > 0 && len(sub)+len(lit) == 0 {
		return strings.Join(other, ", ")
	}
	var parts []string
	if len(sub) > 0 {
		parts = append(parts, "under "+strings.Join(sub, ", "))
	}
	if len(lit) > 0 {
		parts = append(parts, "exactly "+strings.Join(lit, ", "))
	}
	if len(other) > 0 {
		parts = append(parts, "where "+strings.Join(other, ", "))
	}
	return strings.Join(parts, "; ")
}

// darwinPosture reads allow and deny forms by their operations. Whatever
// no rule allows is denied when the table starts with (deny default).
func darwinPosture(p posture, pl *Platform) {
	denyDefault := ""
	for _, r := range pl.Rules {
		cond := globalCond(r)
		switch r.Action {
		case "deny":
			if slices.Equal(r.Ops, []string{"default"}) && len(r.Filters) == 0 {
				denyDefault = r.ID
				continue
			}
			if r.For == "hidden" {
				p.add("Hidden paths", r.ID, filterText(r)+": "+codes(r.Ops)+" denied", cond)
				continue
			}
			for _, row := range rowsOf(r.Ops) {
				p.add(row, r.ID, "denied ("+codes(opsIn(r.Ops, row))+"): "+filterText(r), cond)
			}
		case "allow":
			for _, row := range rowsOf(r.Ops) {
				ops := opsIn(r.Ops, row)
				text := filterText(r)
				switch row {
				case "Read", "Write":
				case "Network":
					text = "allowed (" + codes(ops) + ")"
					if len(r.Filters) > 0 {
						text += ": " + filterText(r)
					}
				default:
					text = "allowed: " + codes(ops)
					if len(r.Filters) > 0 {
						text += ": " + filterText(r)
					}
				}
				p.add(row, r.ID, text, cond)
			}
			for _, row := range []string{"Read", "Write"} {
				if devs := devFilters(r); len(devs) > 0 && slices.Contains(rowsOf(r.Ops), row) {
					p.add("Devices", r.ID, strings.ToLower(row)+": "+devs, cond)
				}
			}
		}
	}
	if denyDefault == "" {
		return
	}
	for _, row := range []string{"Read", "Write", "Network", "Processes", "Devices", "Other"} {
		if row == "Devices" && len(p[row]) == 0 {
			continue
		}
		p.add(row, denyDefault, "everything else denied", "")
	}
}

// devFilters repeats a rule's filters on /dev, where the device nodes are,
// for the Devices row.
func devFilters(r *Rule) string {
	var devs []Filter
	for _, f := range r.Filters {
		if under(f.Value, "/dev") {
			devs = append(devs, f)
		}
	}
	if len(devs) == 0 {
		return ""
	}
	return filterText(&Rule{ID: r.ID, For: r.For, When: r.When, Filters: devs})
}

// rowsOf lists the rows a rule's operations decide, in postureRows order.
func rowsOf(ops []string) []string {
	var out []string
	for _, row := range postureRows {
		for _, op := range ops {
			if slices.Contains(opRows(op), row) {
				out = append(out, row)
				break
			}
		}
	}
	return out
}

func opsIn(ops []string, row string) []string {
	var out []string
	for _, op := range ops {
		if slices.Contains(opRows(op), row) {
			out = append(out, op)
		}
	}
	return out
}

// darwinHome applies the rules that cover a typical home directory in
// profile order, where the last match wins, once for reads and once for
// writes.
func darwinHome(pl *Platform, home string) []entry {
	var read, write *Rule
	for _, r := range pl.Rules {
		if r.For != "" || len(r.When) > 0 || (r.Action != "allow" && r.Action != "deny") {
			continue
		}
		covers := len(r.Filters) == 0
		for _, f := range r.Filters {
			if f.Kind == "subpath" && !strings.HasPrefix(f.Value, "$") && under(home, f.Value) {
				covers = true
			}
		}
		if !covers {
			continue
		}
		for _, op := range r.Ops {
			rows := opRows(op)
			if sbplOps[op].every {
				rows = []string{"Read", "Write"}
			}
			if slices.Contains(rows, "Read") {
				read = r
			}
			if slices.Contains(rows, "Write") {
				write = r
			}
		}
	}
	can := func(r *Rule, verb string) string {
		if r != nil && r.Action == "allow" {
			return verb
		}
		return "not " + verb
	}
	id := func(r *Rule) string {
		if r == nil {
			return ""
		}
		return r.ID
	}
	const except = ", except the workspace (never the home itself) and any `Config.Read` or `Config.Write` path under it"
	if read == write {
		return []entry{{text: can(read, "readable") + ", " + can(write, "writable") + except, rule: id(read)}}
	}
	return []entry{
		{text: can(read, "readable") + except, rule: id(read)},
		{text: can(write, "writable") + except, rule: id(write)},
	}
}
