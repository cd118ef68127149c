package sandbox

import (
	"bytes"
	"strings"
)

// The gitconfig format: a git config file read as git's config.c reads
// it (git_parse_source, get_base_var, get_extended_base_var, get_value,
// parse_value), and written back in the one form git reads the same way:
// [section "sub"] headers, one "\tkey = \"value\"" (or "\tkey") per line.
// Comments and layout go; what git stops reading at goes too, and the
// copy ends there with a line git rejects as well.

// gitStopLine ends a copy where git stops reading the file: git stops at
// it too.
const gitStopLine = "!sandtable: git stops reading here, and the rest of the file is not served\n"

// gitItem is one header or variable of a git config file.
type gitItem struct {
	header bool
	// base is the name a header gives the variables after it, as git
	// builds it: "section" or "section.subsection", the section lower
	// case; "" before any header.
	base   string
	key    string // a variable's name, lower case
	value  string // as git reads it: unquoted, unescaped, up to a NUL
	valued bool   // false for a key without = (git reads true)
}

// gitConfig is a file as git reads it: its items up to the first error;
// stop is the line git stops reading at, 0 when it reads to the end.
type gitConfig struct {
	items []gitItem
	stop  int
}

// gitReader is git's get_next_char over data: CRLF reads as LF, and the
// end of data as a LF that sets eof, again and again.
type gitReader struct {
	data []byte
	pos  int
	eof  bool
	line int
}

func (r *gitReader) next() byte {
	if r.pos >= len(r.data) {
		r.eof = true
		return '\n'
	}
	c := r.data[r.pos]
	r.pos++
	if c == '\r' && r.pos < len(r.data) && r.data[r.pos] == '\n' {
		r.pos++
		c = '\n'
	}
	if c == '\n' {
		r.line++
	}
	return c
}

// git's ctype: ASCII only; space is SP, HT, LF and CR.
func gitSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func gitAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func gitKeyChar(c byte) bool {
	return gitAlpha(c) || '0' <= c && c <= '9' || c == '-'
}

func gitLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// readGitConfig reads data as git does.
func readGitConfig(data []byte) gitConfig {
	r := &gitReader{data: data}
	var cfg gitConfig
	if bom := []byte("\xef\xbb\xbf"); bytes.HasPrefix(data, bom) {
		r.pos = len(bom)
	} else if len(data) > 0 && data[0] == bom[0] {
		return gitConfig{stop: 1} // a part of a byte-order mark: git stops
	}
	base, comment := "", false
	fail := func() gitConfig {
		cfg.stop = r.line + 1
		return cfg
	}
	for {
		c := r.next()
		switch {
		case c == '\n':
			if r.eof {
				return cfg
			}
			comment = false
		case comment || gitSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			name, ok := r.baseVar()
			if !ok || name == "" {
				return fail()
			}
			base = name
			cfg.items = append(cfg.items, gitItem{header: true, base: base})
		case !gitAlpha(c):
			return fail()
		default:
			item, ok := r.variable(base, c)
			if !ok {
				return fail()
			}
			cfg.items = append(cfg.items, item)
		}
	}
}

// baseVar reads a section header after its [ (get_base_var).
func (r *gitReader) baseVar() (string, bool) {
	var name []byte
	for {
		c := r.next()
		switch {
		case r.eof:
			return "", false
		case c == ']':
			return string(name), true
		case gitSpace(c):
			return r.extendedBaseVar(name, c)
		case !gitKeyChar(c) && c != '.':
			return "", false
		}
		name = append(name, gitLower(c))
	}
}

// extendedBaseVar reads the "subsection"] of [section "subsection"]
// (get_extended_base_var): any byte but a line end, a backslash taking the
// next one as it is. A NUL, where git's name would end, stops the reading.
func (r *gitReader) extendedBaseVar(name []byte, c byte) (string, bool) {
	for {
		if c == '\n' {
			return "", false
		}
		if c = r.next(); !gitSpace(c) {
			break
		}
	}
	if c != '"' {
		return "", false
	}
	name = append(name, '.')
	for {
		c := r.next()
		if c == '\n' || c == 0 {
			return "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = r.next(); c == '\n' || c == 0 {
				return "", false
			}
		}
		name = append(name, c)
	}
	if r.next() != ']' {
		return "", false
	}
	return string(name), true
}

