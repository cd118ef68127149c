package gen

import (
	"slices"
	"strings"
)

// refuseDiff compares the refuse sections. A refusal takes a configuration
// away from the caller, and with it what the command could do with it, so
// a removed row, or one whose inputs shrank, or whose bound lets more
// through, widens; an added row, or one whose inputs grew, or whose bound
// lets less through, narrows; a changed check does both.
func refuseDiff(line func(string, ...any), old, new []RefuseEntry) {
	show := refuseEmits
	changed := func(o, n RefuseEntry) reach {
		if o.Check != n.Check {
			return reach{wider: true, narrower: true}
		}
		var r reach
		// A bound: a higher maximum, or a lower minimum, lets more
		// through.
		if ob, nb := o.BoundValue(), n.BoundValue(); ob != nb {
			check, _ := refuseCheckNamed(n.Check)
			r.wider = (nb > ob) == check.Max
			r.narrower = !r.wider
		}
		for _, in := range o.Inputs {
			r.wider = r.wider || !slices.Contains(n.Inputs, in)
		}
		for _, in := range n.Inputs {
			r.narrower = r.narrower || !slices.Contains(o.Inputs, in)
		}
		if r == (reach{}) {
			return reach{} // the same inputs in another order: each input's checks run in table order still
		}
		return r
	}
	rowDiff(line, "refuse", old, new, func(e RefuseEntry) string { return e.ID }, show, reach{wider: true}, reach{narrower: true}, changed)
	// The order decides which refusal an input meets first, not whether
	// it is refused: reported, same reach.
	var oi, ni []string
	for _, e := range old {
		if slices.ContainsFunc(new, func(n RefuseEntry) bool { return n.ID == e.ID }) {
			oi = append(oi, e.ID)
		}
	}
	for _, e := range new {
		if slices.ContainsFunc(old, func(o RefuseEntry) bool { return o.ID == e.ID }) {
			ni = append(ni, e.ID)
		}
	}
	if !slices.Equal(oi, ni) {
		line("refuse: order changed: %s -> %s (%s)", strings.Join(oi, ", "), strings.Join(ni, ", "), reach{})
	}
}
