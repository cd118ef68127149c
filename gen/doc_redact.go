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
	b.WriteString("file's path, a copy read in the grammar of the tool that reads the file\n")
	b.WriteString("(its format; each row's why names the tool's parser), without the keys\n")
	b.WriteString("listed, spelled any way that tool reads them (below), and with\n")
	b.WriteString("`user:password@` removed from every URL where the row says so, served\n")
	b.WriteString("from memory (rule `redact-file`); on macOS, whose profile reads no file\n")
	b.WriteString("of the home, the file stays denied (rule `redact-file`). What the reader\n")
	b.WriteString("cannot parse is not served: a line the tool would reject is replaced by\n")
	b.WriteString("one it rejects too, and a document it cannot take apart is served as a\n")
	b.WriteString("comment saying so. Comments are dropped. `Config.Reveal` with the path\n")
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
			if e.Includes {
				what += "; the files it includes, redacted the same way"
			}
			row(code(e.ID), code(e.Path), e.Format, what, prose(e.Why))
		}
	})
	b.WriteString("\nHow each format compares a key with the row's list:\n\n")
	table(b, []string{"Format", "Key"}, func(row func(...string)) {
		for _, f := range redactFormats {
			row(f.Name, f.Keys)
		}
	})
}
