package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Doc renders docs/POLICY.md from a checked table. It comes from the same
// [Table] as the builders, so what a reviewer approves is what runs; it holds
// nothing that changes between runs, so -check can hold it to the table.
func Doc(t *Table) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- %s -->\n\n", Header)
	b.WriteString("# Sandbox policy\n\n")
	b.WriteString("Generated from `rules/*.yaml` by genrules: edit the rule table and run\n")
	b.WriteString("`go generate ./sandbox`, never this file. `genrules -diff OLD_RULES_DIR`\n")
	b.WriteString("summarizes a change to the table for review.\n\n")

	b.WriteString("## What a sandboxed process gets\n\n")
	b.WriteString("Derived from the rules below, each entry followed by the id of the rule it\n")
	b.WriteString("comes from. The hidden paths are the default hidden set plus `Config.Hidden`.\n\n")
	linux, darwin := derivePosture(t)
	table(&b, []string{"", "Linux (" + cell(code(t.Linux.Program)) + ")", "macOS (" + cell(code(t.Darwin.Program)) + ")"},
		func(row func(...string)) {
			for _, name := range postureRows {
				l, d := linux[name], darwin[name]
				if len(l) == 0 && len(d) == 0 {
					continue
				}
				row("**"+name+"**", entries(l), entries(d))
			}
		})

	b.WriteString("\n## Linux rules\n\n")
	b.WriteString("The arguments of `" + t.Linux.Program + "`, in table order. The rules of the `mounts`\n")
	b.WriteString("group are applied together at the place of the first one, parent before\n")
	b.WriteString("child by destination depth, in table order between equal depths.\n\n")
	rulesTable(&b, t.Linux, true)
	if len(t.Linux.Seccomp) > 0 {
		b.WriteString("\n### Seccomp filter\n\n")
		b.WriteString("What the filter that `--seccomp $seccompfd` loads refuses, on every system\n")
		b.WriteString("call ABI of the architecture (amd64 and arm64 only), and the errno the\n")
		b.WriteString("refused call returns: ENOSYS where the call itself is refused, so a\n")
		b.WriteString("program falls back as on a kernel without it; EPERM where only some of\n")
		b.WriteString("its arguments are.\n\n")
		table(&b, []string{"ID", "Refuses", "Errno", "Why"}, func(row func(...string)) {
			for _, e := range t.Linux.Seccomp {
				row(code(e.ID), code(e.What()), code(e.ErrnoName()), prose(e.Why))
			}
		})
		terminalNote(&b, t.Linux.Seccomp)
	}

	limitsDoc(&b, t.Linux)
	docWatch(&b, t.Linux)
	docDiagnose(&b, t.Linux)
	docLandlock(&b, t.Linux)

	b.WriteString("\n## macOS rules\n\n")
	b.WriteString("The SBPL profile passed to `" + t.Darwin.Program + " -p`, in table order. Where\n")
	b.WriteString("several filtered rules match an access, the last one wins.\n\n")
	rulesTable(&b, t.Darwin, false)

	b.WriteString("\n## Shared by both platforms\n\n")
	p := t.Common.Policy
	b.WriteString("### Policy\n\n")
	fmt.Fprintf(&b, "The environment variable %s selects the policy. Values are matched\n", code(p.Variable))
	fmt.Fprintf(&b, "case-insensitively; unset or empty means %s.\n\n", code(p.Default))
	table(&b, []string{"Value", "Default", "Why"}, func(row func(...string)) {
		for _, v := range p.Values {
			def := ""
			if v.Value == p.Default {
				def = "yes"
			}
			row(code(v.Value), def, prose(v.Why))
		}
	})

	envDoc(&b, &t.Common)
	envValuesDoc(&b, &t.Common)

	b.WriteString("\n### Default hidden set\n\n")
	b.WriteString("Hidden on every spawn, after symlink resolution, unless the caller reveals\n")
	b.WriteString("it: on Linux where the path exists, on macOS also where it does not, so it\n")
	b.WriteString("cannot appear during a run. `$home` is the caller's home directory.\n")
	b.WriteString("`$env:NAME/REL` is derived from the caller's environment: the value of\n")
	b.WriteString("NAME (each colon-separated entry, for `$env-list:NAME`), then REL; an\n")
	b.WriteString("unset or empty variable names nothing, and a value that is not an\n")
	b.WriteString("absolute path, or has a `..`, stops the spawn with an error. A derived\n")
	b.WriteString("path is revealed by its expanded path. A `*` component of a `$home` or\n")
	b.WriteString("`$env:NAME` row stands for each name in its directory when the spawn\n")
	b.WriteString("starts (more than 256 stops the spawn); such a row is revealed as\n")
	b.WriteString("spelled, `*` and all.\n\n")
	table(&b, []string{"ID", "Path", "Why"}, func(row func(...string)) {
		for _, e := range t.Common.DefaultHidden {
			row(code(e.ID), code(e.Value), prose(e.Why))
		}
	})
	docStdio(&b, &t.Common)
	docProtect(&b, t.Common.Protect)
	docCaches(&b, &t.Common)
	docRedact(&b, &t.Common)
	docOffline(&b, &t.Common)
	docProxyRefuse(&b, &t.Common)
	docRefuse(&b, &t.Common)
	docNetDefault(&b, &t.Common)
	docProxyAuth(&b, &t.Common)
	docGitSearch(&b, &t.Common)
	docBackend(&b, &t.Common)
	return b.Bytes(), nil
}

