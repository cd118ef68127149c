package sandbox

import (
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pathError is every rejected path. It names the Config field and quotes the
// path so the caller can find it, and unwraps to ErrBadPath (and to the
// underlying file system error, if any, such as fs.ErrNotExist).
type pathError struct {
	field   string // "workspace", "hidden path", ...
	path    string
	problem string
	err     error
}

func (e *pathError) Error() string {
	return "sandbox: " + e.field + " " + strconv.Quote(e.path) + ": " + e.problem
}

func (e *pathError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrBadPath}
	}
	return []error{ErrBadPath, e.err}
}

func badPath(field, path, problem string) error {
	return &pathError{field: field, path: path, problem: problem}
}

// checkPath is the syntax check every path passes before it reaches a
// builder. The builders paste paths into bwrap argv and into SBPL string
// literals without escaping, so anything that could end a literal, smuggle an
// option, or make two spellings of one path compare unequal is rejected here
// instead of being repaired: repairing would mean the sandbox enforces
// something other than what the caller wrote.
func checkPath(field, p string) error {
	switch {
	case p == "":
		return badPath(field, p, "empty")
	case !utf8.ValidString(p):
		return badPath(field, p, "not valid UTF-8")
	case strings.IndexByte(p, 0) >= 0:
		return badPath(field, p, "contains a NUL byte")
	case strings.IndexByte(p, '"') >= 0:
		return badPath(field, p, "contains a double quote")
	case strings.IndexByte(p, '\\') >= 0:
		return badPath(field, p, "contains a backslash")
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return badPath(field, p, "contains a control character")
	case p[0] != '/':
		return badPath(field, p, "not absolute")
	}
	// path.Clean, not filepath.Clean: these are Unix paths on every GOOS
	// (a Windows build still renders Linux and macOS profiles).
	if c := path.Clean(p); c != p {
		return badPath(field, p, "not clean (want "+strconv.Quote(c)+")")
	}
	return nil
}
