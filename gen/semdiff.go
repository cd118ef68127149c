package gen

import (
	"fmt"
	"slices"
	"strings"
)

// SemDiff lists what changed between two rule tables in the terms a
// reviewer signs off on: rules added, removed or moved, and each changed
// condition or grant, with whether it widens or narrows what the sandboxed
// process may do. A text diff of the YAML shows the same edit but leaves
// the reader to work out that a removed filter on a deny is a widening.
// Why texts are not compared: they change no behaviour.
func SemDiff(old, new *Table) []string {
	var out []string
	out = append(out, platformDiff("linux", old.Linux, new.Linux)...)
	out = append(out, seccompDiff(old.Linux, new.Linux)...)
	out = append(out, limitsDiff(old.Linux, new.Linux)...)
	out = append(out, watchDiff(old.Linux, new.Linux)...)
	out = append(out, diagnoseDiff(old.Linux, new.Linux)...)
	out = append(out, landlockDiff(old.Linux, new.Linux)...)
	out = append(out, platformDiff("darwin", old.Darwin, new.Darwin)...)
	out = append(out, commonDiff(&old.Common, &new.Common)...)
	out = append(out, backendDiff(&old.Common, &new.Common)...)
	return append(out, stdioDiff(&old.Common, &new.Common)...)
}

// reach is how a change moves what the sandboxed process may do. unknown
// is set when a rule both grants and restricts, so no direction is certain.
type reach struct{ wider, narrower, unknown bool }

func (r reach) or(s reach) reach {
	return reach{r.wider || s.wider, r.narrower || s.narrower, r.unknown || s.unknown}
}

// flip turns a change to a restriction into its effect on the process: a
// deny that covers more narrows what it may do.
func (r reach) flip() reach { return reach{wider: r.narrower, narrower: r.wider, unknown: r.unknown} }

func (r reach) String() string {
	switch {
	case r.wider && r.narrower:
		return "widened and narrowed"
	case r.wider:
		return "widened"
	case r.unknown:
		return "effect unclear"
	case r.narrower:
		return "narrowed"
	}
	return "same reach"
}

// polarity is whether a rule grants the process something or takes it away.
type polarity uint8

const (
	polUnset polarity = iota // a vocabulary row that does not say
	neutral                  // grants and restricts nothing, such as -- or (version 1)
	grant                    // allow, --bind, --share-net
	restrict                 // deny, --tmpfs over a hidden path, --cap-drop
	mixed                    // both, or it depends on what lies under it
)

func (p polarity) apply(r reach) reach {
	switch p {
	case grant:
		return r
	case restrict:
		return r.flip()
	case mixed:
		if r != (reach{}) {
			return reach{unknown: true}
		}
	}
	return reach{}
}

func combine(a, b polarity) polarity {
	switch {
	case a == neutral:
		return b
	case b == neutral || a == b:
		return a
	}
	return mixed
}

func rulePolarity(platform string, r *Rule) polarity {
	if platform == "darwin" {
		return sbplPolarity(r)
	}
	return argvPolarity(r)
}

// contains reports whether path a reaches at least everything path b does:
// equal, or b below a. Paths under different variables are unrelated.
func contains(a, b string) bool {
	va, ra := splitVar(a)
	vb, rb := splitVar(b)
	return va == vb && under(rb, ra)
}

// splitVar splits "$home/.ssh" into "$home" and "/.ssh"; a constant path
// has no variable.
func splitVar(p string) (string, string) {
	if !strings.HasPrefix(p, "$") {
		return "", p
	}
	v, rest, _ := strings.Cut(p, "/")
	return v, "/" + rest
}

// coverage compares two sets by a containment relation: the new set is
// wider if it holds something no old element contains, narrower if the old
// set holds something no new element contains.
func coverage[T any](old, new []T, in func(a, b T) bool) reach {
	missing := func(from, to []T) bool {
		for _, x := range from {
			if !slices.ContainsFunc(to, func(y T) bool { return in(y, x) }) {
				return true
			}
		}
		return false
	}
	return reach{wider: missing(new, old), narrower: missing(old, new)}
}

// condSet is a rule's condition as a set: the order of `when` words does
// not change when the rule applies.
func condSet(r *Rule) []string {
	var s []string
	for _, c := range r.When {
		if !slices.Contains(s, c.String()) {
			s = append(s, c.String())
		}
	}
	slices.Sort(s)
	return s
}

func whenText(r *Rule) string {
	if len(r.When) == 0 {
		return "always"
	}
	return fmt.Sprintf("%q", r.WhenString())
}

func textOr(s, none string) string {
	if s == "" {
		return none
	}
	return fmt.Sprintf("%q", s)
}

// describe is a rule's output as the diff quotes it.
func describe(platform string, r *Rule) string {
	var parts []string
	if r.For != "" {
		parts = append(parts, "for "+r.For)
	}
	if len(r.When) > 0 {
		parts = append(parts, "when "+whenText(r))
	}
	parts = append(parts, Emits(platform, r))
	return strings.Join(parts, ", ")
}

