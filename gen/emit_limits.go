package gen

import (
	"strconv"

	"github.com/dave/jennifer/jen"
)

// emitLimits writes the limits section: an index constant per limit the
// generator knows, and limitTable, each row's default in its unit.
func emitLimits(f *jen.File, p *Platform) {
	f.Comment("The limits package sandbox applies, as indices into limitTable.")
	f.Const().DefsFunc(func(g *jen.Group) {
		for i, name := range limitOrder {
			g.Id(limitKinds[name].goName).Op("=").Lit(i).Comment(name)
		}
		g.Id("limitCount").Op("=").Lit(len(limitOrder))
	})
	f.Comment("limitRow is one limit's default from the table: value in the limit's unit")
	f.Comment("(bytes, processes, seconds), 0 for none, and arg the same in decimal for a")
	f.Comment("bwrap operand; at most 1/ramShare of the machine's memory when ramShare is")
	f.Comment("not 0; refuse when a run stops where the machine cannot enforce it.")
	f.Type().Id("limitRow").Struct(
		jen.Id("rule").String(),
		jen.Id("value").Uint64(),
		jen.Id("arg").String(),
		jen.Id("ramShare").Uint64(),
		jen.Id("refuse").Bool(),
	)
	f.Comment("limitTable is the limits section; a limit without a row has none.")
	f.Var().Id("limitTable").Op("=").Index(jen.Id("limitCount")).Id("limitRow").ValuesFunc(func(g *jen.Group) {
		for _, e := range p.Limits {
			k, ok := limitKinds[e.Limit]
			if !ok {
				continue
			}
			v := strconv.FormatUint(e.Value, 10)
			fields := []jen.Code{jen.Id("rule").Op(":").Lit(e.ID), jen.Id("value").Op(":").Op(v), jen.Id("arg").Op(":").Lit(v)}
			if e.RAMShare > 0 {
				fields = append(fields, jen.Id("ramShare").Op(":").Op(strconv.FormatUint(e.RAMShare, 10)))
			}
			if e.Unenforceable == "refuse" {
				fields = append(fields, jen.Id("refuse").Op(":").True())
			}
			g.Line().Comment(e.ID).Line().Id(k.goName).Op(":").Values(fields...)
		}
		g.Line()
	})
}

// limitOperand is the Go value of a size or block-fd operand, nil for
// any other.
func limitOperand(a string) jen.Code {
	if lim, ok := sizeVars[a]; ok {
		return jen.Id("p").Dot("limitArg").Call(jen.Id(limitKinds[lim].goName))
	}
	if a == varBlockFD {
		return jen.Id("p").Dot("blockFD")
	}
	return nil
}
