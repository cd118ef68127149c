package gen

// RedactEntry is one row of the redact section (rules/common.yaml): a file
// under the home that mixes settings and secrets. The command reads a copy
// without the lines whose key is in Keys, and with the user:password@ of
// every URL removed when URLs is set.
type RedactEntry struct {
	Pos  Pos
	ID   string
	Path string // "$home/rel" or an absolute path
	// Format says how a line's key is read: ini (KEY=VALUE, npm's
	// //registry/:KEY=VALUE scopes included) or yaml (KEY: VALUE).
	Format string
	Keys   []string
	URLs   bool
	Why    string
}

var redactFormats = []string{"ini", "yaml"}

// varRedactFD is the descriptor a redacted copy is read from, one per file.
const varRedactFD = "$redactfd"
