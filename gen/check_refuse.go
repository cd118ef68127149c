package gen

import (
	"regexp"
	"slices"
	"strings"
)

var testName = regexp.MustCompile(`^Test[A-Z0-9_][A-Za-z0-9_]*$`)

// checkRefuse checks the refuse section against its vocabularies: a known
// check, inputs it applies to (each once), and a test name.
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
		if e.TestPos.Line > 0 && !testName.MatchString(e.Test) {
			c.at(e.TestPos, e.ID, "refuse: test %q is not a Go test name (want Test followed by an upper-case letter)", strings.TrimSpace(e.Test))
		}
	}
}
