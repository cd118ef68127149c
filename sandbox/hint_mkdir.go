package sandbox

import "strings"

// missingGrantError is a write path that does not exist: bwrap cannot bind
// a missing source, and the error says the command that creates it.
func missingGrantError(field, p string, err error) error {
	return &pathError{field: field, path: p, problem: "does not exist (want it created first: mkdir -p " + shellWord(p) + ")", err: err}
}

// shellWord quotes p for a POSIX shell when it holds anything but the
// characters no shell reads specially.
func shellWord(p string) string {
	if p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%") == "" {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
