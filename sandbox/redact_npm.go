package sandbox

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The npmrc format: a .npmrc read as npm reads it, the ini package's
// decode then @npmcli/config's loadObject: the text (UTF-8) split at every
// run of CR and LF; lines blank or starting with ; or # (after JavaScript
// white space) are nothing; ^[NAME]\s*$ is a section; else KEY[=VALUE],
// split at the first =, which reads only if no line separator (U+2028,
// U+2029) follows that =. A key or value is trimmed of JavaScript white
// space; one quoted in " or ' is parsed as JSON (what fails stays as it
// is); an unquoted one ends at an unescaped ; or # and reads \; \# \\ as
// the character. A key with [] at its end is that key. npm then expands
// ${VAR} in keys and values from its environment.
//
// Kept lines stay as they are; a value with a URL's credentials, a
// comment or an escape in it is written back as a JSON string.

// jsSpace is JavaScript's white space and line terminators: what trim()
// drops and \s matches.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return 0x2000 <= r && r <= 0x200a
}

func jsTrim(s string) string { return strings.TrimFunc(s, jsSpace) }

// iniValue kinds: what ini's unsafe made of a key or value.
const (
	iniString = iota // a string
	iniScalar        // a number, true, false or null (quoted JSON)
	iniObject        // an object or array (quoted JSON)
)

// iniUnsafe is ini's unsafe: s as ini reads a key or a value.
func iniUnsafe(s string) (string, int) {
	v := jsTrim(s)
	if len(v) > 0 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		if v[0] == '\'' {
			v = v[1:max(len(v)-1, 1)]
		}
		str, kind, ok := jsonParse(v)
		if !ok {
			return v, iniString
		}
		if kind != iniString {
			str = ""
		}
		return str, kind
	}
	var b strings.Builder
	esc := false
	for _, c := range v {
		switch {
		case esc:
			if c != '\\' && c != ';' && c != '#' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			esc = false
		case c == ';' || c == '#':
			return jsTrim(b.String()), iniString
		case c == '\\':
			esc = true
		default:
			b.WriteRune(c)
		}
	}
	if esc {
		b.WriteByte('\\')
	}
	return jsTrim(b.String()), iniString
}

// iniPlain reports whether an unquoted value reads as itself, trimmed: no
// quote around it, no comment or escape in it.
func iniPlain(raw string) bool {
	v := jsTrim(raw)
	return !strings.ContainsAny(v, `;#\`) && !(len(v) > 0 && (v[0] == '"' || v[0] == '\''))
}

// iniQuote writes s as a JSON string ini reads back as s, escaping what
// would end or split its line or its section's brackets.
func iniQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == ']' || r == utf8.RuneError:
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// nodeUTF8 decodes data as Node's readFile(..., 'utf8') does: each
// maximal part of an invalid sequence (WHATWG's decoder) read as U+FFFD.
func nodeUTF8(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	var b strings.Builder
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r != utf8.RuneError || size > 1 {
			b.Write(data[i : i+size])
			i += size
			continue
		}
		n, lo, hi := 1, byte(0x80), byte(0xbf)
		switch c := data[i]; {
		case 0xc2 <= c && c <= 0xdf:
			n = 2
		case 0xe0 <= c && c <= 0xef:
			n = 3
			if c == 0xe0 {
				lo = 0xa0
			} else if c == 0xed {
				hi = 0x9f
			}
		case 0xf0 <= c && c <= 0xf4:
			n = 4
			if c == 0xf0 {
				lo = 0x90
			} else if c == 0xf4 {
				hi = 0x8f
			}
		}
		k := 1
		for k < n && i+k < len(data) && lo <= data[i+k] && data[i+k] <= hi {
			k++
			lo, hi = 0x80, 0xbf
		}
		b.WriteRune(utf8.RuneError)
		i += k
	}
	return b.String()
}

// npmKeyBase is the name npm compares a key by: after a [] suffix and the
// //registry/: scope.
func npmKeyBase(key string) string {
	if len(key) > 2 && strings.HasSuffix(key, "[]") {
		key = key[:len(key)-2]
	}
	return key[strings.LastIndexByte(key, ':')+1:]
}

// redactNpmrc is the npmrc format's redaction of data.
func redactNpmrc(data []byte, rf redactFile) []byte {
	text := nodeUTF8(data)
	var b strings.Builder
	keep := func(line string) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	strip := func(s string) string {
		if rf.urls {
			return stripURLCredentials(s, false)
		}
		return s
	}
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\r' || r == '\n' }) {
		t := strings.TrimLeftFunc(line, jsSpace)
		if t == "" || t[0] == ';' || t[0] == '#' {
			continue
		}
		if line[0] == '[' {
			if end := strings.IndexByte(line, ']'); end > 0 && strings.TrimLeftFunc(line[end+1:], jsSpace) == "" {
				name, kind := iniUnsafe(line[1:end])
				switch {
				case kind != iniString:
					keep("[sandtable-not-served]")
				case strip(line) == line && strip(name) == name:
					keep(line)
				default:
					keep("[" + iniQuote(strip(name)) + "]")
				}
				continue
			}
		}
		eq := strings.IndexByte(line, '=')
		if eq == 0 || eq > 0 && strings.ContainsAny(line[eq+1:], "\u2028\u2029") {
			continue // ini does not read it
		}
		rawKey, rawValue := line, ""
		if eq > 0 {
			rawKey, rawValue = line[:eq], line[eq+1:]
		}
		key, kind := iniUnsafe(rawKey)
		if kind != iniString || strings.Contains(key, "${") || strip(key) != key || hasKey(rf.keys, npmKeyBase(key)) {
			continue
		}
		if eq < 0 {
			keep(line)
			continue
		}
		value, kind := iniUnsafe(rawValue)
		switch {
		case kind == iniObject:
		case kind == iniScalar, strip(value) == value && iniPlain(rawValue):
			keep(line)
		default:
			keep(rawKey + "=" + iniQuote(strip(value)))
		}
	}
	return []byte(b.String())
}
