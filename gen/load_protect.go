package gen

import "gopkg.in/yaml.v3"

// ProtectEntry is one row of the protect section: a path inside each
// writable root that stays read-only in the sandbox, because something
// outside the sandbox runs it later.
type ProtectEntry struct {
	Pos  Pos
	ID   string
	Path string // $root/REL, $gitdir/REL, $gitfile, $hookspath, $gitinclude, $githostconfig or $gitkey
	// Keys and Env are, for path $gitkey, the git configuration keys
	// (section.name, section.*.name, section.*) and the environment
	// variables whose value names what git runs; Value says how git reads
	// that value (one word of gitKeyValues) and RelativeTo what a relative
	// path in it is relative to (one word of gitKeyBases).
	Keys       []string
	Env        []string
	Value      string
	RelativeTo string
	// Unless names the Config opt-out that drops the row (one word of
	// protectOptOuts), and Reviewed says what the opt-out gives up.
	Unless   string
	Reviewed string
	// IfMissing is "placeholder" (the default) or "skip": a missing path
	// whose empty placeholder would break the tool that reads it.
	IfMissing string
	Why       string
}

// protect reads the common table's protect section: {id, path, why} rows,
// with an optional unless and its reviewed.
func (l *loader) protect(n *yaml.Node) []ProtectEntry {
	if !l.kind(n, yaml.SequenceNode, "", "protect") {
		return nil
	}
	var out []ProtectEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "protect entry") {
			continue
		}
		en := ProtectEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "protect: id")
		}
		l.keys(e, en.ID, []string{"id", "path", "keys", "env", "value", "relative-to", "if-missing", "unless", "reviewed", "why"}, func(key string, k, v *yaml.Node) {
			switch key {
			case "path":
				en.Path, _ = l.str(v, en.ID, "path")
			case "keys":
				en.Keys = l.strs(v, en.ID, "keys")
			case "env":
				en.Env = l.strs(v, en.ID, "env")
			case "value":
				en.Value, _ = l.str(v, en.ID, "value")
			case "relative-to":
				en.RelativeTo, _ = l.str(v, en.ID, "relative-to")
			case "if-missing":
				en.IfMissing, _ = l.str(v, en.ID, "if-missing")
			case "unless":
				en.Unless, _ = l.str(v, en.ID, "unless")
			case "reviewed":
				en.Reviewed, _ = l.str(v, en.ID, "reviewed")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range []string{"id", "path", "why"} {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "protect: missing key %s (want %s)", key, protectKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

var protectKeyWant = map[string]string{
	"id":   "a unique kebab-case id",
	"path": "$root/REL, $gitdir/REL, $gitfile, $hookspath, $gitinclude, $githostconfig or $gitkey",
	"why":  "the reason a reviewer reads",
}
