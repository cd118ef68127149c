package sandbox

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The uv-toml oracle: TOML as a token stream, then statements over it
// (written apart from redact_toml.go's one-pass reader). It reports every
// key of every key path, with the table it is in, and every string, as a
// TOML reader would see them; ok is false where it cannot read the file.

type tomlTok struct {
	kind byte // 'n' line end, 's' string, 'b' bare word, or the punctuation itself
	text string
	sp   bool // white space before it
}

// tomlModelLex splits s into tokens; comments and blanks are dropped.
func tomlModelLex(s string) ([]tomlTok, bool) {
	var toks []tomlTok
	sp := false
	add := func(tok tomlTok) {
		tok.sp, sp = sp, false
		toks = append(toks, tok)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			sp = true
			i++
		case c == '\n':
			add(tomlTok{kind: 'n'})
			i++
		case c == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return nil, false
			}
			i++
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.IndexByte("[]{}=,.", c) >= 0:
			// (a dot inside a bare word is the word's: see below)
			add(tomlTok{kind: c})
			i++
		case c == '"' || c == '\'':
			v, n, ok := tomlModelString(s[i:])
			if !ok {
				return nil, false
			}
			add(tomlTok{kind: 's', text: v})
			i += n
		default:
			// A bare word: a key's dots inside it split it later; a value
			// (1.5, a date and time) keeps them.
			bare := func(c byte) bool {
				return strings.IndexByte("_-+:", c) >= 0 || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
			}
			j := i
			for j < len(s) && (bare(s[j]) || s[j] == '.' && j > i && j+1 < len(s) && bare(s[j+1])) {
				j++
			}
			if j == i {
				return nil, false
			}
			add(tomlTok{kind: 'b', text: s[i:j]})
			i = j
		}
	}
	return toks, true
}

// tomlModelString decodes the string at the start of s: basic, literal,
// or either multi-line; n is its length in s.
func tomlModelString(s string) (v string, n int, ok bool) {
	q := s[:1]
	delim, multi := q, strings.HasPrefix(s, q+q+q)
	if multi {
		delim = q + q + q
	}
	i := len(delim)
	if multi && strings.HasPrefix(s[i:], "\n") {
		i++
	} else if multi && strings.HasPrefix(s[i:], "\r\n") {
		i += 2
	}
	var b strings.Builder
	for i < len(s) {
		if strings.HasPrefix(s[i:], delim) {
			end := i + len(delim)
			for multi && end < len(s) && s[end] == q[0] && end-i < 5 {
				end++
			}
			if multi {
				b.WriteString(strings.Repeat(q, end-i-3))
			}
			return b.String(), end, true
		}
		c := s[i]
		if c == '\n' && !multi || (c < 0x20 && c != '\t' && c != '\n' && !(c == '\r' && multi && strings.HasPrefix(s[i:], "\r\n"))) || c == 0x7f {
			return "", 0, false
		}
		if c == '\\' && q == `"` {
			i++
			if i >= len(s) {
				return "", 0, false
			}
			esc := map[byte]string{'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", '"': `"`, '\\': `\`, 'e': "\x1b"}
			if e, ok := esc[s[i]]; ok {
				b.WriteString(e)
				i++
				continue
			}
			if w := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]; w > 0 && i+1+w <= len(s) {
				r, err := strconv.ParseUint(s[i+1:i+1+w], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", 0, false
				}
				b.WriteRune(rune(r))
				i += 1 + w
				continue
			}
			if !multi {
				return "", 0, false
			}
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j >= len(s) || s[j] != '\n' && !strings.HasPrefix(s[j:], "\r\n") {
				return "", 0, false
			}
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			i = j
			continue
		}
		if strings.HasPrefix(s[i:], "\r\n") {
			b.WriteByte('\n')
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	return "", 0, false
}

// tomlModel is what the oracle read: each key with the path it is under,
// and each string.
type tomlModel struct {
	keys    [][]string // full paths, table's included
	strings []string
}

type tomlModelParser struct {
	toks []tomlTok
	i    int
	m    *tomlModel
}

func (p *tomlModelParser) peek() byte {
	if p.i >= len(p.toks) {
		return 0
	}
	return p.toks[p.i].kind
}

// modelTOML reads s; ok is false where a TOML reader would stop.
func modelTOML(s string) (*tomlModel, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	toks, ok := tomlModelLex(strings.TrimPrefix(s, "\ufeff"))
	if !ok {
		return nil, false
	}
	p := &tomlModelParser{toks: toks, m: &tomlModel{}}
	var table []string
	for p.i < len(p.toks) {
		switch p.peek() {
		case 'n':
			p.i++
			continue
		case '[':
			p.i++
			array := p.peek() == '['
			if array {
				p.i++
			}
			k, ok := p.key()
			if !ok || p.peek() != ']' {
				return nil, false
			}
			p.i++
			if array {
				if p.peek() != ']' {
					return nil, false
				}
				p.i++
			}
			table = k
			p.m.keys = append(p.m.keys, k)
		default:
			if !p.keyValue(table) {
				return nil, false
			}
		}
		if p.peek() != 'n' && p.peek() != 0 {
			return nil, false
		}
	}
	return p.m, true
}

// key reads a dotted key.
func (p *tomlModelParser) key() ([]string, bool) {
	var k []string
	for {
		switch p.peek() {
		case 's':
			k = append(k, p.toks[p.i].text)
			p.m.strings = append(p.m.strings, p.toks[p.i].text)
		case 'b':
			for _, part := range strings.Split(p.toks[p.i].text, ".") {
				k = append(k, part)
			}
		default:
			return nil, false
		}
		p.i++
		if p.peek() != '.' {
			return k, true
		}
		p.i++
	}
}

func (p *tomlModelParser) keyValue(under []string) bool {
	k, ok := p.key()
	if !ok || p.peek() != '=' {
		return false
	}
	p.i++
	p.m.keys = append(p.m.keys, append(append([]string{}, under...), k...))
	return p.value(append(append([]string{}, under...), k...), false)
}

func (p *tomlModelParser) value(path []string, inArray bool) bool {
	switch p.peek() {
	case 's':
		p.m.strings = append(p.m.strings, p.toks[p.i].text)
		p.i++
	case 'b', '.':
		// A bare value: words and dots without space between (1.5, .5,
		// a date), and a date, a space and a time.
		word := ""
		for first, date := true, false; p.peek() == 'b' || p.peek() == '.'; first = false {
			if !first && p.toks[p.i].sp {
				if date || len(word) != 10 || p.peek() != 'b' {
					break
				}
				date = true
			}
			word += p.toks[p.i].text + map[bool]string{true: ".", false: ""}[p.peek() == '.']
			p.i++
		}
	case '[':
		p.i++
		for {
			for p.peek() == 'n' {
				p.i++
			}
			if p.peek() == ']' {
				p.i++
				return true
			}
			if !p.value(path, true) {
				return false
			}
			for p.peek() == 'n' {
				p.i++
			}
			switch p.peek() {
			case ',':
				p.i++
			case ']':
				p.i++
				return true
			default:
				return false
			}
		}
	case '{':
		p.i++
		if p.peek() == '}' {
			p.i++
			return true
		}
		for {
			if !p.keyValue(path) {
				return false
			}
			switch p.peek() {
			case ',':
				p.i++
			case '}':
				p.i++
				return true
			default:
				return false
			}
		}
	default:
		return false
	}
	return true
}
