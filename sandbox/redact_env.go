package sandbox

import "strings"

// redactEnvPath is the file a redact row derived from a variable
// ($env:NAME[/REL]) names in lookup's environment, or "" when it names
// none: the variable unset or empty, or a value that is not a clean
// absolute path once cleaned (a relative one names a file relative to
// the reader's directory, in the sandbox the workspace, which the command
// reads anyway).
func redactEnvPath(rf redactFile, lookup func(string) (string, bool)) string {
	v, ok := lookup(rf.env)
	if !ok || v == "" {
		return ""
	}
	p, problem := cleanEnvPath(v)
	if problem != "" || p == "/" && rf.path == "" {
		return ""
	}
	if rf.path != "" {
		p = strings.TrimSuffix(p, "/") + "/" + rf.path
	}
	if checkPath("redacted path", p) != nil {
		return ""
	}
	return p
}