func platformDiff(name string, old, new *Platform) []string {
	if old == nil {
		old = &Platform{}
	}
	if new == nil {
		new = &Platform{}
	}
	var out []string
	line := func(format string, args ...any) {
		out = append(out, name+": "+fmt.Sprintf(format, args...))
	}
	if old.Program != new.Program {
		line("program changed: %q -> %q", old.Program, new.Program)
	}
	oldAt, newAt := indexByID(old.Rules), indexByID(new.Rules)
	for i, r := range old.Rules {
		if _, ok := newAt[r.ID]; !ok {
			line("rule %q: removed (was %d): %s%s", r.ID, i+1, describe(name, r), label(rulePolarity(name, r), reach{narrower: true}))
		}
	}
	moved := movedIDs(old.Rules, new.Rules)
	for i, n := range new.Rules {
		j, ok := oldAt[n.ID]
		if !ok {
			line("rule %q: added at %d: %s%s", n.ID, i+1, describe(name, n), label(rulePolarity(name, n), reach{wider: true}))
			continue
		}
		o := old.Rules[j]
		if moved[n.ID] {
			effect := ""
			if name == "darwin" {
				effect = " (" + moveReach(old.Rules, new.Rules, n).String() + ")"
			}
			line("rule %q: moved from %d to %d, now after %s (was after %s)%s", n.ID, j+1, i+1, prevID(new.Rules, i), prevID(old.Rules, j), effect)
		}
		for _, c := range ruleDiff(name, o, n) {
			line("rule %q: %s", n.ID, c)
		}
	}
	return out
}

// label is the effect of adding or removing a rule, for the line's end.
func label(p polarity, r reach) string {
	if p == neutral {
		return ""
	}
	return " (" + p.apply(r).String() + ")"
}

func indexByID(rs []*Rule) map[string]int {
	m := make(map[string]int, len(rs))
	for i, r := range rs {
		m[r.ID] = i
	}
	return m
}

func prevID(rs []*Rule, i int) string {
	if i == 0 {
		return "the start"
	}
	return fmt.Sprintf("%q", rs[i-1].ID)
}

// movedIDs finds the rules present in both tables that left the longest
// common order, so one rule moved reads as one move, not as every rule
// between its two places shifting.
func movedIDs(old, new []*Rule) map[string]bool {
	inNew, inOld := indexByID(new), indexByID(old)
	var a, b []string
	for _, r := range old {
		if _, ok := inNew[r.ID]; ok {
			a = append(a, r.ID)
		}
	}
	for _, r := range new {
		if _, ok := inOld[r.ID]; ok {
			b = append(b, r.ID)
		}
	}
	lcs := lcsTable(a, b)
	keep := map[string]bool{}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			keep[a[i]] = true
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	moved := map[string]bool{}
	for _, id := range b {
		if !keep[id] {
			moved[id] = true
		}
	}
	return moved
}

// ruleDiff compares one rule's two versions, field by field.
func ruleDiff(platform string, o, n *Rule) []string {
	var out []string
	pol := rulePolarity(platform, n)
	if !slices.Equal(condSet(o), condSet(n)) {
		// More conditions, all of them required, apply the rule less often.
		r := coverage(condSet(n), condSet(o), func(a, b string) bool { return a == b })
		out = append(out, fmt.Sprintf("condition changed: %s -> %s (%s)", whenText(o), whenText(n), pol.apply(r)))
	}
	if o.For != n.For {
		out = append(out, fmt.Sprintf("iteration changed: %s -> %s", textOr(o.For, "none"), textOr(n.For, "none")))
	}
	if o.Group != n.Group {
		out = append(out, fmt.Sprintf("group changed: %s -> %s", textOr(o.Group, "none"), textOr(n.Group, "none")))
	}
	if !slices.Equal(o.Args, n.Args) {
		r := darwinArgsReach(o, n)
		if platform == "linux" {
			r = argsReach(o, n)
		}
		out = append(out, fmt.Sprintf("args changed: %q -> %q (%s)", strings.Join(o.Args, " "), strings.Join(n.Args, " "), r))
	}
	if platform == "darwin" {
		out = append(out, sbplDiff(o, n)...)
	}
	if o.Reviewed != n.Reviewed {
		out = append(out, fmt.Sprintf("reviewed changed: %s -> %s", textOr(o.Reviewed, "none"), textOr(n.Reviewed, "none")))
	}
	return out
}

// setDiff lists what left (-) and what came (+), or that only the order
// changed.
func setDiff[T comparable](old, new []T, show func(T) string) string {
	var parts []string
	for _, x := range old {
		if !slices.Contains(new, x) {
			parts = append(parts, "-"+show(x))
		}
	}
	for _, x := range new {
		if !slices.Contains(old, x) {
			parts = append(parts, "+"+show(x))
		}
	}
	if len(parts) == 0 {
		return "reordered"
	}
	return strings.Join(parts, " ")
}

