package gen

import (
	"fmt"
	"strings"
)

// starProblem says what is wrong with the stars of a default-hidden path,
// or "": a * stands for one whole component of the REL of a $home/REL or
// $env:NAME/REL row (the names in one directory, read at spawn time), at
// most once, and not as the last component, so each match is a file or
// directory the row names below it.
func starProblem(value string) string {
	if !strings.Contains(value, "*") {
		return ""
	}
	rel, home := strings.CutPrefix(value, varHome+"/")
	if env, list, r, ok := parseDerived(value); ok && !list && env != "" {
		rel, home = r, true
	}
	if !home {
		return fmt.Sprintf("has a * outside a %s or %sNAME row (want * only in %s/REL or %sNAME/REL)", varHome, varEnv, varHome, varEnv)
	}
	comps := strings.Split(rel, "/")
	stars := 0
	for i, c := range comps {
		if !strings.Contains(c, "*") {
			continue
		}
		if c != "*" {
			return fmt.Sprintf("component %q has a * beside other characters (want * as one whole component)", c)
		}
		if i == len(comps)-1 {
			return fmt.Sprintf("ends in * (want a path below the * such as %s/DIR/*/FILE)", varHome)
		}
		if stars++; stars > 1 {
			return "has more than one * (want at most one)"
		}
	}
	return ""
}
