package gen

import (
	"bytes"
	"slices"
	"strings"
)

// docProtect renders the protect section of docs/POLICY.md.
func docProtect(b *bytes.Buffer, rows []ProtectEntry) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n### Protected paths\n\n")
	b.WriteString("Read-only inside every writable root (the workspace and each write path),\n")
	b.WriteString("because something outside the sandbox runs them later. `$root` is the\n")
	b.WriteString("root, `$gitdir` each git directory found there, `$gitfile` each `.git`\n")
	b.WriteString("file, `$hookspath` the hooks directory `core.hooksPath` names, `$gitinclude`\n")
	b.WriteString("each file a git config's `include.path` or `includeIf.*.path` names,\n")
	b.WriteString("`$githostconfig` each config file the host's git reads outside a repository\n")
	b.WriteString("(and what it includes), `$gitkey` what the row's keys and variables name (a\n")
	b.WriteString("`path`, a `program` run as it is, the first word of a shell `command`, ...),\n")
	b.WriteString("from every config file git reads, relative ones against each repository\n")
	b.WriteString("found. A missing one gets a read-only empty placeholder for the run\n")
	b.WriteString("(if-missing: skip where an empty file would break the tool that reads it);\n")
	b.WriteString("on macOS the rows are write denies.\n\n")
	table(b, []string{"ID", "Path", "If missing", "Unless", "Why", "Reviewed"}, func(row func(...string)) {
		for _, e := range rows {
			unless, missing := "", "placeholder"
			if e.Unless != "" {
				unless = code(e.Unless)
			}
			if e.IfMissing != "" {
				missing = e.IfMissing
			}
			path := code(e.Path)
			if e.Path == varGitKey {
				var names []string
				for _, n := range append(append([]string{}, e.Keys...), e.Env...) {
					names = append(names, code(n))
				}
				path += " " + strings.Join(names, ", ") + " (" + e.Value + ", relative to " + e.RelativeTo + ")"
			}
			row(code(e.ID), path, missing, unless, prose(e.Why), prose(e.Reviewed))
		}
	})
}

// protectEntries is the protect section as semdiff compares it: a row
// protects its path unless its opt-out is set, so adding an opt-out, like
// removing the row, widens.
func protectEntries(rows []ProtectEntry) []Entry {
	var es []Entry
	for _, e := range rows {
		v := protectShown(e)
		if e.IfMissing == "skip" {
			v += " if it exists"
		}
		if e.Unless != "" {
			v += " unless " + e.Unless
		}
		es = append(es, Entry{Pos: e.Pos, ID: e.ID, Value: v, Why: e.Why})
	}
	return es
}

// protectChange says which way a changed protect row moved: gaining a
// qualifier (an opt-out, no placeholder when missing) widens, losing one
// narrows, another path does both.
func protectChange(a, b string) reach {
	if r, ok := gitKeyChange(a, b); ok {
		return r
	}
	switch {
	case strings.HasPrefix(b, a+" "):
		return reach{wider: true}
	case strings.HasPrefix(a, b+" "):
		return reach{narrower: true}
	}
	return reach{wider: true, narrower: true}
}

// gitKeyChange compares two $gitkey rows that read their values alike: a
// key or variable dropped widens, one added narrows.
func gitKeyChange(a, b string) (reach, bool) {
	split := func(s string) ([]string, string, bool) {
		rest, ok := strings.CutPrefix(s, varGitKey+" ")
		i := strings.Index(rest, " (")
		if !ok || i < 0 {
			return nil, "", false
		}
		return strings.Split(rest[:i], ", "), rest[i:], true
	}
	ka, ta, okA := split(a)
	kb, tb, okB := split(b)
	if !okA || !okB || ta != tb {
		return reach{}, false
	}
	var r reach
	for _, k := range ka {
		if !slices.Contains(kb, k) {
			r.wider = true
		}
	}
	for _, k := range kb {
		if !slices.Contains(ka, k) {
			r.narrower = true
		}
	}
	return r, true
}
