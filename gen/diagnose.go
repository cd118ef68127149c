package gen

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// DiagnoseEntry is one row of the linux table's diagnose section: one
// reason the sandbox cannot start on a machine, how sandtable finds it,
// what it says, and the fixes it suggests, narrowest first. The sandbox
// package names every cause it finds, in table order, then the reduced
// backend and the policy opt-out, which follow every cause.
type DiagnoseEntry struct {
	Pos   Pos
	ID    string
	Cause string // a word of diagnoseCauses
	// Sysctl and Blocked are a sysctl cause's switch and the value that
	// blocks; "" for the other causes.
	Sysctl  string
	Blocked string
	Says    string
	Fixes   []string
	Why     string
}

// diagnoseCauses is the vocabulary of causes, each with how the sandbox
// finds it, for POLICY.md; sysctl causes read a switch under /proc/sys.
var diagnoseCauses = map[string]struct {
	finds  string
	sysctl bool
}{
	"no-bwrap":          {finds: "bwrap is not on PATH outside the writable roots"},
	"container-seccomp": {finds: "`Seccomp: 2` in /proc/self/status, a test clone with CLONE_NEWUSER refused with EPERM, and no sysctl row blocking"},
	"apparmor-userns":   {finds: "the sysctl has the blocking value", sysctl: true},
	"userns-clone-off":  {finds: "the sysctl has the blocking value", sysctl: true},
	"userns-limit":      {finds: "the sysctl has the blocking value (it is per user namespace: a container's or a parent namespace's own)", sysctl: true},
}

// diagnoseCauseOrder is diagnoseCauses in a fixed order, for messages.
var diagnoseCauseOrder = []string{"no-bwrap", "container-seccomp", "apparmor-userns", "userns-clone-off", "userns-limit"}

var diagnoseKeys = []string{"id", "cause", "sysctl", "blocked", "says", "fixes", "why"}

// diagnose reads the diagnose section: {id, cause, sysctl, blocked, says,
// fixes, why} rows.
func (l *loader) diagnose(n *yaml.Node) []DiagnoseEntry {
	if !l.kind(n, yaml.SequenceNode, "", "diagnose") {
		return nil
	}
	var out []DiagnoseEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "diagnose entry") {
			continue
		}
		en := DiagnoseEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "diagnose: id")
		}
		l.keys(e, en.ID, diagnoseKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "cause":
				en.Cause, _ = l.str(v, en.ID, "cause")
			case "sysctl":
				en.Sysctl, _ = l.str(v, en.ID, "sysctl")
			case "blocked":
				en.Blocked, _ = l.str(v, en.ID, "blocked")
			case "says":
				en.Says, _ = l.str(v, en.ID, "says")
			case "fixes":
				en.Fixes = l.strs(v, en.ID, "fixes")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range []string{"id", "cause", "says", "fixes", "why"} {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "diagnose: missing key %s (want %s)", key, map[string]string{
					"id": "a unique kebab-case id", "cause": "one of " + strings.Join(diagnoseCauseOrder, ", "),
					"says": "the line that names the cause", "fixes": "the fixes, narrowest first", "why": "the reason a reviewer reads",
				}[key])
			}
		}
		out = append(out, en)
	}
	return out
}

