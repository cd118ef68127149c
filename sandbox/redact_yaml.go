package sandbox

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The yarnrc format: a .yarnrc.yml read as Yarn reads it, parseSyml of
// @yarnpkg/parsers, which is js-yaml's load with the failsafe schema
// (every scalar a string, duplicate keys allowed), or the legacy lockfile
// grammar when the file's leading comments name it. The reader here takes
// a subset of YAML: block mappings and sequences (a sequence under a key
// at the key's own indentation too), flow mappings and sequences over
// several lines, plain and quoted scalars on one line, and literal and
// folded block scalars. The copy is written back from what was read, in
// one form js-yaml reads as the same tree: block collections, every key
// and scalar double-quoted. A document outside the subset (anchors,
// aliases, tags, complex keys, directives, a second document, a
// multi-line plain or quoted scalar, a tab where indentation could be, a
// character js-yaml refuses) or in the legacy grammar is not served: the
// copy is a comment saying so.

const (
	yNull = iota
	yString
	yMapping
	ySequence
)

// yNode is a YAML node: a string, a mapping (keys and vals, in order, as
// read) or a sequence (vals).
type yNode struct {
	kind int
	str  string
	keys []string
	vals []*yNode
}

// yMaxDepth bounds the nesting the reader follows.
const yMaxDepth = 64

// yLine is one line of the document: its text after indent spaces.
type yLine struct {
	text   string
	indent int
}

func (l yLine) blank() bool { return l.text == "" || l.text[0] == '#' }

type yParser struct {
	lines []yLine
	i     int // the line being read
	depth int
}

// yError is why the reader stops, and where.
type yError struct {
	line int
	why  string
}

func (p *yParser) fail(why string) { panic(yError{p.i + 1, why}) }

// parseYarnrc reads data; doc is nil, and err says why and where, when
// data is outside the subset.
func parseYarnrc(data []byte) (doc *yNode, err yError) {
	text := string(data)
	if !utf8.ValidString(text) {
		return nil, yError{0, "not UTF-8"}
	}
	text = strings.TrimPrefix(text, "\ufeff")
	for _, r := range text {
		if !yPrintable(r) {
			return nil, yError{0, "a character js-yaml refuses, " + strconv.QuoteRuneToASCII(r)}
		}
	}
	p := &yParser{}
	for _, l := range pyLines(text) {
		n := len(l) - len(strings.TrimLeft(l, " "))
		p.lines = append(p.lines, yLine{text: l[n:], indent: n})
	}
	for _, l := range p.lines {
		if !strings.HasPrefix(l.text, "#") || l.indent > 0 {
			break
		}
		if strings.Contains(strings.ToLower(l.text), "lockfile") {
			return nil, yError{0, "a yarn lockfile comment leads it, and Yarn reads it in its legacy grammar"}
		}
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(yError)
			if !ok {
				panic(r)
			}
			doc, err = nil, e
		}
	}()
	p.skipBlank()
	if p.i < len(p.lines) && p.lines[p.i].indent == 0 && yMarker(p.lines[p.i].text, "---") {
		if !yEnds(p.lines[p.i].text[3:]) {
			p.fail("content on the document's --- line")
		}
		p.i++
	}
	for k := p.i; k < len(p.lines); k++ {
		if l := p.lines[k]; l.indent == 0 && (yMarker(l.text, "---") || yMarker(l.text, "...") || strings.HasPrefix(l.text, "%")) {
			p.i = k
			p.fail("a directive or a second document")
		}
	}
	doc = p.blockNode(-1, false)
	p.skipBlank()
	if p.i < len(p.lines) {
		p.fail("content after the document")
	}
	return doc, yError{}
}

// yMarker reports whether text is the document marker m, alone or before
// a space.
func yMarker(text, m string) bool {
	return strings.HasPrefix(text, m) && (len(text) == 3 || text[3] == ' ' || text[3] == '\t')
}

