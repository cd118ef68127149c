package sandbox

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The oracles of the redact fuzz targets (fuzz_redact_test.go): for each
// format a model of the tool's own reading, written apart from the
// redactor (another shape, from the tool's source), that says which keys
// and values the tool reads from a file. A target holds the redactor to
// them: what the tool would read from the copy has no removed key and no
// URL credentials, and is what it read from the original less those.

// oracleURL is the model of a URL holding credentials, tabs and line
// breaks dropped first as WHATWG parsers drop them: an authority after a
// run of two or more slashes (a scheme's, or a URL relative to one), or
// after a special scheme's colon, that holds an @.
var (
	oracleURLSlashes = regexp.MustCompile(`(?i)(^|[^a-z0-9+.\-/\\])[/\\]{2,}[^/\\?#]*@`)
	oracleURLSpecial = regexp.MustCompile(`(?i)(^|[^a-z0-9+.\-])(https?|wss?|ftp|file):[^/\\?#]*@`)
	oracleURLBare    = regexp.MustCompile(`^[^/\\?#\s]+@`)
)

// oracleURLCreds reports whether s holds a URL's credentials; with bare,
// a value that is one word holding an @ before any / too (a proxy's
// user:password@host:port, as wget and requests read it).
func oracleURLCreds(s string, bare bool) bool {
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	if oracleURLSlashes.MatchString(s) || oracleURLSpecial.MatchString(s) {
		return true
	}
	w := strings.TrimSpace(s)
	return bare && !strings.ContainsAny(w, " ") && oracleURLBare.MatchString(w)
}

// ---- git: config.c ----

// gitVarModel is one variable git reads: its full name (section,
// subsection as written, key; section and key lower case) and value.
type gitVarModel struct {
	name, value string
	valued      bool
}

// modelGitConfig reads data as git's git_parse_source does and returns the
// variables up to the first error; complete is false when git stops at one.
func modelGitConfig(data []byte) (vars []gitVarModel, complete bool) {
	d := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if bytes.HasPrefix(d, []byte("\xef\xbb\xbf")) {
		d = d[3:]
	} else if len(d) > 0 && d[0] == 0xef {
		return nil, false
	}
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	alpha := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
	keyc := func(c byte) bool { return alpha(c) || c >= '0' && c <= '9' || c == '-' }
	prefix := ""
	i := 0
	for i < len(d) {
		c := d[i]
		switch {
		case space(c):
			i++
		case c == '#' || c == ';':
			for i < len(d) && d[i] != '\n' {
				i++
			}
		case c == '[':
			i++
			name := ""
			for i < len(d) && (keyc(d[i]) || d[i] == '.') {
				name += string(rune(d[i] | 0x20*bit(alpha(d[i]))))
				i++
			}
			switch {
			case i < len(d) && d[i] == ']':
				i++
			case i < len(d) && space(d[i]) && d[i] != '\n':
				for i < len(d) && space(d[i]) && d[i] != '\n' {
					i++
				}
				if i >= len(d) || d[i] != '"' {
					return vars, false
				}
				i++
				sub := ""
				for {
					if i >= len(d) || d[i] == '\n' {
						return vars, false
					}
					if d[i] == '"' {
						i++
						break
					}
					if d[i] == '\\' {
						i++
						if i >= len(d) || d[i] == '\n' {
							return vars, false
						}
					}
					sub += string(d[i : i+1])
					i++
				}
				if i >= len(d) || d[i] != ']' {
					return vars, false
				}
				i++
				name += "." + sub
			default:
				return vars, false
			}
			if name == "" {
				return vars, false
			}
			prefix = name + "."
		case alpha(c):
			key := ""
			for i < len(d) && keyc(d[i]) {
				key += string(rune(d[i] | 0x20*bit(alpha(d[i]))))
				i++
			}
			for i < len(d) && (d[i] == ' ' || d[i] == '\t') {
				i++
			}
			v := gitVarModel{name: prefix + key}
			if i < len(d) && d[i] != '\n' {
				if d[i] != '=' {
					return vars, false
				}
				var ok bool
				v.value, i, ok = modelGitValue(d, i+1)
				if !ok {
					return vars, false
				}
				v.valued = true
			}
			vars = append(vars, v)
		default:
			return vars, false
		}
	}
	return vars, true
}

