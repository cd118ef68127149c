package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// redactFormatConst is the sandbox package's constant for format name.
func redactFormatConst(name string) string {
	var b strings.Builder
	b.WriteString("redactFormat")
	for _, part := range strings.Split(name, "-") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// emitRedact writes the redact section as the table the sandbox package
// reads the files by, and the formats as constants.
func emitRedact(f *jen.File, c *Common) {
	f.Comment("redactFormat is the grammar a redacted file is read in: the reading of")
	f.Comment("the tool that reads it (gen/table_redact.go's redactFormats).")
	f.Type().Id("redactFormat").Uint8()
	f.Const().DefsFunc(func(g *jen.Group) {
		for i, rf := range redactFormats {
			if i == 0 {
				g.Id(redactFormatConst(rf.Name)).Id("redactFormat").Op("=").Iota().Comment(rf.Name)
				continue
			}
			g.Id(redactFormatConst(rf.Name)).Comment(rf.Name)
		}
		g.Id("numRedactFormats")
	})
	f.Comment("redactFile is one file the command reads redacted: read in format, the")
	f.Comment("keys in keys removed as that format compares them, with urls the")
	f.Comment("credentials of every URL, and with includes the files it includes")
	f.Comment("redacted too. path is relative to $HOME when underHome, and to the")
	f.Comment("value of the variable env when env is set (\"\" for the value itself).")
	f.Type().Id("redactFile").Struct(
		jen.Id("id").String(),
		jen.Id("underHome").Bool(),
		jen.Id("env").String(),
		jen.Id("path").String(),
		jen.Id("format").Id("redactFormat"),
		jen.Id("keys").Index().String(),
		jen.Id("urls").Bool(),
		jen.Id("includes").Bool(),
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
				jen.Id("format").Op(":").Id(redactFormatConst(e.Format)),
				jen.Id("keys").Op(":").Index().String().Values(keys...),
				jen.Id("urls").Op(":").Lit(e.URLs),
				jen.Id("includes").Op(":").Lit(e.Includes),
			)
		}
		g.Line()
	})
}

// redactEmits is what a redact row does, for the rule listing.
func redactEmits(e RedactEntry) string {
	s := "redact " + e.Path + " as " + e.Format
	if len(e.Keys) > 0 {
		s += ": remove " + strings.Join(e.Keys, ", ")
	}
	if e.URLs {
		s += "; URL credentials"
	}
	if e.Includes {
		s += "; the files it includes too"
	}
	return s
}
