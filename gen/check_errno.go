package gen

import (
	"maps"
	"slices"
)

// checkErrno checks an entry's errno against the vocabulary and against
// the entry's kind.
func checkErrno(c *errs, e SeccompEntry) {
	if e.Errno == "" {
		return
	}
	v, ok := seccompErrnos[e.Errno]
	switch {
	case !ok:
		c.at(e.ErrnoPos, e.ID, "seccomp: errno %q is not one the filter returns (want one of %s)", e.Errno, words(slices.Sorted(maps.Keys(seccompErrnos))))
	case !slices.Contains(v.kinds, e.Kind()):
		var fit []string
		for _, name := range slices.Sorted(maps.Keys(seccompErrnos)) {
			if slices.Contains(seccompErrnos[name].kinds, e.Kind()) {
				fit = append(fit, name)
			}
		}
		c.at(e.ErrnoPos, e.ID, "seccomp: errno %s %s, but the entry refuses %s (want %s)", e.Errno, v.means, errnoMeaning(e), words(fit))
	}
}

// errnoMeaning says what an entry refuses, for an errno that misleads.
func errnoMeaning(e SeccompEntry) string {
	switch e.Kind() {
	case "ioctl":
		return "one request of a call that exists"
	case "setid-mode":
		return "one mode of a call that exists"
	case "keep-families":
		return "address families"
	}
	return "a call"
}
