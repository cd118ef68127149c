package gen

import (
	"fmt"
	"strings"
)

// starProblem says what is wrong with the stars of a default-hidden path,
// or "": a * stands for one whole component of a $home/REL row (the names
// in one directory, read at spawn time), at most once, and not as the last
// component, so each match is a file or directory the row names below it.
func starProblem(value string) string {
	if !strings.Contains(value, "*") {
		return ""
	}
	rel, home := strings.CutPrefix(value, varHome+"/")
	if !home {
		return fmt.Sprintf("has a * outside a %s row (want * only in %s/REL)", varHome, varHome)
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
