package sandbox

import "strings"

// gitEntry is one key of a git config file: section and name
// lower-cased, as git compares them; sub, the subsection, as written
// ([section "sub"] is case-sensitive; the old [section.sub] is not, and
// is lower-cased); value unquoted and unescaped. A key with no = has
// noValue (a boolean true).
type gitEntry struct {
	section, sub, name string
	value              string
	noValue            bool
}

// parseGitConfig is the keys of a git config file as git reads them
// (readGitConfig, git's config.c, which the redaction reads with too): up
// to the first line git refuses, where git stops. A key before any
// section header is none.
func parseGitConfig(data []byte) []gitEntry {
	cfg := readGitConfig(data)
	out := make([]gitEntry, 0, len(cfg.items))
	for _, it := range cfg.items {
		if it.header || it.base == "" {
			continue
		}
		section, sub, _ := gitSplitBase(it.base)
		out = append(out, gitEntry{section: section, sub: sub, name: it.key, value: it.value, noValue: !it.valued})
	}
	return out
}

func isGitAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// gitSection reads a section header after its [, to just past its ].
func gitSection(s string, i int) (section, sub string, next int, ok bool) {
	start := i
	for i < len(s) && (isGitAlpha(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '-' || s[i] == '.') {
		i++
	}
	name := strings.ToLower(s[start:i])
	if name == "" || i >= len(s) {
		return "", "", i, false
	}
	if s[i] == ']' {
		// [section] or the old [section.sub], case-insensitive.
		if head, rest, dotted := strings.Cut(name, "."); dotted {
			return head, rest, i + 1, rest != "" && head != ""
		}
		return name, "", i + 1, true
	}
	if s[i] != ' ' && s[i] != '\t' {
		return "", "", i, false
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || s[i] != '"' || strings.Contains(name, ".") {
		return "", "", i, false
	}
	i++
	var b strings.Builder
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			return "", "", i, false
		case '"':
			if i+1 < len(s) && s[i+1] == ']' {
				return name, b.String(), i + 2, true
			}
			return "", "", i, false
		case '\\':
			i++
			if i >= len(s) || s[i] == '\n' {
				return "", "", i, false
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", "", i, false
}

// gitValueAt reads a value after its =, to the end of its (last continued)
// line.
func gitValueAt(s string, i int) (string, int) {
	var b strings.Builder
	quoted, space := false, 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			break
		}
		if !quoted {
			if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
				space++
				continue
			}
			if c == '#' || c == ';' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
				break
			}
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			i++
			if i >= len(s) {
				return b.String(), i
			}
			switch s[i] {
			case '\n':
				// continued on the next line
			case '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++
				}
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				if n := b.Len(); n > 0 {
					v := b.String()[:n-1]
					b.Reset()
					b.WriteString(v)
				}
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), i
}
