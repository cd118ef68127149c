package sandbox

import (
	"strconv"

	"github.com/sandtable/sandtable/internal/pathsyntax"
)

// pathError is every rejected path. It names the Config field and quotes the
// path so the caller can find it, and unwraps to ErrBadPath (and to the
// underlying file system error, if any, such as fs.ErrNotExist).
type pathError struct {
	field   string // "workspace", "hidden path", ...
	path    string
	problem string
	err     error
	rule    string // the refuse row that refused it, "" for a syntax error
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
// builder: [pathsyntax.Check], the generator's definition too. A path is
// rejected, never repaired: repairing would mean the sandbox enforces
// something other than what the caller wrote.
func checkPath(field, p string) error {
	switch pr := pathsyntax.Check(p); pr {
	case pathsyntax.OK:
		return nil
	case pathsyntax.NotClean:
		return badPath(field, p, "not clean (want "+strconv.Quote(pathsyntax.Clean(p))+")")
	default:
		return badPath(field, p, pr.String())
	}
}

// checkConfig is the validate stage: it rejects every malformed path
// before any of them is looked at, so the first error a caller sees is
// about syntax, not the file system. It is pure.
func checkConfig(cfg Config) error {
	if err := checkPath("workspace", cfg.Workspace); err != nil {
		return err
	}
	for _, group := range []struct {
		field string
		paths []string
	}{{"hidden path", cfg.Hidden}, {"read path", cfg.Read}, {"write path", cfg.Write}, {"reveal path", cfg.Reveal}, {"socket", cfg.Sockets}} {
		for _, p := range group.paths {
			if err := checkPath(group.field, p); err != nil {
				return err
			}
		}
	}
	if err := checkNetwork(cfg); err != nil {
		return err
	}
	if err := checkEnvConfig(cfg); err != nil {
		return err
	}
	return nil // Config.Policy: prefix resolved it before newPlan, refusing a bad one
}
