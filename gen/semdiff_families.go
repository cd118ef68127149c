package gen

import (
	"slices"
	"strings"
)

// familiesReach compares two keep-families entries as What renders them:
// a family kept now that was not widens, one no longer kept narrows. ok is
// false unless both are keep-families entries.
func familiesReach(a, b string) (r reach, ok bool) {
	oldRest, ok1 := strings.CutPrefix(a, familiesPrefix)
	newRest, ok2 := strings.CutPrefix(b, familiesPrefix)
	if !ok1 || !ok2 {
		return reach{}, false
	}
	old, cur := strings.Fields(oldRest), strings.Fields(newRest)
	for _, f := range cur {
		r.wider = r.wider || !slices.Contains(old, f)
	}
	for _, f := range old {
		r.narrower = r.narrower || !slices.Contains(cur, f)
	}
	return r, true
}