func rulesTable(b *bytes.Buffer, p *Platform, group bool) {
	head := []string{"#", "ID", "When", "For", "Group", "Emits", "Why", "Reviewed"}
	if !group {
		head = append(head[:4], head[5:]...)
	}
	table(b, head, func(row func(...string)) {
		for i, r := range p.Rules {
			var forms []string
			for _, f := range emitsForms(p.Name, r) {
				forms = append(forms, code(f))
			}
			cells := []string{strconv.Itoa(i + 1), code(r.ID), code(r.WhenString()), code(r.For)}
			if group {
				cells = append(cells, code(r.Group))
			}
			row(append(cells, strings.Join(forms, "<br>"), prose(r.Why), prose(r.Reviewed))...)
		}
	})
}

// emitsForms is Emits split where a reviewer reads a break: one SBPL form
// per line on darwin, the rule's whole argv on linux.
func emitsForms(platform string, r *Rule) []string {
	if platform == "linux" || len(r.Args) > 0 {
		return []string{Emits(platform, r)}
	}
	var out []string
	for _, form := range sbplForms(r) {
		s := ""
		for _, p := range form {
			s += p.text
		}
		out = append(out, oneLine(s))
	}
	return out
}

func entries(es []entry) string {
	if len(es) == 0 {
		return "no rule"
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.text
		if e.rule != "" {
			out[i] += " (" + code(e.rule) + ")"
		}
	}
	return strings.Join(out, "<br>")
}

// table writes a Markdown table. Cells arrive already rendered (code spans,
// prose), with their pipes escaped.
func table(b *bytes.Buffer, head []string, rows func(row func(...string))) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(head)
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	rows(func(cells ...string) { line(cells) })
}

// cell makes text safe inside a table cell: a pipe would end the cell (GFM
// reads \| as a literal pipe, in code spans too) and a newline the row.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`)
}

// prose renders the table's free text. Markup is escaped rather than
// interpreted: a stray <!-- in a why would hide the rest of the page from a
// reviewer reading it rendered.
func prose(s string) string {
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(oneLine(s))
	return cell(s)
}

// code renders s as a code span, fenced with more backticks than any run
// inside it, so that any value of the table reads literally.
func code(s string) string {
	if s == "" {
		return ""
	}
	fence, run := "`", 0
	for _, c := range s {
		if c == '`' {
			run++
			if run >= len(fence) {
				fence += "`"
			}
		} else {
			run = 0
		}
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + cell(s) + fence
}
