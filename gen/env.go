package gen

import (
	"fmt"
	"strings"
)

// The environment section's names. A strip-env name is exact, or a
// pattern with one * at the start, the end or both: PREFIX*, *SUFFIX,
// *PART*. Nothing else: the runtime tests each with one strings call, in
// straight-line code, and a reviewer reads each at a glance.

// envKind is how a strip-env name matches.
type envKind uint8

const (
	envExact envKind = iota
	envPrefix
	envSuffix
	envContains
)

// envPattern is a parsed strip-env or keep-env name.
type envPattern struct {
	kind envKind
	lit  string
}

// parseEnvPattern reads a name of the table. problem is "" for a valid
// one, else what is wrong with it, ending in "(want ...)".
func parseEnvPattern(s string) (p envPattern, problem string) {
	lit := s
	switch {
	case strings.HasPrefix(s, "*") && strings.HasSuffix(s, "*") && len(s) > 1:
		p.kind, lit = envContains, s[1:len(s)-1]
	case strings.HasPrefix(s, "*"):
		p.kind, lit = envSuffix, s[1:]
	case strings.HasSuffix(s, "*"):
		p.kind, lit = envPrefix, s[:len(s)-1]
	}
	p.lit = lit
	switch {
	case lit == "":
		return p, "matches every name (want NAME, PREFIX*, *SUFFIX or *PART* with a non-empty literal)"
	case strings.Contains(lit, "*"):
		return p, "has a * inside it (want NAME, PREFIX*, *SUFFIX or *PART*)"
	}
	for _, c := range lit {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return p, fmt.Sprintf("has %q (want letters, digits and _ around the *)", c)
		}
	}
	if p.kind == envExact && lit[0] >= '0' && lit[0] <= '9' {
		return p, "starts with a digit (want a shell variable name)"
	}
	return p, ""
}

// match reports whether the pattern matches the variable name, exactly
// as the emitted code does.
func (p envPattern) match(name string) bool {
	switch p.kind {
	case envPrefix:
		return strings.HasPrefix(name, p.lit)
	case envSuffix:
		return strings.HasSuffix(name, p.lit)
	case envContains:
		return strings.Contains(name, p.lit)
	}
	return name == p.lit
}

// covers reports whether every name q matches, p matches too.
func (p envPattern) covers(q envPattern) bool {
	switch p.kind {
	case envExact:
		return q.kind == envExact && q.lit == p.lit
	case envContains:
		return strings.Contains(q.lit, p.lit)
	case envPrefix:
		return (q.kind == envExact || q.kind == envPrefix) && strings.HasPrefix(q.lit, p.lit)
	}
	return (q.kind == envExact || q.kind == envSuffix) && strings.HasSuffix(q.lit, p.lit)
}

// badEnvExample says what is wrong with a catches or spares example, or
// "": a name as the kernel could pass it, which is anything without = and
// NUL, here also without control characters.
func badEnvExample(s string) string {
	if s == "" {
		return "empty (want a variable name)"
	}
	for _, c := range s {
		if c == '=' || c < 0x20 || c == 0x7f {
			return fmt.Sprintf("has %q (want a name without =, NUL or control characters)", c)
		}
	}
	return ""
}

// parseDerived splits a default-hidden path derived from a variable,
// $env:NAME[/REL] or $env-list:NAME[/REL], into its parts; ok is false
// for any other path.
func parseDerived(value string) (env string, list bool, rel string, ok bool) {
	rest, ok := strings.CutPrefix(value, varEnvList)
	list = ok
	if !ok {
		if rest, ok = strings.CutPrefix(value, varEnv); !ok {
			return "", false, "", false
		}
	}
	env, rel, _ = strings.Cut(rest, "/")
	return env, list, rel, true
}

// derivedProblem says what is wrong with a derived default-hidden path, or
// "": NAME is a variable name, REL (optional) a clean relative path that
// stays below the variable's value.
func derivedProblem(value string) string {
	env, _, rel, _ := parseDerived(value)
	if p, problem := parseEnvPattern(env); problem != "" || p.kind != envExact {
		return fmt.Sprintf("%q is not a variable name (want %sNAME or %sNAME/REL)", env, varEnv, varEnv)
	}
	if rel == "" {
		if strings.HasSuffix(value, "/") {
			return fmt.Sprintf("not clean (want %q)", strings.TrimSuffix(value, "/"))
		}
		return ""
	}
	for _, c := range strings.Split(rel, "/") {
		if c == ".." || c == "." {
			return fmt.Sprintf("REL has %s (want a path below the variable's value)", c)
		}
	}
	return badPath("/" + rel)
}
