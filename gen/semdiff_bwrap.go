package gen

import (
	"strings"
)

// flagPolarity says which way one bwrap flag moves the sandbox, as its
// vocabulary row says; a flag outside the vocabulary is mixed.
func flagPolarity(r *Rule, flag string, ops []string) polarity {
	spec := bwrapFlags[flag]
	switch {
	case spec.polOf != nil:
		return spec.polOf(r, ops)
	case spec.pol == polUnset:
		return mixed
	}
	return spec.pol
}

// argvPolarity combines the polarities of a rule's flags.
func argvPolarity(r *Rule) polarity {
	p := neutral
	for _, f := range flagUses(r.Args) {
		p = combine(p, flagPolarity(r, f.flag, f.ops))
	}
	return p
}

// flagUse is one bwrap flag with its operands.
type flagUse struct {
	flag string
	ops  []string
}

func (f flagUse) String() string { return strings.Join(append([]string{f.flag}, f.ops...), " ") }

func flagUses(args []string) []flagUse {
	var out []flagUse
	for i := 0; i < len(args); {
		n := bwrapFlags[args[i]].operands
		if i+1+n > len(args) {
			n = len(args) - i - 1
		}
		out = append(out, flagUse{args[i], args[i+1 : i+1+n]})
		i += 1 + n
	}
	return out
}

// argsReach compares two argvs flag by flag. With the same flags, a path
// operand that moved up the tree reaches more; otherwise each flag added
// or removed counts by its polarity.
func argsReach(o, n *Rule) reach {
	of, nf := flagUses(o.Args), flagUses(n.Args)
	sameFlags := len(of) == len(nf)
	for i := 0; sameFlags && i < len(of); i++ {
		sameFamily := of[i].flag == nf[i].flag || (bwrapFlags[of[i].flag].level > 0 && bwrapFlags[nf[i].flag].level > 0)
		sameFlags = sameFamily && len(of[i].ops) == len(nf[i].ops)
	}
	var r reach
	if sameFlags {
		for i := range nf {
			var d reach
			if ol, nl := bwrapFlags[of[i].flag].level, bwrapFlags[nf[i].flag].level; ol != nl {
				d = reach{wider: nl > ol, narrower: nl < ol}
			}
			for k, op := range nf[i].ops {
				old := of[i].ops[k]
				switch {
				case old == op:
				case strings.HasPrefix(old, "/") && strings.HasPrefix(op, "/"):
					d = d.or(reach{wider: !contains(old, op), narrower: !contains(op, old)})
				case bwrapFlags[nf[i].flag].caps:
					d = d.or(reach{wider: !capContains(old, op), narrower: !capContains(op, old)})
				default:
					d.unknown = true
				}
			}
			if d.unknown {
				r.unknown = true
				continue
			}
			if bwrapFlags[of[i].flag].level != bwrapFlags[nf[i].flag].level {
				r = r.or(d) // a bind's level decides, whatever it covers
				continue
			}
			r = r.or(flagPolarity(n, nf[i].flag, nf[i].ops).apply(d))
		}
		return r
	}
	count := func(fs []flagUse, f flagUse) int {
		c := 0
		for _, g := range fs {
			if g.String() == f.String() {
				c++
			}
		}
		return c
	}
	for _, f := range nf {
		if count(nf, f) > count(of, f) {
			r = r.or(flagPolarity(n, f.flag, f.ops).apply(reach{wider: true}))
		}
	}
	for _, f := range of {
		if count(of, f) > count(nf, f) {
			r = r.or(flagPolarity(o, f.flag, f.ops).apply(reach{narrower: true}))
		}
	}
	return r
}

// capContains reports whether capability operand a covers b: ALL covers
// every capability.
func capContains(a, b string) bool { return a == b || strings.EqualFold(a, "ALL") }