func bit(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// modelGitValue reads a value from d[i:] to its line's end: what git's
// parse_value keeps, as git's C string (up to a NUL), and where it ends.
func modelGitValue(d []byte, i int) (string, int, bool) {
	var v []byte
	solid := 0 // len(v) after the last event that is not white space
	quoted, comment := false, false
	for ; ; i++ {
		if i >= len(d) || d[i] == '\n' {
			if quoted && !comment {
				return "", i, false
			}
			v = v[:solid]
			if z := bytes.IndexByte(v, 0); z >= 0 {
				v = v[:z]
			}
			return string(v), i, true
		}
		c := d[i]
		switch {
		case comment:
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if len(v) > 0 {
				v = append(v, c)
			}
		case !quoted && (c == '#' || c == ';'):
			comment = true
		case c == '"':
			quoted = !quoted
			solid = len(v)
		case c == '\\':
			i++
			if i >= len(d) || d[i] == '\n' {
				solid = len(v)
				if i >= len(d) {
					i--
				}
				continue
			}
			e, ok := map[byte]byte{'t': '\t', 'b': '\b', 'n': '\n', '\\': '\\', '"': '"'}[d[i]]
			if !ok {
				return "", i, false
			}
			v = append(v, e)
			solid = len(v)
		default:
			v = append(v, c)
			solid = len(v)
		}
	}
}

// gitModelSplit splits a variable's name into section, subsection and key.
func gitModelSplit(name string) (section, sub, key string, hasSub bool) {
	first, last := strings.IndexByte(name, '.'), strings.LastIndexByte(name, '.')
	if first < 0 {
		return "", "", name, false
	}
	return name[:first], name[first+1 : max(last, first+1)], name[last+1:], first != last
}

// gitModelRemoved reports whether git reads the variable as one of keys
// (SECTION.KEY, any subsection).
func gitModelRemoved(name string, keys []string) bool {
	section, _, key, _ := gitModelSplit(name)
	if !strings.Contains(name, ".") {
		return false
	}
	for _, k := range keys {
		if strings.EqualFold(k, section+"."+key) {
			return true
		}
	}
	return false
}

// ---- wget: init.c ----

type wgetModelLine struct {
	command, name, value string // command: dehyphenated, lower case
	bad                  bool
}

var wgetModelSyntax = regexp.MustCompile(`(?s)^([A-Za-z0-9_-]*)[ \t\n\v\f\r]*=[ \t\n\v\f\r]*(.*)$`)

// modelWgetrc reads data as run_wgetrc and parse_line do.
func modelWgetrc(data []byte) []wgetModelLine {
	var out []wgetModelLine
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if z := bytes.IndexByte(line, 0); z >= 0 {
			line = line[:z]
		}
		t := string(bytes.Trim(line, " \t\n\v\f\r"))
		if t == "" || t[0] == '#' {
			continue
		}
		m := wgetModelSyntax.FindStringSubmatch(t)
		if m == nil {
			out = append(out, wgetModelLine{bad: true})
			continue
		}
		cmd := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(m[1]))
		out = append(out, wgetModelLine{command: cmd, name: m[1], value: m[2]})
	}
	return out
}

// ---- npm: ini's decode and @npmcli/config ----

const jsSpaceClass = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

