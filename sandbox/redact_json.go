package sandbox

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonMaxDepth is how deep arrays and objects may nest before jsonParse
// gives up, as encoding/json's scanner does.
const jsonMaxDepth = 10000

// jsonParse reads s as one JSON text (RFC 8259), as JSON.parse does,
// without reflection: ok if it is one; then kind is iniString with the
// string's value, iniObject for an object or array, iniScalar for the
// rest. A \u escape of a lone surrogate reads as U+FFFD.
func jsonParse(s string) (str string, kind int, ok bool) {
	i := jsonSpace(s, 0)
	if i < len(s) && s[i] == '"' {
		str, i, ok = jsonString(s, i)
		kind = iniString
	} else if i < len(s) && (s[i] == '{' || s[i] == '[') {
		i, ok = jsonComposite(s, i)
		kind = iniObject
	} else {
		i, ok = jsonScalar(s, i)
		kind = iniScalar
	}
	if !ok || jsonSpace(s, i) != len(s) {
		return "", 0, false
	}
	return str, kind, true
}

func jsonSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonScalar reads a number, true, false or null at i.
func jsonScalar(s string, i int) (int, bool) {
	for _, lit := range []string{"true", "false", "null"} {
		if strings.HasPrefix(s[i:], lit) {
			return i + len(lit), true
		}
	}
	digits := func(i int) int {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(i)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// jsonComposite checks the array or object at i, iteratively: only its
// validity matters to the caller.
func jsonComposite(s string, i int) (int, bool) {
	var open []byte // the closing bracket of each level
	var ok bool
	for {
		// At a value.
		i = jsonSpace(s, i)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case '{', '[':
			if len(open) == jsonMaxDepth {
				return i, false
			}
			close := byte(']')
			if s[i] == '{' {
				close = '}'
			}
			open = append(open, close)
			i = jsonSpace(s, i+1)
			if i < len(s) && s[i] == close {
				open = open[:len(open)-1]
				i++
				break
			}
			if close == '}' {
				if i, ok = jsonKey(s, i); !ok {
					return i, false
				}
			}
			continue
		case '"':
			if _, i, ok = jsonString(s, i); !ok {
				return i, false
			}
		default:
			if i, ok = jsonScalar(s, i); !ok {
				return i, false
			}
		}
		// After a value: a comma, or the end of levels.
		for {
			if len(open) == 0 {
				return i, true
			}
			i = jsonSpace(s, i)
			if i >= len(s) {
				return i, false
			}
			close := open[len(open)-1]
			if s[i] == close {
				open = open[:len(open)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return i, false
			}
			i = jsonSpace(s, i+1)
			if close == '}' {
				if i, ok = jsonKey(s, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// jsonKey reads an object's "key": at i.
func jsonKey(s string, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return i, false
	}
	_, i, ok := jsonString(s, i)
	if !ok {
		return i, false
	}
	i = jsonSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// jsonString reads the string at i (at its "): its value and the index
// past its closing quote.
func jsonString(s string, i int) (string, int, bool) {
	var b strings.Builder
	i++
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c < 0x20:
			return "", i, false
		case c == '\\':
			if i+1 >= len(s) {
				return "", i, false
			}
			i++
			switch s[i] {
			case '"', '\\', '/':
				b.WriteByte(s[i])
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := jsonHex4(s, i+1)
				if !ok {
					return "", i, false
				}
				i += 4
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
						r2, ok2 = jsonHex4(s, i+3)
					}
					if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b.WriteRune(r)
			default:
				return "", i, false
			}
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r)
			i += n
		}
	}
	return "", i, false
}

func jsonHex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