// yPrintable is js-yaml's printable set.
func yPrintable(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || 0x20 <= r && r <= 0x7e || r == 0x85 ||
		0xa0 <= r && r <= 0xd7ff || 0xe000 <= r && r <= 0xfffd || 0x10000 <= r && r <= 0x10ffff
}

func (p *yParser) skipBlank() {
	for p.i < len(p.lines) && p.lines[p.i].blank() {
		p.i++
	}
}

func (p *yParser) enter() {
	if p.depth++; p.depth > yMaxDepth {
		p.fail("nested deeper than " + strconv.Itoa(yMaxDepth))
	}
}

func (p *yParser) leave() { p.depth-- }

// yIsSeqEntry reports whether a line's text starts a sequence entry.
func yIsSeqEntry(text string) bool {
	return strings.HasPrefix(text, "-") && (len(text) == 1 || text[1] == ' ')
}

// blockNode reads the node on the next lines indented deeper than parent
// (a sequence at parent's own indentation too, under a mapping key when
// indentless); none is null.
func (p *yParser) blockNode(parent int, indentless bool) *yNode {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return &yNode{kind: yNull}
	}
	l := p.lines[p.i]
	switch {
	case yIsSeqEntry(l.text) && (l.indent > parent || indentless && l.indent == parent):
		return p.sequence(l.indent)
	case l.indent <= parent:
		return &yNode{kind: yNull}
	}
	if _, _, ok := yKey(l.text); ok {
		return p.mapping(l.indent)
	}
	return p.value(l.text, l.indent, parent)
}

// mapping reads the entries of a block mapping at indent n.
func (p *yParser) mapping(n int) *yNode {
	p.enter()
	defer p.leave()
	m := &yNode{kind: yMapping}
	for {
		p.skipBlank()
		if p.i >= len(p.lines) || p.lines[p.i].indent < n {
			return m
		}
		l := p.lines[p.i]
		if l.indent > n {
			p.fail("a line indented deeper than its mapping")
		}
		key, rest, ok := yKey(l.text)
		if !ok {
			p.fail("a line in a mapping that is not KEY: VALUE")
		}
		var v *yNode
		if rest == "" || rest[0] == '#' {
			p.i++
			v = p.blockNode(n, true)
		} else {
			v = p.value(rest, n+len(l.text)-len(rest), n)
		}
		m.keys, m.vals = append(m.keys, key), append(m.vals, v)
	}
}

// sequence reads the entries of a block sequence at indent n.
func (p *yParser) sequence(n int) *yNode {
	p.enter()
	defer p.leave()
	s := &yNode{kind: ySequence}
	for {
		p.skipBlank()
		if p.i >= len(p.lines) || p.lines[p.i].indent < n {
			return s
		}
		l := p.lines[p.i]
		if l.indent > n {
			p.fail("a line indented deeper than its sequence")
		}
		if !yIsSeqEntry(l.text) {
			return s // the mapping around an indentless sequence goes on
		}
		rest := strings.TrimLeft(l.text[1:], " ")
		col := n + len(l.text) - len(rest)
		var v *yNode
		switch _, _, isKey := yKey(rest); {
		case rest == "" || rest[0] == '#':
			p.i++
			if v = p.blockNode(n, false); v.kind == yNull {
				// js-yaml reads the entries after an empty one into a
				// sequence around it (- -, then -): none is served.
				p.i--
				p.fail("an empty sequence entry")
			}
		case yIsSeqEntry(rest):
			p.lines[p.i] = yLine{text: rest, indent: col}
			v = p.sequence(col)
		case isKey:
			p.lines[p.i] = yLine{text: rest, indent: col}
			v = p.mapping(col)
		default:
			v = p.value(rest, col, n)
		}
		s.vals = append(s.vals, v)
	}
}

