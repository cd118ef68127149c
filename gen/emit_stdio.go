package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// emitStdio renders the stdio section as a lookup by stream and kind, each
// element commented with the rule that decides it. The kinds and passes are
// constants of package sandbox (sandbox/stdio.go), named after the words of
// the section's vocabularies. A table without the section decides nothing,
// and the zero element passes nothing: the command gets /dev/null.
func emitStdio(f *jen.File, c *Common) {
	f.Comment("stdioRules decides how the caller's standard descriptor of each kind")
	f.Comment("reaches the command, per stream: stdin, stdout, stderr.")
	f.Var().Id("stdioRules").Op("=").Index(jen.Lit(len(stdioStreams))).Index(jen.Id("numStdioKinds")).Id("stdioRule").ValuesFunc(func(g *jen.Group) {
		for _, s := range stdioStreams {
			g.Line().Comment(s).Line().ValuesFunc(func(g *jen.Group) {
				for _, k := range stdioKinds {
					for _, e := range c.Stdio {
						if e.Kind == k && containsStr(e.Streams, s) {
							g.Line().Comment(e.ID).Line().Id(stdioKindIdent(k)).Op(":").Values(
								jen.Id("pass").Op(":").Id(stdioPassIdent(e.Pass)),
								jen.Id("rule").Op(":").Lit(e.ID),
							)
						}
					}
				}
				g.Line()
			})
		}
		g.Line()
	})
}

func stdioKindIdent(k string) string { return "stdioKind" + camel(k) }
func stdioPassIdent(p string) string { return "stdioPass" + camel(p) }

// stdioEmits is what a stdio row does, as the rule table and the docs say it.
func stdioEmits(e StdioEntry) string {
	return strings.Join(e.Streams, ", ") + ": " + e.Kind + " " + e.Pass
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
