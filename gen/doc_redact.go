package gen

import (
	"bytes"
	"strings"
)

// docRedact renders the redact section of docs/POLICY.md.
func docRedact(b *bytes.Buffer, c *Common) {
	if len(c.Redact) == 0 {
		return
	}
	b.WriteString("\n### Redacted files\n\n")
	b.WriteString("Files that mix settings and secrets. On Linux the command reads, at the\n")
	b.WriteString("file's path, a copy without the lines whose key is listed (after an\n")
	b.WriteString("npm `//registry/:` scope, case-insensitively), and with `user:password@`\n")
	b.WriteString("removed from every URL where the row says so, served from memory (rule\n")
	b.WriteString("`redact-file`); on macOS, whose profile reads no file of the home, the\n")
	b.WriteString("file stays denied (rule `redact-file`). `Config.Reveal` with the path\n")
	b.WriteString("passes it whole; a hidden path wins over a redaction.\n\n")
	table(b, []string{"ID", "Path", "Format", "Removes", "Why"}, func(row func(...string)) {
		for _, e := range c.Redact {
			rm := make([]string, len(e.Keys))
			for i, k := range e.Keys {
				rm[i] = code(k)
			}
			what := strings.Join(rm, ", ")
			if e.URLs {
				if what != "" {
					what += "; "
				}
				what += "credentials in URLs"
			}
			row(code(e.ID), code(e.Path), e.Format, what, prose(e.Why))
		}
	})
}
