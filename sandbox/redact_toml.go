package sandbox

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The uv-toml format: a uv.toml read as TOML 1.0, which uv's toml crate
// reads (with TOML 1.1's \e and \xHH escapes decoded too, which only a
// newer reader takes): statements one a line, KEY = VALUE with bare,
// quoted and dotted keys, [table] and [[array]] headers; basic and
// literal strings, multi-line too, arrays over several lines, inline
// tables on one line, other values as bare words. The copy is the file
// with the statements whose key path names a removed key dropped (a
// table's header with every statement up to the next header), comments
// dropped, and each string holding a URL's credentials written anew as a
// basic string without them. A file the reader cannot take apart is not
// served: the copy is a comment saying so.

// tomlEdit replaces s[start:end] of the file with repl.
type tomlEdit struct {
	start, end int
	repl       string
}

type tomlReader struct {
	s     string
	pos   int
	rf    redactFile
	edits []tomlEdit // of the statement being read
	drop  bool       // the statement names a removed key
}

type tomlError struct {
	pos int
	why string
}

func (t *tomlReader) fail(why string) { panic(tomlError{t.pos, why}) }

func (t *tomlReader) peek(prefix string) bool { return strings.HasPrefix(t.s[t.pos:], prefix) }

func (t *tomlReader) ws() {
	for t.pos < len(t.s) && (t.s[t.pos] == ' ' || t.s[t.pos] == '\t') {
		t.pos++
	}
}

// newline takes a line end, reporting whether there was one.
func (t *tomlReader) newline() bool {
	switch {
	case t.peek("\n"):
		t.pos++
	case t.peek("\r\n"):
		t.pos += 2
	default:
		return false
	}
	return true
}

// comment takes a comment, which the copy drops.
func (t *tomlReader) comment() {
	if !t.peek("#") {
		return
	}
	start := t.pos
	for t.pos < len(t.s) && t.s[t.pos] != '\n' && !t.peek("\r\n") {
		if c := t.s[t.pos]; c < 0x20 && c != '\t' || c == 0x7f {
			t.fail("a control character in a comment")
		}
		t.pos++
	}
	t.edits = append(t.edits, tomlEdit{start, t.pos, ""})
}

// lineEnd takes what may end a statement: spaces, a comment, a line end.
func (t *tomlReader) lineEnd() {
	t.ws()
	t.comment()
	if t.pos < len(t.s) && !t.newline() {
		t.fail("text after a statement")
	}
}

// redactUvTOML is the uv-toml format's redaction of data.
func redactUvTOML(data []byte, rf redactFile) (out []byte) {
	s := string(data)
	if !utf8.ValidString(s) {
		return []byte("# sandtable: this file is not served: not UTF-8.\n")
	}
	t := &tomlReader{s: s, rf: rf}
	var kept []tomlEdit
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(tomlError)
			if !ok {
				panic(r)
			}
			line := 1 + strings.Count(s[:e.pos], "\n")
			out = []byte("# sandtable: this file is not served: " + e.why + " at line " + strconv.Itoa(line) + ".\n")
		}
	}()
	if t.peek("\ufeff") {
		t.pos += len("\ufeff")
	}
	inDropped := false
	for t.pos < len(t.s) {
		start := t.pos
		t.edits, t.drop = nil, false
		t.ws()
		switch {
		case t.pos == len(t.s) || t.peek("#") || t.peek("\n") || t.peek("\r\n"):
			t.lineEnd()
			kept = append(kept, t.edits...)
			continue
		case t.peek("["):
			array := t.peek("[[")
			t.pos++
			if array {
				t.pos++
			}
			t.ws()
			t.keyPath()
			t.ws()
			end := "]"
			if array {
				end = "]]"
			}
			if !t.peek(end) {
				t.fail("a table header not closed")
			}
			t.pos += len(end)
			inDropped = t.drop
		default:
			t.keyPath()
			t.ws()
			if !t.peek("=") {
				t.fail("a key without =")
			}
			t.pos++
			t.ws()
			t.value()
		}
		t.lineEnd()
		if t.drop || inDropped {
			kept = append(kept, tomlEdit{start, t.pos, ""})
			continue
		}
		kept = append(kept, t.edits...)
	}
	var b strings.Builder
	at := 0
	for _, e := range kept {
		b.WriteString(s[at:e.start])
		b.WriteString(e.repl)
		at = e.end
	}
	b.WriteString(s[at:])
	return []byte(b.String())
}

// keyPath reads a dotted key; a component that is a removed key marks the
// statement dropped.
func (t *tomlReader) keyPath() {
	for {
		var k string
		switch {
		case t.peek("\""), t.peek("'"):
			if t.peek(`"""`) || t.peek("'''") {
				t.fail("a multi-line string as a key")
			}
			k = t.str()
		default:
			start := t.pos
			for t.pos < len(t.s) && tomlBareKeyChar(t.s[t.pos]) {
				t.pos++
			}
			if t.pos == start {
				t.fail("a key expected")
			}
			k = t.s[start:t.pos]
		}
		if hasKey(t.rf.keys, k) || hasKey(t.rf.keys, stripURLCredentials(k, false)) {
			t.drop = true
		}
		t.ws()
		if !t.peek(".") {
			return
		}
		t.pos++
		t.ws()
	}
}

func tomlBareKeyChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// value reads a value.
func (t *tomlReader) value() {
	switch {
	case t.pos >= len(t.s):
		t.fail("a value expected")
	case t.peek("\""), t.peek("'"):
		t.str()
	case t.peek("["):
		t.pos++
		for {
			t.space()
			if t.peek("]") {
				t.pos++
				return
			}
			t.value()
			t.space()
			switch {
			case t.peek(","):
				t.pos++
			case t.peek("]"):
				t.pos++
				return
			default:
				t.fail("an array element not followed by , or ]")
			}
		}
	case t.peek("{"):
		t.pos++
		t.ws()
		if t.peek("}") {
			t.pos++
			return
		}
		for {
			t.ws()
			t.keyPath()
			t.ws()
			if !t.peek("=") {
				t.fail("an inline table's key without =")
			}
			t.pos++
			t.ws()
			t.value()
			t.ws()
			switch {
			case t.peek(","):
				t.pos++
			case t.peek("}"):
				t.pos++
				return
			default:
				t.fail("an inline table's entry not followed by , or }")
			}
		}
	default:
		start := t.pos
		for t.pos < len(t.s) && tomlBareValueChar(t.s[t.pos]) {
			t.pos++
		}
		// A date and a time apart: 1979-05-27 07:32:00.
		if t.pos-start == 10 && t.s[start+4] == '-' && t.pos+3 < len(t.s) && t.s[t.pos] == ' ' &&
			isDigit(t.s[t.pos+1]) && isDigit(t.s[t.pos+2]) && t.s[t.pos+3] == ':' {
			t.pos++
			for t.pos < len(t.s) && tomlBareValueChar(t.s[t.pos]) {
				t.pos++
			}
		}
		if t.pos == start {
			t.fail("a value expected")
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func tomlBareValueChar(c byte) bool {
	return tomlBareKeyChar(c) || c == '.' || c == ':' || c == '+'
}

// space skips what may stand between an array's elements: spaces, line
// ends and comments.
func (t *tomlReader) space() {
	for {
		t.ws()
		t.comment()
		if !t.newline() {
			if t.pos >= len(t.s) {
				t.fail("an array not closed")
			}
			return
		}
	}
}

// str reads a string, and when its text holds a URL's credentials writes
// it anew without them.
func (t *tomlReader) str() string {
	start := t.pos
	v := t.strText()
	if t.rf.urls {
		if stripped := stripURLCredentials(v, false); stripped != v {
			t.edits = append(t.edits, tomlEdit{start, t.pos, tomlQuote(stripped)})
			return stripped
		}
	}
	return v
}

// strText reads a basic, literal or multi-line string and returns its
// text.
func (t *tomlReader) strText() string {
	q := t.s[t.pos : t.pos+1]
	multi := t.peek(q + q + q)
	if multi {
		t.pos += 3
		t.newline() // a line end right after the opening goes
	} else {
		t.pos++
	}
	var b strings.Builder
	for {
		if t.pos >= len(t.s) {
			t.fail("a string not closed")
		}
		c := t.s[t.pos]
		switch {
		case c == q[0] && !multi:
			t.pos++
			return b.String()
		case c == q[0] && t.peek(q+q+q):
			n := 3
			for t.pos+n < len(t.s) && t.s[t.pos+n] == q[0] {
				n++
			}
			if n > 5 {
				t.fail("too many quotes closing a multi-line string")
			}
			b.WriteString(strings.Repeat(q, n-3))
			t.pos += n
			return b.String()
		case c == '\n' || t.peek("\r\n"):
			if !multi {
				t.fail("a line end in a string")
			}
			t.newline()
			b.WriteByte('\n')
		case c == '\\' && q == `"`:
			t.escape(&b, multi)
		case c < 0x20 && c != '\t' || c == 0x7f:
			t.fail("a control character in a string")
		default:
			_, size := utf8.DecodeRuneInString(t.s[t.pos:])
			b.WriteString(t.s[t.pos : t.pos+size])
			t.pos += size
		}
	}
}

// tomlEscapeChar is a TOML one-character escape's text (\e is TOML 1.1's).
func tomlEscapeChar(c byte) (string, bool) {
	switch c {
	case 'b':
		return "\b", true
	case 't':
		return "\t", true
	case 'n':
		return "\n", true
	case 'f':
		return "\f", true
	case 'r':
		return "\r", true
	case '"', '\\':
		return string(c), true
	case 'e':
		return "\x1b", true
	}
	return "", false
}

// escape reads a basic string's escape at its backslash.
func (t *tomlReader) escape(b *strings.Builder, multi bool) {
	t.pos++
	if t.pos >= len(t.s) {
		t.fail("a string not closed")
	}
	c := t.s[t.pos]
	if v, ok := tomlEscapeChar(c); ok {
		b.WriteString(v)
		t.pos++
		return
	}
	if width := escapeWidth(c); width > 0 {
		if t.pos+1+width > len(t.s) {
			t.fail("a short escape")
		}
		n, err := strconv.ParseUint(t.s[t.pos+1:t.pos+1+width], 16, 32)
		if err != nil || n > utf8.MaxRune || 0xd800 <= n && n <= 0xdfff {
			t.fail("an escape that is no scalar value")
		}
		b.WriteRune(rune(n))
		t.pos += 1 + width
		return
	}
	if multi { // a line-ending backslash: the white space after it goes
		p := t.pos
		for p < len(t.s) && (t.s[p] == ' ' || t.s[p] == '\t') {
			p++
		}
		if p < len(t.s) && (t.s[p] == '\n' || strings.HasPrefix(t.s[p:], "\r\n")) {
			t.pos = p
			for t.pos < len(t.s) && (strings.ContainsRune(" \t\n", rune(t.s[t.pos])) || t.peek("\r\n")) {
				t.pos++
			}
			return
		}
	}
	t.fail("an unknown escape")
}

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(`\u` + strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
