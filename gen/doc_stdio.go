package gen

import "bytes"

// docStdio renders the stdio section: one row per table row, with the
// streams it decides.
func docStdio(b *bytes.Buffer, c *Common) {
	b.WriteString("\n### Standard input, output and error\n\n")
	b.WriteString("How a caller's standard descriptor reaches the command, by what it is\n")
	b.WriteString("(`sandtable run`, `NewCmd`, the wrap helper of `Command` and `Prefix` in\n")
	b.WriteString("network mode proxy, and `GuardStdio` for `Command`). `as-is`: the\n")
	b.WriteString("command gets the descriptor itself, and can reopen it through\n")
	b.WriteString("`/proc/self/fd/N` with every mode its file allows; `copy`: it gets a pipe\n")
	b.WriteString("of the sandbox's own, and the caller's process copies between the two;\n")
	b.WriteString("`none`: it gets `/dev/null`.\n\n")
	if len(c.Stdio) == 0 {
		b.WriteString("This table has no stdio section: every stream gets `/dev/null`.\n")
		return
	}
	table(b, []string{"ID", "Kind", "Streams", "Pass", "Why", "Reviewed"}, func(row func(...string)) {
		for _, e := range c.Stdio {
			row(code(e.ID), code(e.Kind), code(joinWords(e.Streams)), code(e.Pass), prose(e.Why), prose(e.Reviewed))
		}
	})
}

func joinWords(ws []string) string {
	s := ""
	for i, w := range ws {
		if i > 0 {
			s += ", "
		}
		s += w
	}
	return s
}
