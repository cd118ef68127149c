package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// protectBaseIdent is the sandbox constant for each base of a protect path.
var protectBaseIdent = map[string]string{
	varRoot:      "protectRoot",
	varGitdir:    "protectGitdir",
	varGitfile:   "protectGitfile",
	varHooksPath: "protectHooksPath",
	varInclude:   "protectGitInclude",
	varHostCfg:   "protectGitHostConfig",
	varGitKey:    "protectGitKey",
}

// emitProtect renders the protect section as the protectedPaths array and
// its element type.
func emitProtect(f *jen.File, rows []ProtectEntry) {
	f.Comment("protectedPaths stay read-only inside each writable root; a missing one")
	f.Comment("gets a read-only empty placeholder for the run, unless skipMissing.")
	f.Var().Id("protectedPaths").Op("=").Index(jen.Op("...")).Id("protectedPath").ValuesFunc(func(g *jen.Group) {
		for _, e := range rows {
			base, rel := e.Path, ""
			if b, r, ok := strings.Cut(e.Path, "/"); ok {
				base, rel = b, r
			}
			fields := []jen.Code{jen.Id("id").Op(":").Lit(e.ID), jen.Id("base").Op(":").Id(protectBaseIdent[base])}
			if rel != "" {
				fields = append(fields, jen.Id("path").Op(":").Lit(rel))
			}
			if len(e.Keys) > 0 {
				var ks []jen.Code
				for _, k := range e.Keys {
					ks = append(ks, jen.Lit(strings.ToLower(k)))
				}
				fields = append(fields, jen.Id("keys").Op(":").Index().String().Values(ks...))
			}
			if len(e.Env) > 0 {
				var vs []jen.Code
				for _, v := range e.Env {
					vs = append(vs, jen.Lit(v))
				}
				fields = append(fields, jen.Id("env").Op(":").Index().String().Values(vs...))
			}
			if e.Value != "" {
				fields = append(fields, jen.Id("value").Op(":").Id(gitKeyValues[e.Value]), jen.Id("rel").Op(":").Id(gitKeyBases[e.RelativeTo]))
			}
			if e.IfMissing == "skip" {
				fields = append(fields, jen.Id("skipMissing").Op(":").True())
			}
			if e.Unless != "" {
				fields = append(fields, jen.Id("unless").Op(":").Id(protectOptOuts[e.Unless]))
			}
			g.Line().Values(fields...)
		}
		g.Line()
	})
	f.Comment("protectedPath is one row of the protect section: path relative to base,")
	f.Comment("or base alone; the row is dropped when the opt-out unless names is set.")
	f.Comment("A protectGitKey row protects what its git keys (lower-cased) and")
	f.Comment("variables name, read as value says, relative to rel.")
	f.Type().Id("protectedPath").Struct(
		jen.Id("id").String(),
		jen.Id("base").Id("protectBase"),
		jen.Id("path").String(),
		jen.Id("keys").Index().String(),
		jen.Id("env").Index().String(),
		jen.Id("value").Id("gitValue"),
		jen.Id("rel").Id("gitRel"),
		jen.Id("skipMissing").Bool(),
		jen.Id("unless").Id("protectOptOut"),
	)
}

// protectShown is a protect row's path as the rule table and POLICY.md
// show it: a $gitkey row with its keys, variables and how git reads them.
func protectShown(e ProtectEntry) string {
	if e.Path != varGitKey {
		return e.Path
	}
	names := append(append([]string{}, e.Keys...), e.Env...)
	return e.Path + " " + strings.Join(names, ", ") + " (" + e.Value + ", relative to " + e.RelativeTo + ")"
}

// protectRuleWhen is the condition of a protect row as the rule table shows it.
func protectRuleWhen(e ProtectEntry) string {
	var w []string
	if e.IfMissing == "skip" {
		w = append(w, "exists")
	}
	if e.Unless != "" {
		w = append(w, "not "+e.Unless)
	}
	return strings.Join(w, ", ")
}
