package gen

import (
	"bytes"
	"strings"
)

// refuseInputDoc says what each input of the refuse section is.
var refuseInputDoc = map[string]string{
	"workspace":      "`Config.Workspace`",
	"write-path":     "each `Config.Write` entry",
	"read-path":      "each `Config.Read` entry",
	"hidden-path":    "each `Config.Hidden` entry",
	"default-hidden": "each path of the default hidden set but the `$env:` rows",
	"derived-hidden": "each path the default hidden set's `$env:` rows name in the caller's environment",
	"home":           "`$HOME`, and the home the password database gives",
	"cache-dir":      "the tool caches' root",
	"git-pointer":    "where a `.git` file, `commondir` or `gitdir` in a writable root leads",
	"git-file":       "a git file (`.git` file, config, pointer) read from a writable root",
	"redact-file":    "a file the redact section serves a copy of (Linux) or denies (macOS)",
	"git-dir":        "a writable root's `.git`",
	"protected-path": "a path of the protect section inside a writable root",
	"cache-made":     "each directory of sandtable's own tool caches, as a spawn makes or finds it",
	"socket":         "each `Config.Sockets` entry",
	"loader-env":     "each entry of `LD_PRELOAD`, `LD_LIBRARY_PATH` and `LD_AUDIT` in bwrap's environment (Linux)",
	"bwrap-argv":     "the arguments bwrap is given, the command and its arguments included (Linux; `Prefix` counts the command as one)",
	"memory-limit":   "`Config.Limits.Memory` (`--memory`), when set",
}

// codeList renders words as code spans joined with commas.
func codeList(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = code(w)
	}
	return strings.Join(out, ", ")
}

// docRefuse renders the refuse section: every configuration the runtime
// refuses, with the check, the inputs it looks at and the test that
// proves it.
func docRefuse(b *bytes.Buffer, c *Common) {
	if c.Refuse == nil {
		return
	}
	b.WriteString("\n### Refused configurations\n\n")
	b.WriteString("A spawn stops with an error (`ErrBadPath`; `ErrBadLimit` for a limit,\n")
	b.WriteString("`ErrUnavailable` for the caches' file system), and nothing runs, when one of\n")
	b.WriteString("these rows matches. Every input is resolved first (each path once: where\n")
	b.WriteString("it leads, what it is, the links it went through); then the rows run in\n")
	b.WriteString("this order, each against every input it names, and the first refusal is\n")
	b.WriteString("the error, naming its row (`(refuse: ID)`). **When two rows refuse a\n")
	b.WriteString("configuration, the one higher in this table wins.** Nothing but these\n")
	b.WriteString("rows refuses what they describe: without a row, its configuration runs.\n")
	b.WriteString("The checks that guard the sandbox against the command it runs (all but\n")
	b.WriteString("`is-root` and `is-workspace`) are skipped under the policy `off`, which\n")
	b.WriteString("wraps nothing.\n")
	b.WriteString("A writable root is the workspace, a write path, a tool cache, and on macOS\n")
	b.WriteString("the shared temporary directories (" + codeList(sortedTempDirs()) + ").\n\n")
	table(b, []string{"Input", "Is"}, func(row func(...string)) {
		for _, in := range refuseInputs {
			row(code(in), refuseInputDoc[in])
		}
	})
	b.WriteString("\n")
	table(b, []string{"ID", "Check", "Inputs", "Refused when the input", "Bound", "Why", "Test"}, func(row func(...string)) {
		for _, e := range c.Refuse {
			check, _ := refuseCheckNamed(e.Check)
			bound := ""
			if e.Bound != "" {
				bound = prose(e.Bound + " " + check.Unit)
				if check.Unit == "bytes" {
					bound = prose(e.Bound)
				}
			}
			row(code(e.ID), code(e.Check), code(strings.Join(e.Inputs, ", ")), prose(check.Says), bound, prose(e.Why), code(e.Test))
		}
	})
}