// value reads the node that starts at text, column col of the current
// line, inside a collection at indent parent: a block scalar, a flow
// collection, a quoted or a plain scalar. The lines it takes are passed.
func (p *yParser) value(text string, col, parent int) *yNode {
	switch text[0] {
	case '|', '>':
		return p.blockScalar(text, parent)
	case '{', '[':
		return p.flow(col, parent)
	case '"', '\'':
		s, rest, ok := yQuoted(text)
		if !ok {
			p.fail("a quoted scalar not closed on its line")
		}
		if !yEnds(rest) {
			p.fail("text after a quoted scalar")
		}
		p.i++
		p.noContinuation(parent)
		return &yNode{kind: yString, str: s}
	}
	s, ok := yPlain(text)
	if !ok {
		p.fail("a plain scalar outside the subset (an indicator, a tab, a ': ')")
	}
	p.i++
	p.noContinuation(parent)
	return &yNode{kind: yString, str: s}
}

// noContinuation fails when the next line with content is indented deeper
// than parent: it would continue the scalar before it.
func (p *yParser) noContinuation(parent int) {
	p.skipBlank()
	if p.i < len(p.lines) && p.lines[p.i].indent > parent {
		p.fail("a scalar continued on the next line")
	}
}

// yEnds reports whether rest, after a node, holds nothing but spaces and
// a comment.
func yEnds(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || t[0] == '#' && len(t) < len(rest)
}

// yKey reads KEY: at the start of text, KEY plain or quoted on one line,
// the colon followed by a space or the end; rest is what follows, spaces
// skipped.
func yKey(text string) (key, rest string, ok bool) {
	if text == "" {
		return "", "", false
	}
	var after string
	if text[0] == '"' || text[0] == '\'' {
		k, r, closed := yQuoted(text)
		if !closed {
			return "", "", false
		}
		key, after = k, strings.TrimLeft(r, " ")
		if !strings.HasPrefix(after, ":") {
			return "", "", false
		}
		after = after[1:]
	} else {
		i := yColon(text)
		if i < 0 {
			return "", "", false
		}
		k, ok := yPlain(strings.TrimRight(text[:i], " "))
		if !ok {
			return "", "", false
		}
		key, after = k, text[i+1:]
	}
	if after != "" && after[0] != ' ' || len(key) > 1024 {
		return "", "", false
	}
	return key, strings.TrimLeft(after, " "), true
}

// yColon is the index of the first ':' in text followed by a space or
// the end, before any comment; -1 if none.
func yColon(text string) int {
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '#' && i > 0 && text[i-1] == ' ':
			return -1
		case text[i] == ':' && (i+1 == len(text) || text[i+1] == ' '):
			return i
		}
	}
	return -1
}

// yPlain reads a plain scalar in block context that is all of text but a
// comment: it must not start with an indicator, and holds no ": ", no tab,
// and no ':' at its end.
func yPlain(text string) (string, bool) {
	s := text
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && s[i-1] == ' ' {
			s = s[:i]
			break
		}
	}
	s = strings.TrimRight(s, " ")
	if s == "" || strings.ContainsAny(s, "\t") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || !yPlainStart(s, false) {
		return "", false
	}
	return s, true
}

// yPlainStart reports whether a plain scalar may start s: not with an
// indicator, or with - ? : when a character that may follow comes next.
func yPlainStart(s string, flow bool) bool {
	c := s[0]
	if strings.IndexByte(",[]{}#&*!|>'\"%@`", c) >= 0 {
		return false
	}
	if c == '-' || c == '?' || c == ':' {
		return len(s) > 1 && s[1] != ' ' && !(flow && strings.IndexByte(",[]{}", s[1]) >= 0)
	}
	return true
}