var (
	npmModelLines   = regexp.MustCompile(`[\r\n]+`)
	npmModelComment = regexp.MustCompile(`^` + jsSpaceClass + `*[;#]`)
	npmModelBlank   = regexp.MustCompile(`^` + jsSpaceClass + `*$`)
	npmModelTrim    = regexp.MustCompile(`^` + jsSpaceClass + `+|` + jsSpaceClass + `+$`)
	npmModelLine    = regexp.MustCompile(`^\[([^\]]*)\]` + jsSpaceClass + `*$|^([^=]+)(=([^\n\r\x{2028}\x{2029}]*))?$`)
)

// npmModelEntry is what ini decodes from one line: a section, or a key
// and its value as JavaScript strings (String() of what JSON.parse made).
type npmModelEntry struct {
	section    bool
	key, value string
	keyString  bool // the key is a string, not JSON.parse's array, number, ...
	valueJSON  bool // the value is an object or array
	valued     bool
	bracketed  bool // the key ended in [], which ini takes off (an array)
}

// npmModelUnsafe is ini's unsafe and the String() conversion of its result;
// str is false when JSON.parse made something else than a string, object
// reports an object or array.
func npmModelUnsafe(raw string) (s string, str, object bool) {
	v := npmModelTrim.ReplaceAllString(raw, "")
	if q := v; len(q) > 0 && (q[0] == '"' && strings.HasSuffix(q, `"`) || q[0] == '\'' && strings.HasSuffix(q, "'")) {
		if q[0] == '\'' {
			if len(q) >= 2 {
				q = q[1 : len(q)-1]
			} else {
				q = ""
			}
		}
		var parsed any
		if json.Unmarshal([]byte(q), &parsed) != nil {
			return q, true, false
		}
		js, isStr := npmModelString(parsed)
		_, isMap := parsed.(map[string]any)
		_, isArr := parsed.([]any)
		return js, isStr, isMap || isArr
	}
	var out []rune
	runes := []rune(v)
	for k := 0; k < len(runes); k++ {
		c := runes[k]
		if c == ';' || c == '#' {
			break
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if k+1 == len(runes) {
			out = append(out, '\\')
			break
		}
		k++
		if n := runes[k]; n != '\\' && n != ';' && n != '#' {
			out = append(out, '\\')
		}
		out = append(out, runes[k])
	}
	return npmModelTrim.ReplaceAllString(string(out), ""), true, false
}

// npmModelString is JavaScript's String(v) for what JSON.parse returns.
func npmModelString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		return "null", false
	case bool:
		return strconv.FormatBool(x), false
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), false
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i], _ = npmModelString(e)
			}
		}
		return strings.Join(parts, ","), false
	}
	return "[object Object]", false
}

// modelNpmrc reads data as ini's decode does (UTF-8 decoded as Node does,
// nodeUTF8).
func modelNpmrc(data []byte) []npmModelEntry {
	var out []npmModelEntry
	text := nodeUTF8(data)
	for _, line := range npmModelLines.Split(text, -1) {
		if line == "" || npmModelComment.MatchString(line) || npmModelBlank.MatchString(line) {
			continue
		}
		m := npmModelLine.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		if m[2] >= 0 {
			name, _, _ := npmModelUnsafe(line[m[2]:m[3]])
			out = append(out, npmModelEntry{section: true, key: name, keyString: true})
			continue
		}
		e := npmModelEntry{}
		key, isStr, _ := npmModelUnsafe(line[m[4]:m[5]])
		if isStr && len(key) > 2 && strings.HasSuffix(key, "[]") {
			key, e.bracketed = key[:len(key)-2], true
		}
		e.key, e.keyString = key, isStr
		if m[6] >= 0 {
			e.value, _, e.valueJSON = npmModelUnsafe(line[m[8]:m[9]])
			e.valued = true
		}
		out = append(out, e)
	}
	return out
}

// npmModelCredential reports whether npm may read key as one of keys: its
// name after the last : is one of them (npm's ${VAR} expansion can make a
// key holding ${ any name).
func npmModelCredential(key string, keys []string) bool {
	if strings.Contains(key, "${") {
		return true
	}
	base := key[strings.LastIndex(key, ":")+1:]
	for _, k := range keys {
		if strings.EqualFold(k, base) {
			return true
		}
	}
	return false
}

