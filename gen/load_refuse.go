package gen

import "gopkg.in/yaml.v3"

// RefuseEntry is one row of the shared refuse section: a configuration the
// runtime refuses, the inputs it looks at, the check it applies, and the
// test that proves the refusal.
type RefuseEntry struct {
	Pos       Pos
	ID        string
	Inputs    []string
	InputsPos Pos
	Check     string
	CheckPos  Pos
	Test      string
	TestPos   Pos
	Why       string
	// Bound is the number a bounded check compares with, as written (a
	// count, or bytes with an optional KiB, MiB or GiB suffix).
	Bound    string
	BoundPos Pos
}

// BoundValue is the bound in its check's unit, 0 when there is none or it
// cannot be read (checkRefuse reports that).
func (e RefuseEntry) BoundValue() uint64 {
	c, ok := refuseCheckNamed(e.Check)
	if !ok || c.Unit == "" || e.Bound == "none" {
		return 0
	}
	v, err := parseLimit(c.Unit, e.Bound)
	if err != nil {
		return 0
	}
	return v
}

var refuseKeys = []string{"id", "inputs", "check", "why", "test", "bound"}

var refuseKeyWant = map[string]string{
	"id":     "a unique kebab-case id",
	"inputs": "a list of " + words(refuseInputs),
	"check":  "one of " + words(refuseCheckNames()),
	"why":    "the reason a reviewer reads",
	"test":   "the name of the Go test that proves the refusal",
	"bound":  "the number a bounded check compares with",
}

// refuse reads the shared refuse section: {id, inputs, check, why, test}
// rows, and bound for a bounded check, in the order the runtime applies
// them.
func (l *loader) refuse(n *yaml.Node) []RefuseEntry {
	if !l.kind(n, yaml.SequenceNode, "", "refuse") {
		return nil
	}
	out := []RefuseEntry{}
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "refuse entry") {
			continue
		}
		en := RefuseEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "refuse: id")
		}
		l.keys(e, en.ID, refuseKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "inputs":
				en.InputsPos = l.pos(v)
				if en.Inputs = l.strs(v, en.ID, "inputs"); en.Inputs == nil && v.Kind == yaml.SequenceNode {
					en.Inputs = []string{} // an empty list, which checkRefuse reports
				}
			case "check":
				en.CheckPos = l.pos(v)
				en.Check, _ = l.str(v, en.ID, "check")
			case "test":
				en.TestPos = l.pos(v)
				en.Test, _ = l.str(v, en.ID, "test")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			case "bound":
				en.BoundPos = l.pos(v)
				en.Bound, _ = l.str(v, en.ID, "bound")
			}
		})
		for _, key := range refuseKeys {
			// checkWhy reports a missing why, checkRefuse a missing bound.
			if key != "why" && key != "bound" && lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "refuse: missing key %s (want %s)", key, refuseKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}