// yQuoted reads a single- or double-quoted scalar at the start of text,
// closed on the same line, and what follows it.
func yQuoted(text string) (s, rest string, ok bool) {
	q := text[0]
	var b strings.Builder
	for i := 1; i < len(text); i++ {
		c := text[i]
		if q == '\'' {
			if c == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return b.String(), text[i+1:], true
			}
			b.WriteByte(c)
			continue
		}
		switch c {
		case '"':
			return b.String(), text[i+1:], true
		case '\\':
			n, ok := yEscape(&b, text[i+1:])
			if !ok {
				return "", "", false
			}
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// yEscapeChar is a YAML one-character escape's text.
func yEscapeChar(c byte) (string, bool) {
	switch c {
	case '0':
		return "\x00", true
	case 'a':
		return "\a", true
	case 'b':
		return "\b", true
	case 't', '\t':
		return "\t", true
	case 'n':
		return "\n", true
	case 'v':
		return "\v", true
	case 'f':
		return "\f", true
	case 'r':
		return "\r", true
	case 'e':
		return "\x1b", true
	case ' ', '"', '/', '\\':
		return string(c), true
	case 'N':
		return "\u0085", true
	case '_':
		return "\u00a0", true
	case 'L':
		return "\u2028", true
	case 'P':
		return "\u2029", true
	}
	return "", false
}

// escapeWidth is how many hex digits follow \x, \u or \U (YAML's and
// TOML's), 0 after another letter.
func escapeWidth(c byte) int {
	switch c {
	case 'x':
		return 2
	case 'u':
		return 4
	case 'U':
		return 8
	}
	return 0
}

// yEscape decodes the escape after a backslash at the start of s into b,
// and returns how many bytes it took.
func yEscape(b *strings.Builder, s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	if v, ok := yEscapeChar(s[0]); ok {
		b.WriteString(v)
		return 1, true
	}
	width := escapeWidth(s[0])
	if width == 0 || len(s) < 1+width {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:1+width], 16, 32)
	if err != nil {
		return 0, false
	}
	r, used := rune(n), 1+width
	if 0xd800 <= r && r <= 0xdbff && s[0] == 'u' && len(s) >= 11 && s[5] == '\\' && s[6] == 'u' {
		lo, err := strconv.ParseUint(s[7:11], 16, 32)
		if err == nil && 0xdc00 <= lo && lo <= 0xdfff {
			r, used = 0x10000+(r-0xd800)<<10+rune(lo)-0xdc00, 11
		}
	}
	if 0xd800 <= r && r <= 0xdfff || r > utf8.MaxRune {
		return 0, false // a lone surrogate: no UTF-8 holds it
	}
	b.WriteRune(r)
	return used, true
}

// blockScalar reads a literal (|) or folded (>) scalar whose header is
// text, its content the lines after it indented deeper than parent.
func (p *yParser) blockScalar(text string, parent int) *yNode {
	folded, chomp := text[0] == '>', byte(0)
	h := text[1:]
	if h != "" && (h[0] == '-' || h[0] == '+') {
		chomp, h = h[0], h[1:]
	}
	if !yEnds(h) {
		p.fail("a block scalar header with an indentation indicator or text")
	}
	p.i++
	start, m := p.i, -1
	for k := p.i; k < len(p.lines); k++ {
		if p.lines[k].text != "" {
			if p.lines[k].indent > parent {
				m = p.lines[k].indent
			}
			break
		}
	}
	var body []string
	trailing := 0
	if m < 0 {
		for p.i < len(p.lines) && p.lines[p.i].text == "" {
			p.i++
		}
		if chomp == '+' && p.i > start {
			p.fail("a kept block scalar without content")
		}
		return &yNode{kind: yString}
	}
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if l.text == "" {
			if len(body) == 0 && l.indent > m {
				p.fail("a leading empty line indented past the block scalar's content")
			}
			if l.indent > m {
				body = append(body, strings.Repeat(" ", l.indent-m))
				trailing = 0
				continue
			}
			body = append(body, "")
			trailing++
			continue
		}
		if l.indent < m {
			break
		}
		body = append(body, strings.Repeat(" ", l.indent-m)+l.text)
		trailing = 0
	}
	body = body[:len(body)-trailing]
	var b strings.Builder
	if !folded {
		b.WriteString(strings.Join(body, "\n"))
	} else {
		empty, started, prevMore := 0, false, false
		for _, t := range body {
			if t == "" {
				empty++
				continue
			}
			more := t[0] == ' ' || t[0] == '\t'
			switch {
			case !started:
				b.WriteString(strings.Repeat("\n", empty))
			case more || prevMore:
				b.WriteString(strings.Repeat("\n", empty+1))
			case empty == 0:
				b.WriteByte(' ')
			default:
				b.WriteString(strings.Repeat("\n", empty))
			}
			b.WriteString(t)
			empty, started, prevMore = 0, true, more
		}
	}
	switch chomp {
	case 0:
		b.WriteByte('\n')
	case '+':
		b.WriteString(strings.Repeat("\n", 1+trailing))
	}
	return &yNode{kind: yString, str: b.String()}
}

