package gen

import (
	"slices"

	"gopkg.in/yaml.v3"
)

// StdioEntry is one row of the shared stdio section: how a caller's
// standard descriptor of one kind reaches the command on the streams it
// names.
type StdioEntry struct {
	Pos      Pos
	ID       string
	Kind     string
	Streams  []string
	Pass     string
	Reviewed string
	Why      string
}

// The stdio section's vocabularies, in the order the generated lookup
// indexes them. Kinds are what one fstat (and, for a character device,
// isatty) says a descriptor is; passes are what the sandbox does with it.
var (
	stdioStreams = []string{"stdin", "stdout", "stderr"}
	stdioKinds   = []string{"terminal", "null", "pipe", "socket", "file", "device", "dir"}
	stdioPasses  = []string{"none", "copy", "as-is"}
)

// stdioSafeKinds may pass as they are without `reviewed`: reopening a
// terminal or /dev/null gives the command nothing it did not have.
var stdioSafeKinds = []string{"terminal", "null"}

var stdioKeys = []string{"id", "kind", "streams", "pass", "reviewed", "why"}

// stdio reads the shared stdio section: {id, kind, streams, pass, why}
// rows, reviewed where a kind passes as it is.
func (l *loader) stdio(n *yaml.Node) []StdioEntry {
	if !l.kind(n, yaml.SequenceNode, "", "stdio") {
		return nil
	}
	var out []StdioEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "stdio entry") {
			continue
		}
		en := StdioEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "stdio: id")
		}
		l.keys(e, en.ID, stdioKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "kind":
				en.Kind, _ = l.str(v, en.ID, "kind")
			case "streams":
				en.Streams = l.strs(v, en.ID, "streams")
			case "pass":
				en.Pass, _ = l.str(v, en.ID, "pass")
			case "reviewed":
				en.Reviewed, _ = l.str(v, en.ID, "reviewed")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range stdioKeys {
			if key != "reviewed" && lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "stdio: missing key %s (want %s)", key, stdioKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

var stdioKeyWant = map[string]string{
	"id":      "a unique kebab-case id",
	"kind":    "one of " + words(stdioKinds),
	"streams": "a list of " + words(stdioStreams),
	"pass":    "one of " + words(stdioPasses),
	"why":     "the reason a reviewer reads",
}

// stdioIndex is the position of w in vocab, for the generated lookup.
func stdioIndex(vocab []string, w string) int { return slices.Index(vocab, w) }