// variable reads a key, whose first letter is c, and its value (get_value).
func (r *gitReader) variable(base string, c byte) (gitItem, bool) {
	key := []byte{gitLower(c)}
	for {
		c = r.next()
		if r.eof || !gitKeyChar(c) {
			break
		}
		key = append(key, gitLower(c))
	}
	for c == ' ' || c == '\t' {
		c = r.next()
	}
	item := gitItem{base: base, key: string(key)}
	if c == '\n' {
		return item, true
	}
	if c != '=' {
		return gitItem{}, false
	}
	v, ok := r.value()
	if !ok {
		return gitItem{}, false
	}
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i] // git's value is a C string
	}
	item.value, item.valued = string(v), true
	return item, true
}

// value reads a value after its = (parse_value): whitespace trimmed at
// both ends outside quotes, quotes dropped, \t \b \n \\ \" escapes, a
// backslash before a line end continuing it, # and ; starting a comment
// outside quotes; an unknown escape or an unclosed quote is an error.
func (r *gitReader) value() ([]byte, bool) {
	var v []byte
	quote, comment, trim := false, false, 0
	for {
		c := r.next()
		if c == '\n' {
			if quote {
				return nil, false
			}
			if trim > 0 {
				v = v[:trim]
			}
			return v, true
		}
		if comment {
			continue
		}
		if gitSpace(c) && !quote {
			if trim == 0 {
				trim = len(v)
			}
			if len(v) > 0 {
				v = append(v, c)
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		trim = 0
		switch c {
		case '\\':
			switch c = r.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return nil, false
			}
		case '"':
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

// gitSplitBase splits a base at its first dot into the section and the
// subsection, as git's parse_config_key does; ok is false without one.
func gitSplitBase(base string) (section, sub string, ok bool) {
	return strings.Cut(base, ".")
}

// isInclude reports whether item is an include's path: include.path or
// includeIf.<condition>.path.
func (it gitItem) isInclude() bool {
	if it.header || !it.valued || it.key != "path" {
		return false
	}
	section, _, sub := gitSplitBase(it.base)
	return section == "include" && !sub || section == "includeif" && sub
}

// gitRemoved reports whether the variable item is one of keys, each
// SECTION.KEY, in that section with or without a subsection.
func gitRemoved(item gitItem, keys []string) bool {
	section, _, _ := gitSplitBase(item.base)
	for _, k := range keys {
		s, key, _ := strings.Cut(k, ".")
		if strings.EqualFold(s, section) && strings.EqualFold(key, item.key) {
			return true
		}
	}
	return false
}

// write renders cfg for the redact row rf: without its keys, with URL
// credentials stripped from subsections and values when rf.urls, and
// without the items drop says to leave out (an include the sandbox cannot
// serve redacted).
func (cfg gitConfig) write(rf redactFile, drop func(i int) bool) []byte {
	var b bytes.Buffer
	for i, it := range cfg.items {
		if it.header {
			section, sub, ok := gitSplitBase(it.base)
			b.WriteString("[" + section)
			if ok {
				if rf.urls {
					sub = stripURLCredentials(sub, false)
				}
				b.WriteString(` "`)
				for j := 0; j < len(sub); j++ {
					if sub[j] == '"' || sub[j] == '\\' {
						b.WriteByte('\\')
					}
					b.WriteByte(sub[j])
				}
				b.WriteByte('"')
			}
			b.WriteString("]\n")
			continue
		}
		if gitRemoved(it, rf.keys) || drop != nil && drop(i) {
			continue
		}
		b.WriteString("\t" + it.key)
		if it.valued {
			v := it.value
			if rf.urls {
				v = stripURLCredentials(v, false)
			}
			b.WriteString(" = ")
			writeGitQuoted(&b, v)
		}
		b.WriteByte('\n')
	}
	if cfg.stop > 0 {
		b.WriteString(gitStopLine)
	}
	return b.Bytes()
}

// writeGitQuoted writes v as a quoted git value that parse_value reads back
// as v.
func writeGitQuoted(b *bytes.Buffer, v string) {
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// redactGitConfig is the gitconfig format's redaction of data, includes
// kept as they are.
func redactGitConfig(data []byte, rf redactFile) []byte {
	return readGitConfig(data).write(rf, nil)
}
