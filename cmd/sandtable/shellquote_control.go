package main

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// hasTerminalControl reports whether s holds a byte a terminal could act
// on: a C0 control, DEL, a C1 control (U+0080-U+009F, which some
// terminals read as ESC [), or bytes that are not UTF-8.
func hasTerminalControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return true
		}
	}
	return false
}

// ansiCQuote returns s as one $'...' word (bash, zsh, ksh, and POSIX sh
// since its 2024 edition), every control character and byte that is not
// UTF-8 as \xHH, the quote and backslash escaped.
func ansiCQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			for _, c := range []byte(s[i : i+n]) {
				b.WriteString(`\x`)
				if c < 0x10 {
					b.WriteByte('0')
				}
				b.WriteString(strconv.FormatUint(uint64(c), 16))
			}
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteString("'")
	return b.String()
}