func commonDiff(o, n *Common) []string {
	var out []string
	line := func(format string, args ...any) {
		out = append(out, "common: "+fmt.Sprintf(format, args...))
	}
	if o.Policy.Variable != n.Policy.Variable {
		line("policy variable changed: %q -> %q", o.Policy.Variable, n.Policy.Variable)
	}
	if o.Policy.Default != n.Policy.Default {
		line("policy default changed: %q -> %q", o.Policy.Default, n.Policy.Default)
	}
	values := func(es []Entry) []string {
		var s []string
		for _, e := range es {
			s = append(s, e.Value)
		}
		return s
	}
	for _, v := range values(o.Policy.Values) {
		if !slices.Contains(values(n.Policy.Values), v) {
			line("policy value %q removed", v)
		}
	}
	for _, v := range values(n.Policy.Values) {
		if !slices.Contains(values(o.Policy.Values), v) {
			line("policy value %q added", v)
		}
	}
	// Stripping a variable or hiding a path takes something from the
	// process, so an added entry narrows and a removed one widens. A
	// renamed variable does both: the old name reaches the process again.
	entryDiff(line, "strip-env", o.StripEnv, n.StripEnv, stripEnvReach)
	keepEnvDiff(line, o.KeepEnv, n.KeepEnv)
	envValuesDiff(line, o.StripEnvValues, n.StripEnvValues)
	entryDiff(line, "default-hidden", o.DefaultHidden, n.DefaultHidden, func(a, b string) reach {
		return reach{wider: !contains(a, b), narrower: !contains(b, a)}.flip()
	})
	entryDiff(line, "protect", protectEntries(o.Protect), protectEntries(n.Protect), protectChange)
	cachesDiff(line, o.Caches, n.Caches)
	redactDiff(line, o.Redact, n.Redact)
	offlineDiff(line, o.Offline, n.Offline)
	proxyRefuseDiff(line, o.ProxyRefuse, n.ProxyRefuse)
	refuseDiff(line, o.Refuse, n.Refuse)
	netDefaultDiff(line, o.NetDefault, n.NetDefault)
	proxyAuthDiff(line, o.ProxyAuth, n.ProxyAuth)
	gitSearchDiff(line, o.GitSearch, n.GitSearch)
	return out
}

func entryDiff(line func(string, ...any), what string, old, new []Entry, changed func(a, b string) reach) {
	rowDiff(line, what, old, new, func(e Entry) string { return e.ID }, func(e Entry) string { return e.Value },
		reach{wider: true}, reach{narrower: true}, func(o, n Entry) reach { return changed(o.Value, n.Value) })
}

// rowDiff reports a section's rows by id: each removed, added, or changed
// as show spells it, with the reach the section gives that change.
func rowDiff[T any](line func(string, ...any), what string, old, new []T, id, show func(T) string, removed, added reach, changed func(o, n T) reach) {
	oldByID := make(map[string]T, len(old))
	for _, e := range old {
		oldByID[id(e)] = e
	}
	newByID := make(map[string]T, len(new))
	for _, e := range new {
		newByID[id(e)] = e
	}
	for _, e := range old {
		if _, ok := newByID[id(e)]; !ok {
			line("%s %q: removed: %s (%s)", what, id(e), show(e), removed)
		}
	}
	for _, e := range new {
		o, ok := oldByID[id(e)]
		switch {
		case !ok:
			line("%s %q: added: %s (%s)", what, id(e), show(e), added)
		case show(o) != show(e):
			line("%s %q: changed: %s -> %s (%s)", what, id(e), show(o), show(e), changed(o, e))
		}
	}
}

// seccompDiff compares the seccomp sections: what the filter refuses is
// taken from the process, so an added entry narrows and a removed one
// widens, like a stripped variable.
func seccompDiff(o, n *Platform) []string {
	var out []string
	line := func(format string, args ...any) {
		out = append(out, "linux: "+fmt.Sprintf(format, args...))
	}
	entries := func(p *Platform) []Entry {
		if p == nil {
			return nil
		}
		var es []Entry
		for _, e := range p.Seccomp {
			es = append(es, Entry{Pos: e.Pos, ID: e.ID, Value: e.What() + ", " + e.ErrnoName(), Why: e.Why})
		}
		return es
	}
	// Another errno refuses the same thing: only how the program is told
	// changes.
	entryDiff(line, "seccomp", entries(o), entries(n), func(a, b string) reach {
		a, b = a[:strings.LastIndex(a, ", ")], b[:strings.LastIndex(b, ", ")]
		if a == b {
			return reach{}
		}
		if r, ok := familiesReach(a, b); ok {
			return r
		}
		return reach{wider: true, narrower: true}
	})
	return out
}
