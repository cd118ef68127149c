package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// emitCaches writes the caches section as a table the sandbox package reads
// when it builds a spawn: each cache's directory name, its variable, and
// the constant text around $dir in the variable's value.
func emitCaches(f *jen.File, c *Common) {
	f.Comment("cacheDir is one tool cache kept private to the sandbox: the directory")
	f.Comment("dir under sandtable's cache root, which the child finds through env,")
	f.Comment("set to prefix + the directory + suffix; perWorkspace keeps one such")
	f.Comment("directory per resolved workspace.")
	f.Type().Id("cacheDir").Struct(
		jen.Id("id").String(),
		jen.Id("dir").String(),
		jen.Id("env").String(),
		jen.Id("prefix").String(),
		jen.Id("suffix").String(),
		jen.Id("perWorkspace").Bool(),
	)
	f.Comment("cacheDirs are the table's caches, in table order.")
	f.Var().Id("cacheDirs").Op("=").Index(jen.Op("...")).Id("cacheDir").ValuesFunc(func(g *jen.Group) {
		for _, e := range c.Caches {
			prefix, suffix, _ := strings.Cut(e.Value, varDir)
			g.Line().Values(
				jen.Id("id").Op(":").Lit(e.ID),
				jen.Id("dir").Op(":").Lit(e.Dir),
				jen.Id("env").Op(":").Lit(e.Env),
				jen.Id("prefix").Op(":").Lit(prefix),
				jen.Id("suffix").Op(":").Lit(suffix),
				jen.Id("perWorkspace").Op(":").Lit(e.Scope == "workspace"),
			)
		}
		g.Line()
	})
}
