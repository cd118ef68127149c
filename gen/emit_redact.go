package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// emitRedact writes the redact section as the table the sandbox package
// reads the files by.
func emitRedact(f *jen.File, c *Common) {
	f.Comment("redactFile is one file the command reads redacted: the lines whose key")
	f.Comment("is in keys removed, and with urls the credentials of every URL. path")
	f.Comment("is relative to $HOME when underHome, and to the value of the variable")
	f.Comment("env when env is set (\"\" for the value itself); yaml reads KEY: VALUE")
	f.Comment("lines, else KEY=VALUE (npm's //registry/:KEY=VALUE too).")
	f.Type().Id("redactFile").Struct(
		jen.Id("id").String(),
		jen.Id("underHome").Bool(),
		jen.Id("env").String(),
		jen.Id("path").String(),
		jen.Id("yaml").Bool(),
		jen.Id("keys").Index().String(),
		jen.Id("urls").Bool(),
	)
	f.Comment("redactFiles are the table's redact rows, in table order.")
	f.Var().Id("redactFiles").Op("=").Index(jen.Op("...")).Id("redactFile").ValuesFunc(func(g *jen.Group) {
		for _, e := range c.Redact {
			rel, home := strings.CutPrefix(e.Path, varHome+"/")
			env, _, envRel, derived := parseDerived(e.Path)
			if derived {
				rel = envRel
			}
			keys := make([]jen.Code, len(e.Keys))
			for i, k := range e.Keys {
				keys[i] = jen.Lit(k)
			}
			g.Line().Values(
				jen.Id("id").Op(":").Lit(e.ID),
				jen.Id("underHome").Op(":").Lit(home),
				jen.Id("env").Op(":").Lit(env),
				jen.Id("path").Op(":").Lit(rel),
				jen.Id("yaml").Op(":").Lit(e.Format == "yaml"),
				jen.Id("keys").Op(":").Index().String().Values(keys...),
				jen.Id("urls").Op(":").Lit(e.URLs),
			)
		}
		g.Line()
	})
}

// redactEmits is what a redact row does, for the rule listing.
func redactEmits(e RedactEntry) string {
	s := "redact " + e.Path
	if len(e.Keys) > 0 {
		s += ": remove " + strings.Join(e.Keys, ", ")
	}
	if e.URLs {
		s += "; URL credentials"
	}
	return s
}
