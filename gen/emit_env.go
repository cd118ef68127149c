package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// emitEnv writes the environment section's runtime: the exact names, the
// rule ids by index, and two functions of a name, straight-line tests
// with no regular expression. Exact names go through one switch (which
// the compiler turns into a binary search), patterns through one
// strings call each, in table order.
func emitEnv(f *jen.File, c *Common) {
	f.Comment("strippedEnv are the strip-env rows that name one variable exactly.")
	f.Var().Id("strippedEnv").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, e := range c.StripEnv {
			if p, _ := parseEnvPattern(e.Value); p.kind == envExact {
				g.Line().Comment(e.ID).Line().Lit(e.Value)
			}
		}
		g.Line()
	})
	f.Comment("envStripRules are the strip-env rule ids, by the index envStrippedBy returns.")
	f.Var().Id("envStripRules").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, e := range c.StripEnv {
			g.Line().Lit(e.ID)
		}
		g.Line()
	})

	f.Comment("envStrippedBy returns the index in envStripRules of the row that removes")
	f.Comment("the variable name from the child's environment, or -1. An exact row")
	f.Comment("wins over a pattern; patterns are tried in table order.")
	f.Func().Id("envStrippedBy").Params(jen.Id("name").String()).Int().BlockFunc(func(g *jen.Group) {
		var cases []jen.Code
		var patterns []jen.Code
		for i, e := range c.StripEnv {
			p, _ := parseEnvPattern(e.Value)
			if p.kind == envExact {
				cases = append(cases, jen.Case(jen.Lit(p.lit)).Block(jen.Return(jen.Lit(i)).Comment(e.ID)))
				continue
			}
			fn := map[envKind]string{envPrefix: "HasPrefix", envSuffix: "HasSuffix", envContains: "Contains"}[p.kind]
			patterns = append(patterns, jen.If(jen.Qual("strings", fn).Call(jen.Id("name"), jen.Lit(p.lit))).Block(
				jen.Return(jen.Lit(i)).Comment(e.ID+": "+e.Value)))
		}
		if len(cases) > 0 {
			g.Switch(jen.Id("name")).Block(cases...)
		}
		for _, p := range patterns {
			g.Add(p)
		}
		g.Return(jen.Lit(-1))
	})

	f.Comment("envKept reports whether keep-env passes the variable name on in every")
	f.Comment("mode, the allowlist (Config.Env) included.")
	f.Func().Id("envKept").Params(jen.Id("name").String()).Bool().BlockFunc(func(g *jen.Group) {
		if len(c.KeepEnv) == 0 {
			g.Return(jen.False())
			return
		}
		var names []jen.Code
		var ids []string
		for _, e := range c.KeepEnv {
			names = append(names, jen.Lit(e.Value))
			ids = append(ids, e.ID)
		}
		g.Switch(jen.Id("name")).Block(
			jen.Case(names...).Block(jen.Return(jen.True()).Comment(strings.Join(ids, ", "))),
		)
		g.Return(jen.False())
	})
}
