// Package pathsyntax is the one definition of a path sandtable accepts: the
// generator checks the rule table's constant paths with it, and the sandbox
// every path of a Config. It imports nothing beyond the standard library.
//
// A path is accepted when it is absolute, clean by [path.Clean] (no "..",
// no "//", no trailing "/"), valid UTF-8, and free of NUL, '"', '\' and
// control characters ([IsControl]: C0, DEL and C1). The builders paste
// paths into bwrap's argv and into SBPL string literals without escaping, so
// whatever could end a literal, smuggle an option or give one path two
// spellings is refused rather than repaired.
package pathsyntax

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Problem is what is wrong with a path, or [OK].
type Problem uint8

// The problems, in the order [Check] reports them: the first that applies.
const (
	OK Problem = iota
	Empty
	NotUTF8
	NUL
	Quote
	Backslash
	Control
	NotAbsolute
	NotClean
)

var problems = [...]string{
	OK:          "ok",
	Empty:       "empty",
	NotUTF8:     "not valid UTF-8",
	NUL:         "contains a NUL byte",
	Quote:       "contains a double quote",
	Backslash:   "contains a backslash",
	Control:     "contains a control character",
	NotAbsolute: "not absolute",
	NotClean:    "not clean",
}

// String is the problem in a few lower-case words.
func (p Problem) String() string {
	if int(p) < len(problems) {
		return problems[p]
	}
	return "unknown problem"
}

// Check returns the first problem of p, or [OK].
func Check(p string) Problem {
	switch {
	case p == "":
		return Empty
	case !utf8.ValidString(p):
		return NotUTF8
	case strings.IndexByte(p, 0) >= 0:
		return NUL
	case strings.IndexByte(p, '"') >= 0:
		return Quote
	case strings.IndexByte(p, '\\') >= 0:
		return Backslash
	case strings.ContainsFunc(p, IsControl):
		return Control
	case p[0] != '/':
		return NotAbsolute
	case Clean(p) != p:
		return NotClean
	}
	return OK
}

// IsControl reports whether r is a control character a path may not hold:
// C0 (below U+0020), DEL (U+007F) and C1 (U+0080 to U+009F), as
// [unicode.IsControl] defines them.
func IsControl(r rune) bool { return unicode.IsControl(r) }

// Clean is [path.Clean]: paths here are Unix paths on every GOOS, since a
// build for any system renders the Linux and macOS profiles.
func Clean(p string) string { return path.Clean(p) }
