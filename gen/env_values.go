package gen

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"

	"github.com/sandtable/sandtable/internal/envval"
)

// ValueEntry is one row of the strip-env-values section (rules/common.yaml):
// a kind of value (internal/envval's vocabulary) that removes the variable
// holding it from the child's environment, whatever the variable's name.
type ValueEntry struct {
	Pos             Pos
	ID              string
	Value           string // a word of envval.Kinds
	Catches, Spares []string
	Why             string
}

var valueKeys = []string{"id", "value", "catches", "spares", "why"}

var valueKeyWant = map[string]string{
	"id":      "a unique kebab-case id",
	"value":   "a kind of value: " + strings.Join(valueKinds(), ", "),
	"catches": "a list of values the kind matches",
	"spares":  "a list of values it leaves",
	"why":     "the reason a reviewer reads",
}

func valueKinds() []string {
	var ks []string
	for k := range envval.Kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// envValues reads the strip-env-values section: {id, value, catches,
// spares, why} rows.
func (l *loader) envValues(n *yaml.Node) []ValueEntry {
	if !l.kind(n, yaml.SequenceNode, "", "strip-env-values") {
		return nil
	}
	var out []ValueEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "strip-env-values entry") {
			continue
		}
		en := ValueEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "strip-env-values: id")
		}
		l.keys(e, en.ID, valueKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "value":
				en.Value, _ = l.str(v, en.ID, "value")
			case "catches":
				en.Catches = l.strs(v, en.ID, "catches")
			case "spares":
				en.Spares = l.strs(v, en.ID, "spares")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range []string{"id", "value", "catches", "why"} {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "strip-env-values: missing key %s (want %s)", key, valueKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

// checkEnvValues checks the strip-env-values rows: ids and whys, a known
// kind named once, and that the kind matches every example it catches
// and none it spares.
func checkEnvValues(c *errs, cm *Common, local, ids map[string]Pos) {
	var seen []string
	for _, e := range cm.StripEnvValues {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		match, ok := envval.Kinds[e.Value]
		if !ok {
			if e.Value != "" {
				c.at(e.Pos, e.ID, "value %q is no kind of value (want one of %s)", e.Value, strings.Join(valueKinds(), ", "))
			}
			continue
		}
		if slices.Contains(seen, e.Value) {
			c.at(e.Pos, e.ID, "value %s has a row already (want each kind once)", e.Value)
		}
		seen = append(seen, e.Value)
		if len(e.Catches) == 0 {
			c.at(e.Pos, e.ID, "catches nothing (want at least one example value it removes)")
		}
		for _, x := range e.Catches {
			if !match(x) {
				c.at(e.Pos, e.ID, "catches %q, but %s does not match it (want a value it matches)", x, e.Value)
			}
		}
		for _, x := range e.Spares {
			if match(x) {
				c.at(e.Pos, e.ID, "spares %q, but %s matches it (want a value it leaves)", x, e.Value)
			}
		}
	}
}

// emitEnvValues writes the section's runtime: the rule ids by index and
// one function of a value, a call into internal/envval per row, in table
// order.
func emitEnvValues(f *jen.File, c *Common) {
	f.Comment("envValueRules are the strip-env-values rule ids, by the index envValueStrippedBy returns.")
	f.Var().Id("envValueRules").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, e := range c.StripEnvValues {
			g.Line().Lit(e.ID)
		}
		g.Line()
	})
	f.Comment("envValueStrippedBy returns the index in envValueRules of the row that")
	f.Comment("removes a variable with this value from the child's environment, or -1.")
	f.Func().Id("envValueStrippedBy").Params(jen.Id("value").String()).Int().BlockFunc(func(g *jen.Group) {
		for i, e := range c.StripEnvValues {
			g.If(jen.Qual("github.com/sandtable/sandtable/internal/envval", valueFunc[e.Value]).Call(jen.Id("value"))).Block(
				jen.Return(jen.Lit(i)).Comment(e.ID + ": " + e.Value))
		}
		g.Return(jen.Lit(-1))
	})
}

// valueFunc is the internal/envval function of each kind.
var valueFunc = map[string]string{"url-password": "URLPassword", "dsn-password": "DSNPassword"}

// envValuesDoc renders the section in docs/POLICY.md.
func envValuesDoc(b *bytes.Buffer, c *Common) {
	if len(c.StripEnvValues) == 0 {
		return
	}
	b.WriteString("\n### Environment variables stripped by their value\n\n")
	b.WriteString("Removed from the child's environment like the rows above, whatever the\n")
	b.WriteString("variable's name, when its value is of the kind the row names; `keep-env`\n")
	b.WriteString("and the caller (`Config.KeepEnv`, `sandtable run --keep-env NAME`) pass\n")
	b.WriteString("one on. The generator checks that each kind matches the values listed\n")
	b.WriteString("and leaves the others.\n\n")
	table(b, []string{"ID", "Value", "Catches", "Spares", "Why"}, func(row func(...string)) {
		for _, e := range c.StripEnvValues {
			row(code(e.ID), code(e.Value), codes(e.Catches), codes(e.Spares), prose(e.Why))
		}
	})
}

// envValuesDiff compares the sections: like strip-env, a removed row
// widens what the process gets, an added one narrows it, and a changed
// kind does both.
func envValuesDiff(line func(string, ...any), old, new []ValueEntry) {
	rowDiff(line, "strip-env-values", old, new, func(e ValueEntry) string { return e.ID },
		func(e ValueEntry) string { return e.Value }, reach{wider: true}, reach{narrower: true},
		func(o, n ValueEntry) reach { return reach{wider: true, narrower: true} })
}
