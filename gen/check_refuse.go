package gen

import (
	"regexp"
	"slices"
	"strings"
)

var testName = regexp.MustCompile(`^Test[A-Z0-9_][A-Za-z0-9_]*$`)

// checkRefuse checks the refuse section against its vocabularies: a known
// check, inputs it applies to (each once), a test name, and a bound for a
// bounded check only.
func checkRefuse(c *errs, cm *Common, local, ids map[string]Pos) {
	for _, e := range cm.Refuse {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		check, known := refuseCheckNamed(e.Check)
		if e.Check != "" && !known {
			c.at(e.CheckPos, e.ID, "refuse: unknown check %q (want one of %s)", e.Check, words(refuseCheckNames()))
		}
		if e.Inputs != nil && len(e.Inputs) == 0 {
			c.at(e.InputsPos, e.ID, "refuse: no inputs (want a list of %s)", words(refuseInputs))
		}
		for i, in := range e.Inputs {
			switch {
			case !slices.Contains(refuseInputs, in):
				c.at(e.InputsPos, e.ID, "refuse: unknown input %q (want one of %s)", in, words(refuseInputs))
			case slices.Contains(e.Inputs[:i], in):
				c.at(e.InputsPos, e.ID, "refuse: input %q repeated (want each input once)", in)
			case known && !slices.Contains(check.Inputs, in):
				c.at(e.InputsPos, e.ID, "refuse: check %s does not apply to %s (want inputs among %s)", e.Check, in, words(check.Inputs))
			}
		}
		switch {
		case known && check.Unit != "" && e.Bound == "":
			c.at(e.Pos, e.ID, "refuse: check %s needs a bound (want bound: a positive number of %s)", e.Check, boundWant(check.Unit))
		case known && check.Unit == "" && e.Bound != "":
			c.at(e.BoundPos, e.ID, "refuse: check %s takes no bound (want none; the bounded checks are %s)", e.Check, words(boundedChecks()))
		case known && check.Unit != "":
			if e.BoundValue() == 0 {
				c.at(e.BoundPos, e.ID, "refuse: bound %q: not a positive number of %s", e.Bound, boundWant(check.Unit))
			}
		}
		if e.TestPos.Line > 0 && !testName.MatchString(e.Test) {
			c.at(e.TestPos, e.ID, "refuse: test %q is not a Go test name (want Test followed by an upper-case letter)", strings.TrimSpace(e.Test))
		}
	}
}

// boundWant says how a bound in unit is written.
func boundWant(unit string) string {
	if unit == "bytes" {
		return "bytes, with an optional KiB, MiB or GiB suffix"
	}
	return unit
}

// boundedChecks are the checks that take a bound.
func boundedChecks() []string {
	var out []string
	for _, c := range refuseChecks {
		if c.Unit != "" {
			out = append(out, c.Name)
		}
	}
	return out
}
