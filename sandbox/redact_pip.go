package sandbox

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pip-conf format: a pip.conf read as pip reads it, Python's
// configparser.RawConfigParser (_read) with its defaults: lines end at LF,
// CR or CRLF; a line whose stripped text starts with # or ; is a comment;
// a line indented deeper than the option before it continues that
// option's value, blank lines within it included; else [NAME] (a [ and
// the last ] after it) is a section, and NAME = VALUE or NAME: VALUE at
// the first = or : an option, its name compared as pip's _normalize_name
// makes it. A line before any section stops the reading; another line
// configparser rejects is replaced by one it rejects too.

// pipStopLine ends a copy where pip stops reading the file: a line
// before any [section], or a file that is not UTF-8.
const pipStopLine = "!sandtable pip stops reading here (no [section] before this line, not UTF-8, or a value whose lines join into a URL with credentials)\n"

// pipRejected stands for a line configparser rejects.
const pipRejected = "!sandtable a line pip rejects is not served"

// pySpace is Python's str.isspace, which strip() and re's \s use.
func pySpace(r rune) bool { return unicode.IsSpace(r) || 0x1c <= r && r <= 0x1f }

// pipName is an option name as pip's _normalize_name makes it.
func pipName(name string) string {
	name = strings.ReplaceAll(strings.ToLower(name), "_", "-")
	return strings.TrimPrefix(name, "--")
}

// pyLines splits text at LF, CR and CRLF, as Python's text files do.
func pyLines(text string) []string {
	var lines []string
	for text != "" {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i])
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
	return lines
}

// redactPipConf is the pip-conf format's redaction of data.
func redactPipConf(data []byte, rf redactFile) []byte {
	text := string(data)
	if !utf8.ValidString(text) {
		return []byte(pipStopLine) // pip cannot decode it, and reads none of it
	}
	removed := func(name string) bool {
		for _, k := range rf.keys {
			if strings.EqualFold(pipName(k), pipName(name)) {
				return true
			}
		}
		return false
	}
	strip := func(s string, bare bool) string {
		if rf.urls {
			return stripURLCredentials(s, bare)
		}
		return s
	}
	var b strings.Builder
	inSection, option, dropping, level := false, "", false, 0
	// cur is the current option's value as written to the copy, its
	// lines joined; joined is whether such a value holds URL credentials
	// that none of its lines held alone.
	var cur strings.Builder
	joined := false
	endOption := func() {
		if v := dropURLBlanks(cur.String()); rf.urls && stripURLCredentials(v, true) != v {
			joined = true
		}
		cur.Reset()
	}
	for _, line := range pyLines(text) {
		value := strings.TrimFunc(line, pySpace)
		if strings.HasPrefix(value, "#") || strings.HasPrefix(value, ";") {
			continue
		}
		if value == "" {
			if !dropping {
				b.WriteByte('\n')
			}
			continue
		}
		lead := strings.IndexFunc(line, func(r rune) bool { return !pySpace(r) })
		indent := utf8.RuneCountInString(line[:lead])
		if inSection && option != "" && indent > level {
			if !dropping {
				// A line may be the value's one URL, and what stays of it
				// may be blank: a blank line, as configparser reads it.
				if l := strip(line, true); strings.TrimFunc(l, pySpace) != "" {
					b.WriteString(l)
					cur.WriteString("\n" + strings.TrimFunc(l, pySpace))
				}
				b.WriteByte('\n')
			}
			continue
		}
		endOption()
		level = indent // an error line keeps the option, and what goes with it
		pad := strings.Repeat(" ", indent)
		if end := strings.LastIndexByte(value, ']'); value[0] == '[' && end >= 2 {
			inSection, option, dropping = true, "", false
			// configparser takes the name up to the last ] and ignores the
			// rest of the line: only the name is a section's.
			if name := strip(value[1:end], false); name != value[1:end] {
				b.WriteString(pad + "[" + name + "]\n")
			} else {
				b.WriteString(line + "\n")
			}
			continue
		}
		if !inSection {
			b.WriteString(pad + pipStopLine)
			break
		}
		i := strings.IndexAny(value, "=:")
		if i < 0 {
			b.WriteString(pad + pipRejected + "\n")
			continue
		}
		name := strings.TrimRightFunc(value[:i], pySpace)
		option, dropping = strings.ToLower(name), removed(name)
		switch {
		case name == "":
			// configparser sets an option without a name, ending the one
			// before it, and then fails: so does this line.
			b.WriteString(pad + "= " + pipRejected + "\n")
		case dropping:
		default:
			v := strings.TrimFunc(value[i+1:], pySpace)
			sv, sn := strip(v, true), strip(name, false)
			if sv != v || sn != name {
				b.WriteString(pad + sn + " = " + sv + "\n")
			} else {
				b.WriteString(line + "\n")
			}
			cur.WriteString(sv)
		}
	}
	endOption()
	if joined {
		// configparser joins a value's lines with a newline, and a URL
		// parser drops newlines: none of it is served.
		return []byte(pipStopLine)
	}
	return []byte(b.String())
}
