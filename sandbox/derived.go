package sandbox

import (
	"strconv"
	"strings"
)

// derivedPath is one path of a default-hidden row derived from an
// environment variable ($env:NAME/REL in the table): the variable's value,
// or one entry of it for a list, cleaned, with the row's suffix.
type derivedPath struct {
	row      int    // index in defaultHidden
	label    string // `$env:NAME="VALUE"`, the value quoted, for errors
	path     string
	revealed bool
}

// derivedHidden expands the derived rows from lookup (this process's
// environment), giving the refuse stage each value. An unset or empty
// variable, or an empty list entry, names nothing. A value that is not
// absolute names a place relative to whichever directory the reader runs
// in, which the sandbox cannot know, and one with .. a place a symlink
// decides: such a value names no path here, and row no-unclean-derived
// refuses it. Trailing slashes, // and . are cleaned.
func derivedHidden(res *resolved, lookup func(string) (string, bool)) ([]derivedPath, error) {
	var out []derivedPath
	for i, d := range defaultHidden {
		if d.env == "" {
			continue
		}
		v, ok := lookup(d.env)
		if !ok || v == "" {
			continue
		}
		values := []string{v}
		if d.list {
			values = strings.Split(v, ":")
		}
		for _, value := range values {
			if value == "" {
				continue
			}
			// The value is the environment's: quoted wherever it is
			// shown, so its control characters (a terminal's escapes)
			// reach no error message as they are.
			label := "$env:" + d.env + "=" + strconv.Quote(value)
			field := "default hidden path $env:" + d.env
			p, problem := cleanEnvPath(value)
			if problem != "" {
				res.input(refuseSubject{in: refuseDerivedHidden, field: field, path: value, envValue: value})
				continue // names no one place
			}
			if d.path != "" {
				p = strings.TrimSuffix(p, "/") + "/" + d.path
			}
			res.input(refuseSubject{in: refuseDerivedHidden, field: field, path: value, as: p, spelled: true, envValue: value})
			if err := checkPath("default hidden path "+label, p); err != nil {
				return nil, err
			}
			out = append(out, derivedPath{row: i, label: label, path: p})
		}
	}
	return out, nil
}

// cleanEnvPath cleans an environment variable's path the way the kernel
// reads it: empty and . components dropped, .. refused.
func cleanEnvPath(v string) (string, string) {
	if !strings.HasPrefix(v, "/") {
		return "", "is not absolute, so what it names depends on the reader's directory " +
			"(want an absolute path, or the variable unset)"
	}
	if isCleanAbs(v) {
		return v, "" // no allocation
	}
	var b strings.Builder
	for _, c := range strings.Split(v, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			return "", "has a .. component, whose meaning a symlink decides (want a clean absolute path)"
		}
		b.WriteString("/")
		b.WriteString(c)
	}
	if b.Len() == 0 {
		return "/", ""
	}
	return b.String(), ""
}

// derivedFacts adds the derived paths that are not revealed to the hidden
// set, with the checks every hidden path gets: a path through a link the
// sandbox could re-point, an unreadable place the sandbox could open, or
// a file with a second name is refused; a missing one is kept as missing
// (the Linux rules skip it); the workspace itself is left, as for the
// other defaults.
func derivedFacts(res *resolved, derived []derivedPath, ws string, add func(pathFact)) error {
	r := res.r
	derived, err := expandDerivedStars(r, derived)
	if err != nil {
		return err
	}
	for _, d := range derived {
		if d.revealed {
			continue
		}
		field := "default hidden path " + d.label
		real, fi, err := r.resolve(d.path)
		s := refuseSubject{in: refuseDerivedHidden, field: field, path: d.path, real: real, err: err, via: viaOf(r)}
		if err == nil {
			s.fi, s.resolved = fi, true
		}
		res.input(s)
		if err != nil {
			if !isMissing(err) {
				res.fail(fsPathError(field, d.path, err))
				continue
			}
			if checkResolved(field, d.path, real) == nil {
				add(ruled(fact(real, kindMissing, ws), defaultHidden[d.row].id))
			}
			continue
		}
		if real == ws {
			continue
		}
		if err := checkResolved(field, d.path, real); err != nil {
			return err
		}
		add(ruled(fact(real, kindOf(fi), ws), defaultHidden[d.row].id))
	}
	return nil
}

// isCleanAbs reports whether the absolute path v has no empty, . or ..
// component and no trailing slash.
func isCleanAbs(v string) bool {
	if v == "/" {
		return true
	}
	for rest := v[1:]; ; {
		c, more, found := strings.Cut(rest, "/")
		if c == "" || c == "." || c == ".." {
			return false
		}
		if !found {
			return true
		}
		rest = more
	}
}
