package gen

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// The backend section (rules/common.yaml): the environment variable an
// operator sets beside the policy's to choose how Linux sandboxes, its
// values and its default. The values are the ones package sandbox knows
// (backendNames); the default must be bwrap: the reduced backend is
// chosen, never fallen into.

// backendNames are the values a backend section must list, in order.
var backendNames = []string{"bwrap", "landlock", "auto"}

// backendDefault is the only default the section may have.
const backendDefault = "bwrap"

// backend reads the section: {variable, default, values: [{name, why}]}.
func (l *loader) backend(n *yaml.Node, p *Policy) {
	if !l.kind(n, yaml.MappingNode, "", "backend") {
		return
	}
	l.keys(n, "", []string{"variable", "default", "values"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "variable":
			p.VariablePos = l.pos(v)
			p.Variable, _ = l.str(v, "", "backend.variable")
		case "default":
			p.DefaultPos = l.pos(v)
			p.Default, _ = l.str(v, "", "backend.default")
		case "values":
			if !l.kind(v, yaml.SequenceNode, "", "backend.values") {
				return
			}
			for _, e := range v.Content {
				if !l.kind(e, yaml.MappingNode, "", "backend value") {
					continue
				}
				en := Entry{Pos: l.pos(e)}
				l.keys(e, "", []string{"name", "why"}, func(key string, k, v *yaml.Node) {
					switch key {
					case "name":
						en.Value, _ = l.str(v, "", "backend value name")
						en.ID = en.Value
					case "why":
						en.Why, _ = l.str(v, en.ID, "why")
					}
				})
				p.Values = append(p.Values, en)
			}
		}
	})
	for _, key := range []string{"variable", "default", "values"} {
		if lookup(n, key) == nil {
			l.at(l.pos(n), "", "backend: missing key %s (want %s)", key, map[string]string{
				"variable": "the environment variable that selects the backend", "default": backendDefault, "values": "a list of {name, why}",
			}[key])
		}
	}
}

// checkBackend checks the section, when the table has one: a variable
// name, the values package sandbox knows, each with a why, and bwrap as
// the default.
func checkBackend(c *errs, cm *Common) {
	b := cm.Backend
	if b == nil {
		return
	}
	if !envName.MatchString(b.Variable) {
		c.at(b.VariablePos, "", "backend.variable %q is not an environment variable name (want [A-Z_][A-Z0-9_]*)", b.Variable)
	} else if b.Variable == cm.Policy.Variable {
		c.at(b.VariablePos, "", "backend.variable %q is the policy's (want a variable of its own)", b.Variable)
	}
	var names []string
	for _, v := range b.Values {
		names = append(names, v.Value)
		checkWhy(c, v.Pos, v.Value, v.Why)
	}
	if !slices.Equal(names, backendNames) {
		c.at(b.VariablePos, "", "backend.values %v (want %s, the backends package sandbox knows, in that order)", names, strings.Join(backendNames, ", "))
	}
	if b.Default != backendDefault {
		c.at(b.DefaultPos, "", "backend.default %q (want %s: the reduced backend is chosen, never a default)", b.Default, backendDefault)
	}
}

// emitBackend writes the section's variable and values.
func emitBackend(f *jen.File, cm *Common) {
	b := cm.Backend
	if b == nil {
		return
	}
	f.Comment("BackendVariable names the environment variable that selects the backend.")
	f.Const().Id("BackendVariable").Op("=").Lit(b.Variable)
	f.Const().Id("backendDefault").Op("=").Lit(b.Default)
	f.Comment("backendValues are the accepted backend values, in table order.")
	f.Var().Id("backendValues").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, v := range b.Values {
			g.Line().Lit(v.Value)
		}
		g.Line()
	})
}

// docBackend renders the section of docs/POLICY.md.
func docBackend(b *bytes.Buffer, cm *Common) {
	s := cm.Backend
	if s == nil {
		return
	}
	b.WriteString("\n### Backend\n\n")
	fmt.Fprintf(b, "On Linux, `Config.Backend` chooses how the sandbox is built; left at its\n")
	fmt.Fprintf(b, "zero value, the environment variable %s does, matched\n", code(s.Variable))
	fmt.Fprintf(b, "case-insensitively; unset or empty means %s. macOS has one backend,\n", code(s.Default))
	b.WriteString("Seatbelt: there `auto` and `bwrap` mean it and `landlock` is refused.\n\n")
	table(b, []string{"Value", "Default", "Why"}, func(row func(...string)) {
		for _, v := range s.Values {
			def := ""
			if v.Value == s.Default {
				def = "yes"
			}
			row(code(v.Value), def, prose(v.Why))
		}
	})
}

// backendDiff compares the sections: a new default (which the check
// allows only as bwrap) or a value added or removed.
func backendDiff(o, n *Common) []string {
	var out []string
	line := func(format string, args ...any) {
		out = append(out, "common: "+fmt.Sprintf(format, args...))
	}
	get := func(c *Common) Policy {
		if c.Backend == nil {
			return Policy{}
		}
		return *c.Backend
	}
	a, b := get(o), get(n)
	if a.Variable != b.Variable {
		line("backend variable changed: %q -> %q", a.Variable, b.Variable)
	}
	if a.Default != b.Default {
		line("backend default changed: %q -> %q (widened: a run that chose nothing gets %s)", a.Default, b.Default, b.Default)
	}
	return out
}