// yFlow reads a flow collection: a cursor over the lines from the
// current one.
type yFlow struct {
	p    *yParser
	line int
	s    string // the current line's text from the cursor on
}

// flow reads the flow collection at column col of the current line.
func (p *yParser) flow(col, parent int) *yNode {
	l := p.lines[p.i]
	f := &yFlow{p: p, line: p.i, s: l.text[col-l.indent:]}
	n := f.node(false)
	if !yEnds(f.s) {
		p.i = f.line
		p.fail("text after a flow collection")
	}
	p.i = f.line + 1
	p.noContinuation(parent)
	return n
}

// space skips spaces, comments and line ends. (The brackets delimit a
// flow collection: js-yaml takes its lines at any indentation.)
func (f *yFlow) space() {
	for {
		f.s = strings.TrimLeft(f.s, " ")
		if f.s != "" && f.s[0] != '#' {
			return
		}
		f.line++
		if f.line >= len(f.p.lines) {
			f.p.i = f.line - 1
			f.p.fail("a flow collection not closed")
		}
		f.s = f.p.lines[f.line].text
	}
}

func (f *yFlow) fail(why string) {
	f.p.i = f.line
	f.p.fail(why)
}

// node reads a flow node: a collection, or a scalar (a key's when key).
func (f *yFlow) node(key bool) *yNode {
	f.space()
	switch c := f.s[0]; c {
	case '{', '[':
		if key {
			f.fail("a collection as a key")
		}
		f.p.enter()
		defer f.p.leave()
		f.s = f.s[1:]
		if c == '{' {
			return f.mapping()
		}
		return f.sequence()
	case '"', '\'':
		s, rest, ok := yQuoted(f.s)
		if !ok {
			f.fail("a quoted scalar not closed on its line")
		}
		f.s = rest
		return &yNode{kind: yString, str: s}
	}
	if !yPlainStart(f.s, true) {
		f.fail("a flow scalar starting with an indicator")
	}
	i := 0
	for i < len(f.s) {
		c := f.s[i]
		if strings.IndexByte(",[]{}\t", c) >= 0 || c == '#' && f.s[i-1] == ' ' ||
			c == ':' && (i+1 == len(f.s) || strings.IndexByte(" ,[]{}", f.s[i+1]) >= 0) {
			break
		}
		i++
	}
	s := strings.TrimRight(f.s[:i], " ")
	f.s = f.s[i:]
	if f.s == "" || f.s[0] == '#' || f.s[0] == '\t' {
		// The scalar reaches its line's end: what comes next must end
		// it, not continue it.
		if f.s != "" && f.s[0] == '\t' {
			f.fail("a tab in a flow collection")
		}
		f.space()
		if strings.IndexByte(",]}", f.s[0]) < 0 {
			f.fail("a flow scalar continued on the next line")
		}
	}
	return &yNode{kind: yString, str: s}
}

