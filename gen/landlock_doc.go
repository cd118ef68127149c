package gen

import (
	"bytes"
	"strings"
)

// docLandlock renders the reduced backend's part of docs/POLICY.md: its
// own rows, then every linux row's guarantee under both backends, side by
// side.
func docLandlock(b *bytes.Buffer, p *Platform) {
	if p.Landlock == nil {
		return
	}
	b.WriteString("\n## The reduced backend (Landlock)\n\n")
	b.WriteString("Where user namespaces cannot be made (a container's seccomp profile,\n")
	b.WriteString("AppArmor's restriction, a limit of 0), `Config.Backend` `BackendLandlock`\n")
	b.WriteString("(`sandtable run --backend landlock`, or the backend variable) runs the\n")
	b.WriteString("command without bwrap: a helper (this program, re-executed) starts it\n")
	b.WriteString("from a thread with no capabilities, `no_new_privs`, a Landlock domain and\n")
	b.WriteString("two seccomp filters (the seccomp section above and the refuse rows\n")
	b.WriteString("below). `BackendAuto` takes bwrap where it works and this backend\n")
	b.WriteString("elsewhere; `BackendBwrap`, the default, never falls back. Each reduced\n")
	b.WriteString("run says so in one line on stderr. The rights are Landlock's\n")
	b.WriteString("(`landlock_add_rule`); a grant decides a tree by its most specific path,\n")
	b.WriteString("and a directory above a grant that asks for less (a hidden path) gets on\n")
	b.WriteString("itself, and on entries made in it later, only what all of its tree may\n")
	b.WriteString("do. What the kernel's ABI lacks is left out, and `sandtable probe` names\n")
	b.WriteString("it.\n\n")
	table(b, []string{"ID", "Does", "Why"}, func(row func(...string)) {
		for _, e := range p.Landlock {
			row(code(e.ID), e.What(), prose(e.Why))
		}
	})
	b.WriteString("\n### Each guarantee under both backends\n\n")
	b.WriteString("Every row of the Linux table, with what it does under bwrap and how the\n")
	b.WriteString("reduced backend keeps it: **kept** (the same guarantee, by other means),\n")
	b.WriteString("**weaker** (part of it) or **lost**. `genrules -diff` reports a row moving\n")
	b.WriteString("towards lost as a widening.\n\n")
	table(b, []string{"ID", "bwrap", "Landlock", "How, or why not"}, func(row func(...string)) {
		add := func(id, what string, c *BackendCol) {
			if c == nil {
				return
			}
			row(code(id), what, "**"+c.Enforce+"**", prose(c.Why))
		}
		for _, r := range p.Rules {
			add(r.ID, code(strings.Join(r.Args, " ")), r.Landlock)
		}
		for _, e := range p.Seccomp {
			add(e.ID, "seccomp: "+code(e.What()), e.Landlock)
		}
		for _, e := range p.Limits {
			add(e.ID, "limit: "+e.What(), e.Landlock)
		}
		for _, e := range p.Watch {
			add(e.ID, "watch: "+watchWhat(e), e.Landlock)
		}
	})
}
