package gen

import "gopkg.in/yaml.v3"

// envEntries reads the strip-env or keep-env rows: {id, name, why}, and
// for strip-env optional catches and spares lists of example names.
func (l *loader) envEntries(n *yaml.Node, what string) []Entry {
	if !l.kind(n, yaml.SequenceNode, "", what) {
		return nil
	}
	allowed := []string{"id", "name", "why"}
	if what == "strip-env" {
		allowed = append(allowed, "catches", "spares")
	}
	var out []Entry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", what+" entry") {
			continue
		}
		en := Entry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", what+": id")
		}
		l.keys(e, en.ID, allowed, func(key string, k, v *yaml.Node) {
			switch key {
			case "name":
				en.Value, _ = l.str(v, en.ID, what+": name")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			case "catches":
				en.Catches = l.strs(v, en.ID, "catches")
			case "spares":
				en.Spares = l.strs(v, en.ID, "spares")
			}
		})
		for _, key := range []string{"id", "name", "why"} {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "%s: missing key %s (want %s)", what, key, entryKeyWant(what, key))
			}
		}
		out = append(out, en)
	}
	return out
}