// mapping reads a flow mapping's entries after its {.
func (f *yFlow) mapping() *yNode {
	m := &yNode{kind: yMapping}
	f.space()
	if f.s[0] == '}' {
		f.s = f.s[1:]
		return m
	}
	for {
		k := f.node(true)
		if len(k.str) > 1024 {
			// YAML's implicit keys hold at most 1024 characters, and the
			// copy writes each key as a block mapping's: not served.
			f.fail("a key longer than 1024 characters")
		}
		f.space()
		v := &yNode{kind: yNull}
		if f.s[0] == ':' {
			f.s = f.s[1:]
			f.space()
			if f.s[0] != ',' && f.s[0] != '}' {
				v = f.node(false)
				f.space()
			}
		}
		m.keys, m.vals = append(m.keys, k.str), append(m.vals, v)
		switch f.s[0] {
		case '}':
			f.s = f.s[1:]
			return m
		case ',':
			f.s = f.s[1:]
			f.space()
			if f.s[0] == '}' {
				f.fail("a trailing comma in a flow mapping")
			}
		default:
			f.fail("a flow mapping entry not followed by , or }")
		}
	}
}

// sequence reads a flow sequence's entries after its [.
func (f *yFlow) sequence() *yNode {
	s := &yNode{kind: ySequence}
	f.space()
	if f.s[0] == ']' {
		f.s = f.s[1:]
		return s
	}
	for {
		if f.s[0] == '?' && (len(f.s) == 1 || f.s[1] == ' ') {
			f.fail("a complex key")
		}
		s.vals = append(s.vals, f.node(false))
		f.space()
		switch f.s[0] {
		case ']':
			f.s = f.s[1:]
			return s
		case ',':
			f.s = f.s[1:]
			f.space()
			if f.s[0] == ']' {
				f.fail("a trailing comma in a flow sequence")
			}
		default:
			f.fail("a flow sequence entry not followed by , or ]")
		}
	}
}

// redactYarnrc is the yarnrc format's redaction of data.
func redactYarnrc(data []byte, rf redactFile) []byte {
	doc, err := parseYarnrc(data)
	if doc == nil {
		where := ""
		if err.line > 0 {
			where = " at line " + strconv.Itoa(err.line)
		}
		return []byte("# sandtable: this file is not served: " + err.why + where + ".\n")
	}
	var b strings.Builder
	yWrite(&b, yRedact(doc, rf), 0)
	return []byte(b.String())
}

// yRedact is n without the keys rf removes and, with rf.urls, with URL
// credentials stripped from every key and string.
func yRedact(n *yNode, rf redactFile) *yNode {
	strip := func(s string) string {
		if rf.urls {
			return stripURLCredentials(s, false)
		}
		return s
	}
	out := &yNode{kind: n.kind, str: strip(n.str)}
	for i, v := range n.vals {
		if n.kind == yMapping {
			if hasKey(rf.keys, n.keys[i]) || hasKey(rf.keys, strip(n.keys[i])) {
				continue
			}
			out.keys = append(out.keys, strip(n.keys[i]))
		}
		out.vals = append(out.vals, yRedact(v, rf))
	}
	return out
}

// yWrite writes n as block YAML at indent, every scalar double-quoted.
func yWrite(b *strings.Builder, n *yNode, indent int) {
	pad := strings.Repeat(" ", indent)
	item := func(lead string, v *yNode) {
		b.WriteString(pad + lead)
		switch {
		case v.kind == yNull:
			b.WriteByte('\n')
		case v.kind == yString:
			b.WriteString(" " + yQuote(v.str) + "\n")
		case len(v.vals) == 0 && v.kind == yMapping:
			b.WriteString(" {}\n")
		case len(v.vals) == 0:
			b.WriteString(" []\n")
		default:
			b.WriteByte('\n')
			yWrite(b, v, indent+2)
		}
	}
	switch n.kind {
	case yMapping:
		if len(n.vals) == 0 && indent == 0 {
			b.WriteString("{}\n")
		}
		for i, v := range n.vals {
			item(yQuote(n.keys[i])+":", v)
		}
	case ySequence:
		if len(n.vals) == 0 && indent == 0 {
			b.WriteString("[]\n")
		}
		for _, v := range n.vals {
			item("-", v)
		}
	case yString:
		b.WriteString(yQuote(n.str) + "\n")
	}
}

// yQuote writes s as a double-quoted YAML scalar, escaping what js-yaml
// would not take as it is.
func yQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || 0x7f <= r && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xfffe && r <= 0xffff:
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(`\u` + strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
