package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// emitRefuse renders the refuse section as the ordered check list the
// runtime loops over (sandbox/refuse.go): the inputs as bits, the check
// kinds as constants, and one element per row, in table order, commented
// with its id, and its bound for a bounded check. A table without the
// section emits nothing.
func emitRefuse(f *jen.File, c *Common) {
	if c.Refuse == nil {
		return
	}
	f.Comment("The refuse section's inputs, one bit each.")
	f.Const().DefsFunc(func(g *jen.Group) {
		for i, in := range refuseInputs {
			if i == 0 {
				g.Id(refuseInputIdent(in)).Id("refuseInput").Op("=").Lit(1).Op("<<").Iota()
				continue
			}
			g.Id(refuseInputIdent(in))
		}
	})
	f.Comment("The refuse section's check kinds, each run by one function (refuseCheck...).")
	f.Const().DefsFunc(func(g *jen.Group) {
		for i, k := range refuseChecks {
			if i == 0 {
				g.Id(refuseCheckIdent(k.Name)).Id("refuseCheckKind").Op("=").Iota()
				continue
			}
			g.Id(refuseCheckIdent(k.Name))
		}
		g.Id("numRefuseChecks")
	})
	f.Comment("darwinTempDirs are macOS's shared temporary directories, writable roots")
	f.Comment("there besides the workspace, the write paths and the caches (gen's vocabulary).")
	f.Var().Id("darwinTempDirs").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, d := range sortedTempDirs() {
			g.Lit(d)
		}
	})
	f.Comment("refuseRows are the configurations the runtime refuses, in table order:")
	f.Comment("each input is checked against every row that names it, first to last.")
	f.Var().Id("refuseRows").Op("=").Index(jen.Op("...")).Id("refuseRow").ValuesFunc(func(g *jen.Group) {
		for _, e := range c.Refuse {
			var in *jen.Statement
			for i, x := range e.Inputs {
				if i == 0 {
					in = jen.Id(refuseInputIdent(x))
				} else {
					in = in.Op("|").Id(refuseInputIdent(x))
				}
			}
			fields := []jen.Code{
				jen.Id("id").Op(":").Lit(e.ID),
				jen.Id("check").Op(":").Id(refuseCheckIdent(e.Check)),
				jen.Id("inputs").Op(":").Add(in),
			}
			if b := e.BoundValue(); b != 0 {
				fields = append(fields, jen.Id("bound").Op(":").Lit(int(b)))
			}
			g.Line().Comment(e.ID).Line().Values(fields...)
		}
		g.Line()
	})
}

func refuseInputIdent(in string) string { return "refuse" + camel(in) }
func refuseCheckIdent(k string) string  { return "refuseCheck" + camel(k) }

// refuseEmits is what a refuse row does, as the docs and the diff say it.
func refuseEmits(e RefuseEntry) string {
	s := e.Check + " on " + strings.Join(e.Inputs, ", ")
	if e.Bound != "" {
		s += " (bound " + e.Bound + ")"
	}
	return s
}
