package gen

import "bytes"

// envDoc renders the environment section: what is removed, by exact name
// or pattern with the pattern's examples, and what is always kept.
func envDoc(b *bytes.Buffer, c *Common) {
	b.WriteString("\n### Stripped environment variables\n\n")
	b.WriteString("Removed from the child's environment on every spawn, sandboxed or not,\n")
	b.WriteString("from this process's environment or from `Config.Env`, unless `keep-env`\n")
	b.WriteString("below or the caller (`Config.KeepEnv`, `sandtable run --keep-env NAME`)\n")
	b.WriteString("passes it on. A name is exact, or a pattern: `PREFIX*`, `*SUFFIX` or\n")
	b.WriteString("`*PART*`, matched case-sensitively. The generator checks that each\n")
	b.WriteString("pattern catches the names listed and spares the others, and that no\n")
	b.WriteString("row removes a kept variable or one bwrap itself reads (" + codes(bwrapEnv) + ").\n\n")
	table(b, []string{"ID", "Variable", "Catches", "Spares", "Why"}, func(row func(...string)) {
		for _, e := range c.StripEnv {
			row(code(e.ID), code(e.Value), codes(e.Catches), codes(e.Spares), prose(e.Why))
		}
	})
	b.WriteString("\n### Always kept environment variables\n\n")
	b.WriteString("Passed on in every mode: no strip row may match them, and with\n")
	b.WriteString("`Config.Env` (the allowlist) they are added from this process's\n")
	b.WriteString("environment when the list lacks them.\n\n")
	table(b, []string{"ID", "Variable", "Why"}, func(row func(...string)) {
		for _, e := range c.KeepEnv {
			row(code(e.ID), code(e.Value), prose(e.Why))
		}
	})
}