// linuxSysctl is a Linux sysctl's dotted name: lower-case words, digits and _.
var linuxSysctl = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)+$`)

// checkDiagnose checks the diagnose rows: ids, whys, a known cause once, a
// switch exactly for the sysctl causes, and texts that fit in one line of
// the message, which joins its parts with "; ".
func checkDiagnose(c *errs, p *Platform, local, global map[string]Pos) {
	seen := map[string]Pos{}
	text := func(e DiagnoseEntry, what, s string) {
		switch {
		case strings.TrimSpace(s) == "":
			c.at(e.Pos, e.ID, "%s: empty (want the words a user reads)", what)
		case strings.Contains(s, ";") || hasControl(s) || strings.Contains(s, "\n"):
			c.at(e.Pos, e.ID, "%s %q: a semicolon or control character (want one line: the message joins its parts with \"; \")", what, s)
		}
	}
	for _, e := range p.Diagnose {
		checkID(c, e.Pos, e.ID, local, nil)
		if prev, ok := global[e.ID]; ok && e.ID != "" {
			c.at(e.Pos, e.ID, "id already names a shared entry at %s (want an id of its own)", prev)
		}
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Says != "" {
			text(e, "says", e.Says)
		}
		if len(e.Fixes) == 0 && e.Cause != "" {
			c.at(e.Pos, e.ID, "fixes: none (want at least one, narrowest first)")
		}
		for _, f := range e.Fixes {
			text(e, "fix", f)
		}
		if e.Cause == "" {
			continue
		}
		cause, ok := diagnoseCauses[e.Cause]
		switch {
		case !ok:
			c.at(e.Pos, e.ID, "cause: %q is not a cause the sandbox can find (want one of %s)", e.Cause, strings.Join(diagnoseCauseOrder, ", "))
			continue
		case seen[e.Cause] != (Pos{}):
			c.at(e.Pos, e.ID, "cause: %s already diagnosed at %s (want one row per cause)", e.Cause, seen[e.Cause])
		}
		seen[e.Cause] = e.Pos
		switch {
		case cause.sysctl && (e.Sysctl == "" || e.Blocked == ""):
			c.at(e.Pos, e.ID, "cause %s: missing sysctl or blocked (want the switch and the value that blocks)", e.Cause)
		case !cause.sysctl && (e.Sysctl != "" || e.Blocked != ""):
			c.at(e.Pos, e.ID, "cause %s: reads no sysctl (want no sysctl or blocked)", e.Cause)
		case e.Sysctl != "" && !linuxSysctl.MatchString(e.Sysctl):
			c.at(e.Pos, e.ID, "sysctl %q is not a sysctl name (want dotted lower-case words)", e.Sysctl)
		case hasControl(e.Blocked) || strings.ContainsAny(e.Blocked, " \t"):
			c.at(e.Pos, e.ID, "blocked %q: want one word", e.Blocked)
		}
	}
}

// emitDiagnose renders the diagnose section as the diagnoseRows array.
func emitDiagnose(f *jen.File, p *Platform) {
	f.Comment("diagnoseRow is one row of the diagnose section: a cause the sandbox")
	f.Comment("finds when it cannot start (cause, a word of the generator's), the")
	f.Comment("sysctl that shows it (file under /, blocked the value that blocks),")
	f.Comment("the line that names it and its fixes, narrowest first.")
	f.Type().Id("diagnoseRow").Struct(
		jen.Id("rule").String(),
		jen.Id("cause").String(),
		jen.Id("sysctl").String(),
		jen.Id("file").String(),
		jen.Id("blocked").String(),
		jen.Id("says").String(),
		jen.Id("fixes").Index().String(),
	)
	f.Comment("diagnoseRows are the table's causes, in table order.")
	f.Var().Id("diagnoseRows").Op("=").Index(jen.Op("...")).Id("diagnoseRow").ValuesFunc(func(g *jen.Group) {
		for _, e := range p.Diagnose {
			v := []jen.Code{jen.Id("rule").Op(":").Lit(e.ID), jen.Id("cause").Op(":").Lit(e.Cause)}
			if e.Sysctl != "" {
				v = append(v, jen.Id("sysctl").Op(":").Lit(e.Sysctl),
					jen.Id("file").Op(":").Lit("proc/sys/"+strings.ReplaceAll(e.Sysctl, ".", "/")),
					jen.Id("blocked").Op(":").Lit(e.Blocked))
			}
			v = append(v, jen.Id("says").Op(":").Lit(e.Says), jen.Id("fixes").Op(":").Index().String().ValuesFunc(func(g *jen.Group) {
				for _, fx := range e.Fixes {
					g.Lit(fx)
				}
			}))
			g.Line().Values(v...)
		}
		g.Line()
	})
}

// docDiagnose renders the diagnose section of docs/POLICY.md.
func docDiagnose(b *bytes.Buffer, p *Platform) {
	if len(p.Diagnose) == 0 {
		return
	}
	b.WriteString("\n### When the sandbox cannot start\n\n")
	b.WriteString("What `sandtable probe`, `sandtable run` and the errors wrapping\n")
	b.WriteString("`ErrUnavailable` say when bwrap, or the network helper, cannot build the\n")
	b.WriteString("sandbox: every cause found, in table order, with its fixes from the\n")
	b.WriteString("narrowest to the broadest; then, where this kernel has Landlock, the\n")
	b.WriteString("reduced backend (which keeps less: see its section below), then the\n")
	b.WriteString("policy opt-out. With no cause found, bwrap's own message and the\n")
	b.WriteString("user-namespace switches this kernel has.\n\n")
	table(b, []string{"ID", "Cause", "Found by", "Says", "Fixes, narrowest first", "Why"}, func(row func(...string)) {
		for _, e := range p.Diagnose {
			finds := diagnoseCauses[e.Cause].finds
			if e.Sysctl != "" {
				finds = code(e.Sysctl+"="+e.Blocked) + ": " + finds
			}
			fixes := make([]string, len(e.Fixes))
			for i, f := range e.Fixes {
				fixes[i] = fmt.Sprintf("%d. %s", i+1, prose(f))
			}
			row(code(e.ID), code(e.Cause), finds, prose(e.Says), strings.Join(fixes, "<br>"), prose(e.Why))
		}
	})
}

// diagnoseDiff compares the diagnose sections. A diagnosis is advice, not
// a boundary: a changed row changes what a user is told, never what the
// sandbox lets the command do, so every change has the same reach.
func diagnoseDiff(o, n *Platform) []string {
	var out []string
	line := func(format string, args ...any) {
		out = append(out, "linux: "+fmt.Sprintf(format, args...))
	}
	rows := func(p *Platform) []DiagnoseEntry {
		if p == nil {
			return nil
		}
		return p.Diagnose
	}
	show := func(e DiagnoseEntry) string {
		s := "diagnose " + e.Cause
		if e.Sysctl != "" {
			s += " (" + e.Sysctl + "=" + e.Blocked + ")"
		}
		return s + ": " + e.Says + "; fixes: " + strings.Join(e.Fixes, " | ")
	}
	rowDiff(line, "diagnose", rows(o), rows(n), func(e DiagnoseEntry) string { return e.ID }, show,
		reach{}, reach{}, func(DiagnoseEntry, DiagnoseEntry) reach { return reach{} })
	return out
}