// ---- pip: configparser.RawConfigParser._read ----

// pipModelOption is one option configparser reads: its section, its name
// (lower case) and the parts of its value, one a line.
type pipModelOption struct {
	section, name string
	parts         []string
	// first is the line of its section's first header, which places the
	// section in configparser's order; -1 for DEFAULT.
	first int
}

// pipJoinedCreds reports whether one of opts, each line without URL
// credentials, holds some once its lines are joined (configparser joins
// them with a newline; a URL parser drops newlines): then the redactor
// serves none of the file.
func pipJoinedCreds(opts []pipModelOption) bool {
	for _, o := range opts {
		if oracleURLCreds(o.value(), true) {
			return true
		}
	}
	return false
}

func (o pipModelOption) value() string {
	return strings.TrimRightFunc(strings.Join(o.parts, "\n"), unicode.IsSpace)
}

// modelPipConf reads data as configparser does: the options in the order
// they are set, and whether it reads to the end (ok) without an error.
func modelPipConf(data []byte) (opts []*pipModelOption, ok bool) {
	text := string(data)
	if !utf8.ValidString(text) {
		return nil, false
	}
	isSpace := func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text)
	lines := strings.SplitAfter(text, "\n")
	ok = true
	var cur *pipModelOption
	section, inSection, indentLevel := "", false, 0
	firsts := map[string]int{"DEFAULT": -1}
	for n, line := range lines {
		if line == "" {
			continue
		}
		stripped := strings.TrimFunc(line, isSpace)
		if strings.HasPrefix(stripped, "#") || strings.HasPrefix(stripped, ";") {
			continue
		}
		if stripped == "" {
			if cur != nil {
				cur.parts = append(cur.parts, "")
			}
			continue
		}
		indent := 0
		for _, r := range line {
			if !isSpace(r) {
				break
			}
			indent++
		}
		if inSection && cur != nil && indent > indentLevel {
			cur.parts = append(cur.parts, stripped)
			continue
		}
		indentLevel = indent
		if strings.HasPrefix(stripped, "[") && strings.LastIndex(stripped, "]") >= 2 {
			section, inSection, cur = stripped[1:strings.LastIndex(stripped, "]")], true, nil
			if _, seen := firsts[section]; !seen {
				firsts[section] = n
			}
			continue
		}
		if !inSection {
			return opts, false
		}
		k := strings.IndexAny(stripped, "=:")
		if k < 0 {
			ok = false
			continue
		}
		name := strings.ToLower(strings.TrimRightFunc(stripped[:k], isSpace))
		cur = &pipModelOption{section: section, name: name, parts: []string{strings.TrimFunc(stripped[k+1:], isSpace)}, first: firsts[section]}
		opts = append(opts, cur)
		if name == "" { // set, and an error; no line continues it
			ok, cur = false, nil
		}
	}
	return opts, ok
}

// pipModelName is pip's _normalize_name.
func pipModelName(n string) string {
	n = strings.ReplaceAll(strings.ToLower(n), "_", "-")
	if strings.HasPrefix(n, "--") {
		n = n[2:]
	}
	return n
}

// ---- yarnrc: the copy's own form ----

// yamlCanonical reads the form yWrite writes and nothing else: a block
// mapping or sequence at indents of two spaces, every key and scalar a
// double-quoted string with \\ \" and \uXXXX escapes, {} [] and empty
// values. It stands for js-yaml on the copy: each line of that form means
// one thing to any YAML reader. ok is false for anything else.
func yamlCanonical(text string) (n *yNode, ok bool) {
	if text == "" {
		return &yNode{kind: yNull}, true
	}
	if !strings.HasSuffix(text, "\n") {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) == 1 && strings.HasPrefix(lines[0], "# sandtable: this file is not served: ") {
		return &yNode{kind: yNull}, true
	}
	switch lines[0] {
	case "{}":
		return &yNode{kind: yMapping}, len(lines) == 1
	case "[]":
		return &yNode{kind: ySequence}, len(lines) == 1
	}
	if s, rest, ok := yamlCanonicalString(lines[0]); len(lines) == 1 && ok && rest == "" {
		return &yNode{kind: yString, str: s}, true
	}
	i := 0
	n, ok = yamlCanonicalBlock(lines, &i, 0)
	return n, ok && i == len(lines)
}

