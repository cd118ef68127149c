package gen

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in the rule table, at a position, in one rule.
type Error struct {
	Pos  Pos
	Rule string // "" outside a rule
	Msg  string
}

func (e *Error) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("%s: rule %q: %s", e.Pos, e.Rule, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// Errors is every problem found in one run, in file order, so a reviewer
// fixes a table in one pass instead of one error at a time.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// errs collects problems while loading and checking.
type errs struct{ list Errors }

func (c *errs) at(p Pos, rule, format string, args ...any) {
	c.list = append(c.list, &Error{Pos: p, Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (c *errs) err() error {
	if len(c.list) == 0 {
		return nil
	}
	sort.SliceStable(c.list, func(i, j int) bool {
		a, b := c.list[i].Pos, c.list[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	// One mistake can be seen twice (an operand used twice, a check run
	// over a partly loaded table); say it once.
	out := c.list[:1]
	for _, e := range c.list[1:] {
		if *e != *out[len(out)-1] {
			out = append(out, e)
		}
	}
	c.list = out
	return c.list
}
