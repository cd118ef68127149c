package gen

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/sandtable/sandtable/internal/pathsyntax"
)

// Check validates every rule against the vocabularies and the order
// invariants (docs/rules.md, "Changing a rule"), reporting every problem at once.
func Check(t *Table) error {
	var c errs
	ids := map[string]Pos{}
	checkCommon(&c, &t.Common, ids)
	for _, p := range []*Platform{t.Linux, t.Darwin} {
		if p == nil {
			continue
		}
		platformIDs := map[string]Pos{}
		for _, r := range p.Rules {
			checkRule(&c, p.Name, r, platformIDs, ids)
		}
		if p.Name == "linux" {
			checkLinuxOrder(&c, p)
			checkSeccomp(&c, p, platformIDs, ids)
			checkRedactFD(&c, p)
			checkTarget(&c, p)
			checkLimits(&c, p, platformIDs, ids)
			checkWatch(&c, p, platformIDs, ids)
			checkDiagnose(&c, p, platformIDs, ids)
			checkLandlock(&c, p, &t.Common, platformIDs, ids)
			checkRemountOrder(&c, p)
		} else {
			checkDarwinOrder(&c, p)
			checkDarwinArgsOrder(&c, p)
		}
	}
	return c.err()
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// checkID enforces a unique kebab-case id. Linux and darwin rules that do
// the same thing share an id; nothing else may.
func checkID(c *errs, pos Pos, id string, local, global map[string]Pos) {
	if id == "" {
		return
	}
	if !kebab.MatchString(id) {
		c.at(pos, id, "id is not kebab-case (want lower-case words joined by -)")
	}
	if prev, dup := local[id]; dup {
		c.at(pos, id, "duplicate id (first at %s; want a unique id)", prev)
		return
	}
	local[id] = pos
	if global != nil {
		global[id] = pos
	}
}

func checkCommon(c *errs, cm *Common, ids map[string]Pos) {
	p := cm.Policy
	if p.Variable != "" && !envName.MatchString(p.Variable) {
		c.at(p.VariablePos, "", "policy.variable %q is not an environment variable name (want [A-Z_][A-Z0-9_]*)", p.Variable)
	}
	var names []string
	for _, v := range p.Values {
		if v.Value != strings.ToLower(v.Value) || v.Value == "" {
			want := "a lower-case name"
			if v.Value != "" {
				want = fmt.Sprintf("%q", strings.ToLower(v.Value))
			}
			c.at(v.Pos, "", "policy value %q is not lower-case (values are matched case-insensitively; want %s)", v.Value, want)
		}
		if slices.Contains(names, v.Value) {
			c.at(v.Pos, "", "duplicate policy value %q (want each value once)", v.Value)
		}
		names = append(names, v.Value)
		if strings.TrimSpace(v.Why) == "" {
			c.at(v.Pos, "", "policy value %q: missing why (want the reason a reviewer reads)", v.Value)
		}
	}
	if p.Default != "" && !slices.Contains(names, p.Default) {
		c.at(p.DefaultPos, "", "policy.default %q is not a declared value (want one of %s)", p.Default, strings.Join(names, ", "))
	}
	local := map[string]Pos{}
	checkEnv(c, cm, local, ids)
	checkEnvValues(c, cm, local, ids)
	checkStdio(c, cm, ids, local)
	checkProtect(c, cm.Protect, local, ids)
	for _, e := range cm.DefaultHidden {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		msg := badPath(e.Value)
		if msg == notAbsolute {
			msg = fmt.Sprintf("not absolute (want an absolute path, %s/REL or %sNAME/REL)", varHome, varEnv)
		}
		if rest, ok := strings.CutPrefix(e.Value, varHome+"/"); ok {
			msg = badPath("/" + rest)
			if clean := pathsyntax.Clean("/" + rest); clean != "/"+rest {
				msg = fmt.Sprintf("not clean (want %q)", varHome+clean)
			}
			if strings.HasPrefix(pathsyntax.Clean("/"+rest), "/..") || strings.Contains("/"+rest, "/../") {
				msg = fmt.Sprintf("leaves %s (want %s/REL without ..)", varHome, varHome)
			}
		} else if _, _, _, derived := parseDerived(e.Value); derived {
			msg = derivedProblem(e.Value)
		} else if strings.Contains(e.Value, "$") {
			msg = fmt.Sprintf("only %s/..., %sNAME and %sNAME may be used (want an absolute path, %s/REL or %sNAME/REL)", varHome, varEnv, varEnvList, varHome, varEnv)
		}
		if msg == "" {
			msg = starProblem(e.Value)
		}
		if msg != "" {
			c.at(e.Pos, e.ID, "path %q: %s", e.Value, msg)
		}
	}
	checkCaches(c, cm, local, ids)
	checkRedact(c, cm, local, ids)
	checkOffline(c, cm, local, ids)
	checkProxyRefuse(c, cm, local, ids)
	checkRefuse(c, cm, local, ids)
	checkNetDefault(c, cm, local, ids)
	checkProxyAuth(c, cm, local, ids)
	checkGitSearch(c, cm, local, ids)
	checkBackend(c, cm)
}

func checkWhy(c *errs, pos Pos, id, why string) {
	if strings.TrimSpace(why) == "" {
		c.at(pos, id, "missing why (want the reason a reviewer reads)")
	}
}

// notAbsolute is badPath's answer for a relative path.
const notAbsolute = "not absolute (want a path starting with /)"

// badPath says what is wrong with a constant path of the table, or "": the
// runtime's definition, [pathsyntax.Check], in the generator's words.
func badPath(p string) string {
	switch pathsyntax.Check(p) {
	case pathsyntax.OK:
		return ""
	case pathsyntax.NotUTF8:
		return "not valid UTF-8 (want a UTF-8 path)"
	case pathsyntax.Empty, pathsyntax.NotAbsolute:
		return notAbsolute
	case pathsyntax.NotClean:
		return fmt.Sprintf("not clean (want %q)", pathsyntax.Clean(p))
	case pathsyntax.Quote, pathsyntax.Backslash:
		return "contains a quote or backslash (want a path without \" or \\)"
	default:
		return "contains a control character (want printable characters only)"
	}
}

func checkRule(c *errs, platform string, r *Rule, local, global map[string]Pos) {
	checkID(c, r.Pos, r.ID, local, nil)
	if prev, ok := global[r.ID]; ok && r.ID != "" {
		c.at(r.Pos, r.ID, "id already names a shared entry at %s (want an id of its own)", prev)
	}
	checkWhy(c, r.Pos, r.ID, r.Why)
	if r.For != "" {
		if _, ok := iterations[r.For]; !ok {
			c.at(r.Pos, r.ID, "for: unknown iteration %q (want one of %s)", r.For, words(iterationNames()))
		}
	}
	if r.Group != "" && !slices.Contains(groups, r.Group) {
		c.at(r.Pos, r.ID, "group: unknown group %q (want one of %s)", r.Group, words(groups))
	}
	checkWhen(c, r)
	switch {
	case platform == "linux":
		checkArgs(c, r)
	case r.ArgsPos.Line != 0:
		checkDarwinArgs(c, r)
	default:
		checkSBPL(c, r)
	}
	checkReviewed(c, platform, r)
}

func iterationNames() []string { return slices.Sorted(maps.Keys(iterations)) }

func condNames() []string { return slices.Sorted(maps.Keys(conditions)) }

func sbplOpNames() []string { return slices.Sorted(maps.Keys(sbplOps)) }

func words(ws []string) string { return strings.Join(ws, ", ") }

func checkWhen(c *errs, r *Rule) {
	if r.WhenPos.Line != 0 && len(r.When) == 0 {
		c.at(r.WhenPos, r.ID, "when: empty condition is always true (want it omitted)")
		return
	}
	for _, w := range r.When {
		cond, ok := conditions[w.Word]
		if !ok {
			c.at(r.WhenPos, r.ID, "when: unknown condition %q (want one of %s)", w.Word, words(condNames()))
			return
		}
		if cond.scope == scopeItem && r.For == "" {
			c.at(r.WhenPos, r.ID, "when: %q is a fact of an iterated path (want it with for)", w.Word)
			return
		}
	}
	switch satisfiable(r) {
	case never:
		c.at(r.WhenPos, r.ID, "when: %q can never be true (want conditions that can hold together)", r.WhenString())
	case always:
		c.at(r.WhenPos, r.ID, "when: %q is always true (want it omitted)", r.WhenString())
	}
}

type truth uint8

const (
	sometimes truth = iota
	never
	always
)

// satisfiable decides a rule's `when` by trying every assignment of the
// facts it mentions, under the facts' own constraints: a path has exactly
// one kind, is not both an ancestor and inside, and read and write paths
// exist.
func satisfiable(r *Rule) truth {
	var mentioned []string
	for _, w := range r.When {
		if !slices.Contains(mentioned, w.Word) {
			mentioned = append(mentioned, w.Word)
		}
	}
	if len(mentioned) == 0 {
		return sometimes
	}
	it, known := iterations[r.For]
	trues, total := 0, 0
	for mask := 0; mask < 1<<len(mentioned); mask++ {
		val := map[string]bool{}
		kinds, places := 0, 0
		for i, w := range mentioned {
			val[w] = mask&(1<<i) != 0
			if val[w] && conditions[w].kind {
				kinds++
			}
			if val[w] && conditions[w].place {
				places++
			}
		}
		if kinds > 1 || places > 1 || (known && !it.canMissing && val["is-missing"]) {
			continue
		}
		if kinds == 0 && allKindsMentioned(mentioned, it.canMissing || !known) {
			continue
		}
		total++
		holds := true
		for _, w := range r.When {
			if val[w.Word] == w.Not {
				holds = false
			}
		}
		if holds {
			trues++
		}
	}
	switch {
	case trues == 0:
		return never
	case trues == total:
		return always
	}
	return sometimes
}

// allKindsMentioned reports whether every possible path kind is among the
// mentioned words, so that "none of them" is not a possible assignment.
func allKindsMentioned(mentioned []string, canMissing bool) bool {
	need := []string{"is-dir", "is-file"}
	if canMissing {
		need = append(need, "is-missing")
	}
	for _, k := range need {
		if !slices.Contains(mentioned, k) {
			return false
		}
	}
	return true
}

// checkArgs reads a bwrap rule's args as flags and their operands, against
// the flags bwrap 0.8.0 knows. Variables are whole operands, never spliced.
func checkArgs(c *errs, r *Rule) {
	if len(r.Args) == 0 {
		if r.ArgsPos.Line == 0 {
			c.at(r.Pos, r.ID, "missing args (want a bwrap flag and its operands)")
		} else {
			c.at(r.ArgsPos, r.ID, "args: empty (want a bwrap flag and its operands)")
		}
		return
	}
	for i := 0; i < len(r.Args); {
		flag := r.Args[i]
		spec, ok := bwrapFlags[flag]
		if !ok {
			c.at(r.ArgsPos, r.ID, "args: %q is not a bwrap 0.8 flag (want one of bwrap --help's options)", flag)
			return
		}
		if i+1+spec.operands > len(r.Args) {
			c.at(r.ArgsPos, r.ID, "args: %s takes %d operand(s) (got %d; want %d after it)", flag, spec.operands, len(r.Args)-i-1, spec.operands)
			return
		}
		checkSize(c, r, i)
		for k, op := range r.Args[i+1 : i+1+spec.operands] {
			checkOperand(c, r, op, linuxVars)
			switch fdOperand, fdVar := spec.fd && k == 0, slices.Contains(fdVars, op); {
			case fdOperand && !fdVar:
				c.at(r.ArgsPos, r.ID, "args: %s takes a descriptor number (want one of %s, got %q)", flag, words(fdVars), op)
			case !fdOperand && fdVar:
				c.at(r.ArgsPos, r.ID, "args: %s is a descriptor number, and %s takes none there (want a path or a constant there)", op, flag)
			}
			// bwrap takes "/../x" as a destination and hides nothing there.
			if spec.dest() && k == spec.operands-1 && !strings.Contains(op, "$") {
				if msg := badPath(op); msg != "" {
					c.at(r.ArgsPos, r.ID, "args: %s destination %q: %s", flag, op, msg)
				}
			}
		}
		if dst := r.Args[i+spec.operands]; spec.dest() && (dst == varWorkspace || dst == varPath) && r.Group != "mounts" && spec.mount != mountRemount {
			// Table order would let a hidden path inside the workspace be
			// mounted first and then covered by the workspace bind.
			c.at(r.ArgsPos, r.ID, "args: %s at %s outside group mounts is applied in table order, not parent before child (want group: mounts)", flag, dst)
		}
		i += 1 + spec.operands
	}
	if r.Group == "mounts" {
		j := mountFlagAt(r.Args)
		spec := bwrapFlags[r.Args[j]]
		last := r.Args[len(r.Args)-1]
		want := varWorkspace
		if r.For != "" {
			want = varPath
		}
		if !spec.dest() || 1+spec.operands != len(r.Args)-j || last != want {
			example := "[--bind, $workspace, $workspace]"
			if want == varPath {
				example = "[--tmpfs, $path]"
			}
			c.at(r.ArgsPos, r.ID, "group mounts: want one mount flag whose destination is %s (want args like %s)", want, example)
		}
	}
}

func checkOperand(c *errs, r *Rule, op string, vars []string) {
	checkOperandAt(c, r, r.ArgsPos, op, vars)
}

// checkOperandAt is checkOperand reporting at pos: a darwin rule has no
// args, and its filters are reported at its operations.
func checkOperandAt(c *errs, r *Rule, pos Pos, op string, vars []string) {
	if !strings.Contains(op, "$") {
		return
	}
	if !slices.Contains(vars, op) {
		c.at(pos, r.ID, "undeclared variable %q (want one of %s, as a whole operand)", op, words(vars))
		return
	}
	if (op == varPath || op == varFoldedPath) && r.For == "" {
		c.at(pos, r.ID, "%s needs for (want for: hidden, read or write)", op)
	}
	if want, ok := varCondition[op]; ok && !slices.Contains(r.When, Cond{Word: want}) && !placeholderOperand(r, op) {
		c.at(pos, r.ID, "%s is empty unless %s holds (want when: %s)", op, want, want)
	}
}

func checkSBPL(c *errs, r *Rule) {
	pos := r.OpsPos
	if pos.Line == 0 {
		pos = r.Pos
	}
	switch r.Action {
	case "":
		c.at(r.Pos, r.ID, "missing version, allow or deny (want one)")
	case "version":
		if r.Version != 1 {
			c.at(pos, r.ID, "version: got %d (want 1)", r.Version)
		}
		if len(r.Filters) > 0 || r.For != "" || len(r.When) > 0 {
			c.at(pos, r.ID, "version takes no filters, for or when (want none of them)")
		}
	default:
		if len(r.Ops) == 0 {
			c.at(pos, r.ID, "%s: no operations (want at least one)", r.Action)
		}
		for _, op := range r.Ops {
			if _, ok := sbplOps[op]; !ok {
				c.at(pos, r.ID, "%s: unknown SBPL operation %q (want one of %s)", r.Action, op, words(sbplOpNames()))
			}
		}
		checkFilters(c, r, pos)
	}
	if r.Group != "" {
		c.at(r.Pos, r.ID, "group: darwin rules are applied in table order (want no group)")
	}
}

// checkReviewed lints write grants: outside the workspace and the temporary
// directories, a grant needs a `reviewed` reason a reviewer signed off on.
func checkReviewed(c *errs, platform string, r *Rule) {
	if r.Reviewed != "" {
		return
	}
	var outside []string
	if platform == "linux" {
		for i := 0; i < len(r.Args); i++ {
			spec, ok := bwrapFlags[r.Args[i]]
			if !ok {
				return
			}
			if spec.hostWrite && i+1 < len(r.Args) {
				// Linux has no temporary directory to exempt: its /tmp is
				// the sandbox's own tmpfs, and a bind of a host one is a
				// host write like any other.
				if src := r.Args[i+1]; src != varWorkspace {
					outside = append(outside, src)
				}
			}
			i += spec.operands
		}
	} else if r.Action == "allow" && writes(r.Ops) {
		if len(r.Filters) == 0 {
			outside = append(outside, "every path: no filters")
		}
		for _, f := range r.Filters {
			switch {
			case !isPathFilter(f):
				outside = append(outside, filterKey(f))
			case f.Value != varWorkspace && f.Value != varTmpdir && !tempDirs[f.Value]:
				outside = append(outside, f.Value)
			}
		}
	}
	if len(outside) > 0 {
		want := "the source " + varWorkspace
		if platform != "linux" {
			want = "filters on " + varWorkspace + ", " + strings.Join(slices.Sorted(maps.Keys(tempDirs)), " or ")
		}
		c.at(r.Pos, r.ID, "write grant outside the workspace and temp dirs (%s) needs reviewed: \"reason\" (want reviewed: \"reason\", or %s only)", words(outside), want)
	}
}

// writes reports whether any operation lets the sandbox write a file.
func writes(ops []string) bool {
	for _, op := range ops {
		if sbplOps[op].writes {
			return true
		}
	}
	return false
}

// covers reports whether two SBPL operations can match the same access.
func covers(a, b string) bool {
	match := func(w, o string) bool {
		if p, ok := strings.CutSuffix(w, "*"); ok {
			return strings.HasPrefix(o, p)
		}
		return w == o
	}
	return match(a, b) || match(b, a)
}

func checkLinuxOrder(c *errs, p *Platform) {
	rs := p.Rules
	if len(rs) == 0 {
		return
	}
	first, last := rs[0], rs[len(rs)-1]
	if !slices.Equal(first.Args, []string{"--ro-bind", "/", "/"}) || first.For != "" || len(first.When) > 0 {
		c.at(first.Pos, first.ID, "the first linux rule must be an unconditional --ro-bind / / (want args: [--ro-bind, /, /] without when or for)")
	}
	if !slices.Equal(last.Args, []string{"--"}) || last.For != "" || len(last.When) > 0 {
		c.at(last.Pos, last.ID, "the last linux rule must be an unconditional -- (want args: [--] without when or for)")
	}
	for _, r := range rs[:len(rs)-1] {
		if slices.Contains(r.Args, "--") {
			c.at(r.ArgsPos, r.ID, "args: -- before the last rule would end bwrap's options early (want -- in the last rule only)")
		}
	}
	groupStart, groupEnd := -1, -1
	for i, r := range rs {
		if r.Group == "" {
			continue
		}
		if groupStart < 0 {
			groupStart = i
		} else if groupEnd != i-1 {
			c.at(r.Pos, r.ID, "group %s: its rules must be contiguous (the group starts at %s; want it right after %s)", r.Group, rs[groupStart].Pos, rs[groupEnd].Pos)
		}
		groupEnd = i
	}
	if groupStart < 0 {
		return
	}
	for _, r := range rs[groupEnd+1:] {
		for i := 0; i < len(r.Args); {
			spec, ok := bwrapFlags[r.Args[i]]
			if !ok {
				break
			}
			if spec.dest() && spec.mount != mountRemount {
				c.at(r.ArgsPos, r.ID, "args: %s after the %s group would cover the hidden paths under its destination (want it before %s)",
					r.Args[i], rs[groupStart].Group, rs[groupStart].Pos)
			}
			i += 1 + spec.operands
		}
	}
}

func checkDarwinOrder(c *errs, p *Platform) {
	rs := p.Rules
	if len(rs) < 2 {
		c.at(p.Pos, "", "darwin: want at least (version 1) and (deny default) (want rules version: 1, then deny: [default])")
		return
	}
	if rs[0].Action != "version" {
		c.at(rs[0].Pos, rs[0].ID, "the first darwin rule must be version: 1 (want a version: 1 rule before it)")
	}
	if rs[1].Action != "deny" || !slices.Equal(rs[1].Ops, []string{"default"}) || len(rs[1].When) > 0 || rs[1].For != "" || len(rs[1].Filters) > 0 {
		c.at(rs[1].Pos, rs[1].ID, "the second darwin rule must be an unconditional deny: [default] without filters (want deny: [default] without when, for or filters, right after version: 1)")
	}
	for _, r := range rs[2:] {
		if slices.Contains(r.Ops, "default") {
			// An allow of it undoes the deny; a second deny says nothing.
			c.at(r.OpsPos, r.ID, "%s: operation default belongs to the second rule's deny alone (want named operations such as file-read* instead)", r.Action)
		}
	}
	for i, d := range rs {
		if d.Action != "deny" || d.For != "hidden" {
			continue
		}
		for _, a := range rs[i+1:] {
			if a.Action != "allow" {
				continue
			}
			for _, ao := range a.Ops {
				for _, do := range d.Ops {
					if covers(ao, do) {
						c.at(a.Pos, a.ID, "allow %s after the hidden-path deny %q would reopen it (want it before %s)", ao, d.ID, d.Pos)
					}
				}
			}
		}
	}
}

// maxSeccomp bounds the filter's length; see checkSeccomp.
const maxSeccomp = 250

// seccompLength is about how many instructions internal/seccomp
// assembles for the entries: two ABI sections of a few fixed ones, one per
// syscall and ioctl, up to five per setid-mode call, and the verdicts.
func seccompLength(es []SeccompEntry) int {
	per := 7
	errnos := map[string]bool{}
	for _, e := range es {
		errnos[e.ErrnoName()] = true
		per++
		if e.SetidMode != "" {
			per += 4
		}
		if e.KeepFamilies != nil {
			per += 2 + len(e.KeepFamilies)
		}
	}
	return 2*per + 2 + len(errnos)
}

// checkSeccomp checks the seccomp section against the names the generator
// has numbers for, and against the rule that loads the filter: a filter
// with nothing in it would refuse nothing, and entries no rule loads would
// read as protection the sandbox does not have.
func checkSeccomp(c *errs, p *Platform, local, global map[string]Pos) {
	named := map[string]string{}
	outright := map[string]string{}
	for _, e := range p.Seccomp {
		if e.Syscall != "" {
			outright[e.Syscall] = e.ID
		}
	}
	for _, e := range p.Seccomp {
		if first, ok := named[e.What()]; ok {
			c.at(e.Pos, e.ID, "seccomp: %s is already refused by %q (want each once)", e.What(), first)
		}
		named[e.What()] = e.ID
		// The filter tests a call's number before its mode: one refused
		// outright makes a setid-mode entry for it dead text.
		if id, ok := outright[e.SetidMode]; ok && e.SetidMode != "" {
			c.at(e.Pos, e.ID, "seccomp: %s is refused outright by %q (want one entry for it)", e.SetidMode, id)
		}
		checkID(c, e.Pos, e.ID, local, nil)
		if prev, ok := global[e.ID]; ok && e.ID != "" {
			c.at(e.Pos, e.ID, "id already names a shared entry at %s (want an id of its own)", prev)
		}
		checkWhy(c, e.Pos, e.ID, e.Why)
		checkErrno(c, e)
		switch {
		case e.Syscall != "":
			if _, ok := seccompSyscalls[e.Syscall]; !ok {
				c.at(e.Pos, e.ID, "seccomp: syscall %q has no numbers here (want one of %s, or its numbers added to gen/vocab.go)", e.Syscall, words(slices.Sorted(maps.Keys(seccompSyscalls))))
			}
		case e.Ioctl != "":
			if _, ok := seccompIoctls[e.Ioctl]; !ok {
				c.at(e.Pos, e.ID, "seccomp: ioctl %q has no number here (want one of %s, or its number added to gen/vocab.go)", e.Ioctl, words(slices.Sorted(maps.Keys(seccompIoctls))))
			}
		case e.SetidMode != "":
			if _, ok := seccompModeCalls[e.SetidMode]; !ok {
				c.at(e.Pos, e.ID, "seccomp: setid-mode %q is no call the generator knows the mode argument of (want one of %s)", e.SetidMode, words(slices.Sorted(maps.Keys(seccompModeCalls))))
			}
		case e.KeepFamilies != nil:
			checkFamilies(c, e, p.Seccomp)
		}
	}
	// A classic BPF jump reaches at most 255 instructions ahead, and the
	// filter jumps from each entry of each ABI's section to a shared
	// verdict at the end: two sections of at most maxSeccomp entries and a
	// handful of fixed instructions each stay within reach.
	if n := seccompLength(p.Seccomp); n > maxSeccomp {
		last := p.Seccomp[len(p.Seccomp)-1]
		c.at(last.Pos, last.ID, "seccomp: the filter would be about %d instructions (want at most %d: its jumps reach 255 instructions)", n, maxSeccomp)
	}
	var loader *Rule
	for _, r := range p.Rules {
		for i, a := range r.Args {
			if bwrapFlags[a].seccomp && i+1 < len(r.Args) && r.Args[i+1] == varSeccompFD {
				loader = r
			}
		}
	}
	switch {
	case loader != nil && len(p.Seccomp) == 0:
		c.at(loader.ArgsPos, loader.ID, "args: %s loads a filter with nothing in it (want entries under seccomp:)", varSeccompFD)
	case loader == nil && len(p.Seccomp) > 0:
		c.at(p.Seccomp[0].Pos, p.Seccomp[0].ID, "seccomp: no rule loads the filter, so these entries refuse nothing (want a rule with args [--seccomp, %s])", varSeccompFD)
	}
}