func yamlCanonicalBlock(lines []string, i *int, indent int) (*yNode, bool) {
	pad := strings.Repeat(" ", indent)
	if *i >= len(lines) || !strings.HasPrefix(lines[*i], pad) || strings.HasPrefix(lines[*i], pad+" ") {
		return nil, false
	}
	seq := strings.HasPrefix(lines[*i], pad+"-")
	n := &yNode{kind: yMapping}
	if seq {
		n.kind = ySequence
	}
	for *i < len(lines) && strings.HasPrefix(lines[*i], pad) && !strings.HasPrefix(lines[*i], pad+" ") {
		l := lines[*i][indent:]
		if seq {
			if !strings.HasPrefix(l, "-") {
				return nil, false
			}
			l = l[1:]
		} else {
			k, rest, ok := yamlCanonicalString(l)
			if !ok || !strings.HasPrefix(rest, ":") {
				return nil, false
			}
			n.keys = append(n.keys, k)
			l = rest[1:]
		}
		*i++
		var v *yNode
		switch {
		case l == "":
			v = &yNode{kind: yNull}
			if *i < len(lines) && strings.HasPrefix(lines[*i], pad+"  ") {
				var ok bool
				if v, ok = yamlCanonicalBlock(lines, i, indent+2); !ok || len(v.vals) == 0 {
					return nil, false
				}
			}
		case l == " {}":
			v = &yNode{kind: yMapping}
		case l == " []":
			v = &yNode{kind: ySequence}
		default:
			s, rest, ok := yamlCanonicalString(strings.TrimPrefix(l, " "))
			if !ok || rest != "" || !strings.HasPrefix(l, " ") {
				return nil, false
			}
			v = &yNode{kind: yString, str: s}
		}
		n.vals = append(n.vals, v)
	}
	return n, true
}

// yamlCanonicalString reads a double-quoted string at the start of s.
func yamlCanonicalString(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	var b strings.Builder
	for k := 1; k < len(s); k++ {
		switch c := s[k]; c {
		case '"':
			return b.String(), s[k+1:], true
		case '\\':
			if k+1 >= len(s) {
				return "", "", false
			}
			switch s[k+1] {
			case '\\', '"':
				b.WriteByte(s[k+1])
				k++
			case 'u':
				if k+6 > len(s) {
					return "", "", false
				}
				r, err := strconv.ParseUint(s[k+2:k+6], 16, 32)
				if err != nil {
					return "", "", false
				}
				b.WriteRune(rune(r))
				k += 5
			default:
				return "", "", false
			}
		default:
			if c < 0x20 || c == 0x7f {
				return "", "", false
			}
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// yamlModelCheck walks n: every key that is one of keys, and every key or
// string holding URL credentials, is reported.
func yamlModelCheck(n *yNode, keys []string, report func(what string)) {
	if n.kind == yString && oracleURLCreds(n.str, false) {
		report("URL credentials in " + strconv.Quote(n.str))
	}
	for i, v := range n.vals {
		if n.kind == yMapping {
			if hasKey(keys, n.keys[i]) {
				report("the key " + strconv.Quote(n.keys[i]))
			}
			if oracleURLCreds(n.keys[i], false) {
				report("URL credentials in the key " + strconv.Quote(n.keys[i]))
			}
		}
		yamlModelCheck(v, keys, report)
	}
}
