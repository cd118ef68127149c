package gen

import "gopkg.in/yaml.v3"

var redactKeys = []string{"id", "path", "format", "remove", "url-credentials", "follow-includes", "why"}

var redactKeyWant = map[string]string{
	"id":     "a unique kebab-case id",
	"path":   "an absolute path, " + varHome + "/REL or " + varEnv + "NAME[/REL]",
	"format": "one of " + words(redactFormatNames()),
	"why":    "the reason a reviewer reads",
}

// redact reads the common table's redact section.
func (l *loader) redact(n *yaml.Node) []RedactEntry {
	if !l.kind(n, yaml.SequenceNode, "", "redact") {
		return nil
	}
	var out []RedactEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "redact entry") {
			continue
		}
		en := RedactEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "redact: id")
		}
		l.keys(e, en.ID, redactKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "path":
				en.Path, _ = l.str(v, en.ID, "path")
			case "format":
				en.Format, _ = l.str(v, en.ID, "format")
			case "remove":
				en.Keys = l.strs(v, en.ID, "remove")
			case "url-credentials":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
					l.at(l.pos(v), en.ID, "url-credentials: got %q (want true or false)", v.Value)
					return
				}
				en.URLs = v.Value == "true"
			case "follow-includes":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
					l.at(l.pos(v), en.ID, "follow-includes: got %q (want true or false)", v.Value)
					return
				}
				en.Includes = v.Value == "true"
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range []string{"id", "path", "format", "why"} {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "redact: missing key %s (want %s)", key, redactKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}
