package gen

// RedactEntry is one row of the redact section (rules/common.yaml): a file
// under the home that mixes settings and secrets. The command reads a copy
// read in the grammar of the tool that reads the file (Format), without
// the keys in Keys as that tool spells them, and with the user:password@
// of every URL removed when URLs is set.
type RedactEntry struct {
	Pos  Pos
	ID   string
	Path string // "$home/rel" or an absolute path
	// Format names the grammar the file is read in: one of redactFormats.
	Format string
	Keys   []string
	URLs   bool
	// Includes: the files this one includes (git's include.path and
	// includeIf.*.path) are served redacted too.
	Includes bool
	Why      string
}

// redactFormat is one grammar a redact row can name: the reading of one
// tool's configuration file, each a reader of its own in package sandbox
// (sandbox/redact_*.go). Keys says how that tool compares a key with the
// row's remove list.
type redactFormat struct {
	Name string
	Keys string
}

// redactFormats are the grammars, in the order of the generated constants.
var redactFormats = []redactFormat{
	{"npmrc", "the key after its last `:` (npm's `//registry/:` scope) and a `[]` suffix, any case; a key with a `${VAR}` in it goes whole"},
	{"yarnrc", "a mapping key at any depth, any case"},
	{"pip-conf", "the option name as pip normalises it: any case, `_` read as `-`, a leading `--` dropped"},
	{"gitconfig", "`SECTION.KEY` matches that key in the section with or without a subsection, any case"},
	{"uv-toml", "any component of a key path (dotted, quoted, a table's), any case"},
	{"wgetrc", "the command name with `-` and `_` dropped, any case (wget's own comparison)"},
}

func redactFormatNamed(name string) (redactFormat, bool) {
	for _, f := range redactFormats {
		if f.Name == name {
			return f, true
		}
	}
	return redactFormat{}, false
}

func redactFormatNames() []string {
	out := make([]string, len(redactFormats))
	for i, f := range redactFormats {
		out[i] = f.Name
	}
	return out
}

// varRedactFD is the descriptor a redacted copy is read from, one per file.
const varRedactFD = "$redactfd"
