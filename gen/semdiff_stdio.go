package gen

import (
	"fmt"
	"slices"
)

// stdioDiff compares the stdio sections by what they decide, kind by kind
// and stream by stream: passing more directly (none, then copy, then
// as-is) widens what the command reaches of the caller's descriptors.
func stdioDiff(o, n *Common) []string {
	var out []string
	decide := func(c *Common) map[[2]string]StdioEntry {
		m := map[[2]string]StdioEntry{}
		for _, e := range c.Stdio {
			for _, s := range e.Streams {
				m[[2]string{s, e.Kind}] = e
			}
		}
		return m
	}
	od, nd := decide(o), decide(n)
	for _, k := range stdioKinds {
		for _, s := range stdioStreams {
			a, aok := od[[2]string{s, k}]
			b, bok := nd[[2]string{s, k}]
			switch {
			case aok && bok && a.Pass == b.Pass:
				continue
			case !aok && !bok:
				continue
			}
			// Undecided is only possible for a table without the section,
			// whose streams get nothing: none.
			from, to, ap, bp := "none (undecided)", "none (undecided)", "none", "none"
			if aok {
				from, ap = a.Pass+" ("+a.ID+")", a.Pass
			}
			if bok {
				to, bp = b.Pass+" ("+b.ID+")", b.Pass
			}
			i, j := slices.Index(stdioPasses, ap), slices.Index(stdioPasses, bp)
			r := reach{wider: j > i, narrower: j < i}
			if i < 0 || j < 0 {
				r = reach{unknown: true}
			}
			out = append(out, fmt.Sprintf("common: stdio %s on %s: %s -> %s (%s)", k, s, from, to, r))
		}
	}
	return out
}
