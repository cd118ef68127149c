package gen

import "gopkg.in/yaml.v3"

// cacheKeys are a caches entry's keys; value is optional ($dir).
var cacheKeys = []string{"id", "dir", "env", "value", "default", "scope", "why"}

// cacheKeyWant says what each key of a caches entry holds.
var cacheKeyWant = map[string]string{
	"id":      "a unique kebab-case id",
	"dir":     "the directory's name under sandtable's cache root",
	"env":     "the environment variable that moves the tool's cache",
	"default": "where the tool looks when the variable is unset: an absolute path or " + varHome + "/REL",
	"scope":   "who shares the directory: workspace or user",
	"why":     "the reason a reviewer reads",
}

// caches reads the common table's caches section: {id, dir, env, value,
// default, scope, why} rows.
func (l *loader) caches(n *yaml.Node) []CacheEntry {
	if !l.kind(n, yaml.SequenceNode, "", "caches") {
		return nil
	}
	var out []CacheEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "caches entry") {
			continue
		}
		en := CacheEntry{Pos: l.pos(e), Value: varDir}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "caches: id")
		}
		l.keys(e, en.ID, cacheKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "dir":
				en.Dir, _ = l.str(v, en.ID, "dir")
			case "env":
				en.Env, _ = l.str(v, en.ID, "env")
			case "value":
				en.Value, _ = l.str(v, en.ID, "value")
			case "default":
				en.Default, _ = l.str(v, en.ID, "default")
			case "scope":
				en.Scope, _ = l.str(v, en.ID, "scope")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range cacheKeys {
			if key != "value" && lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "caches: missing key %s (want %s)", key, cacheKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}
