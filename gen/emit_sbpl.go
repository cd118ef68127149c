package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// part is a piece of SBPL text: a constant, or a variable's value.
type part struct {
	text string
	v    string // $workspace or $path; text is then the variable's name
}

// sbplForms renders a rule as SBPL forms built from its structure: one form
// per operation, each filter a quoted string the path validator vetted.
// Several filters go one to a line, as a reviewer reads them.
func sbplForms(r *Rule) [][]part {
	if r.Action == "version" {
		return [][]part{{{text: "(version 1)\n"}}}
	}
	var forms [][]part
	for _, op := range r.Ops {
		form := []part{{text: "(" + r.Action + " " + op}}
		sep := " "
		if len(r.Filters) > 1 {
			sep = "\n    "
		}
		for _, fl := range r.Filters {
			form = append(append(form, part{text: sep}), filterParts(fl)...)
		}
		forms = append(forms, merge(append(form, part{text: ")\n"})))
	}
	return forms
}

// merge joins adjacent constants, so each becomes one WriteString.
func merge(ps []part) []part {
	var out []part
	for _, p := range ps {
		if n := len(out); n > 0 && p.v == "" && out[n-1].v == "" {
			out[n-1].text += p.text
			continue
		}
		out = append(out, p)
	}
	return out
}

func darwinVar(v string) *jen.Statement {
	switch v {
	case varWorkspace:
		return jen.Id("p").Dot("workspace")
	case varHome:
		return jen.Id("p").Dot("home")
	case varHomeRegex:
		return jen.Id("p").Dot("homeRegex")
	case varProxyPort:
		return jen.Id("p").Dot("proxyPort")
	case varFoldedPath:
		return jen.Id("f").Dot("folded")
	case varTmpdir:
		return jen.Id("p").Dot("tmpdir")
	}
	return jen.Id("f").Dot("path")
}

// emitDarwin writes the Seatbelt builders: darwinProfile builds the profile
// in one exact-size allocation, darwinSteps the same forms grouped by rule.
func emitDarwin(f *jen.File, p *Platform) {
	f.Const().Id("darwinProgram").Op("=").Lit(p.Program).Comment("program")
	f.Line()
	f.Comment("darwinProfile returns the SBPL profile in one allocation of exactly the")
	f.Comment("size it needs.")
	f.Func().Id("darwinProfile").Params(jen.Id("p").Op("*").Id("plan")).String().BlockFunc(func(g *jen.Group) {
		fixed := 0
		var wsFixed int
		var wsIDs []string
		var counts []jen.Code
		for _, r := range sbplRules(p) {
			consts, vars := 0, []jen.Code{}
			for _, form := range sbplForms(r) {
				for _, pt := range form {
					if pt.v == "" {
						consts += len(pt.text)
					} else {
						vars = append(vars, jen.Len(darwinVar(pt.v)))
					}
				}
			}
			if r.For == "" && len(r.When) == 0 {
				fixed += consts
				wsFixed += len(vars)
				if len(vars) > 0 {
					wsIDs = append(wsIDs, r.ID)
				}
				continue
			}
			sum := jen.Lit(consts)
			for _, v := range vars {
				sum = sum.Op("+").Add(v)
			}
			inc := jen.Id("n").Op("+=").Add(sum).Comment(r.ID)
			counts = append(counts, guard(condExpr(r.When, true), loop(r, usesPath(r), inc)...)...)
		}
		g.Id("n").Op(":=").Lit(fixed).Comment("the unconditional rules")
		if wsFixed > 0 {
			g.Id("n").Op("+=").Lit(wsFixed).Op("*").Len(jen.Id("p").Dot("workspace")).Comment(strings.Join(wsIDs, ", "))
		}
		for _, c := range counts {
			g.Add(c)
		}
		g.Var().Id("b").Qual("strings", "Builder")
		g.Id("b").Dot("Grow").Call(jen.Id("n"))
		// Constant text of consecutive unconditional rules is written in one
		// call, its comment naming every rule it holds: a dozen calls fewer
		// on every spawn, still traceable to the table.
		var pending string
		var pendingIDs []string
		flush := func() {
			if pending != "" {
				g.Id("b").Dot("WriteString").Call(jen.Lit(pending)).Comment(strings.Join(pendingIDs, ", "))
			}
			pending, pendingIDs = "", nil
		}
		for _, r := range sbplRules(p) {
			plain := r.For == "" && len(r.When) == 0
			var writes []jen.Code
			var parts []part
			for _, form := range sbplForms(r) {
				parts = append(parts, form...)
			}
			for _, pt := range merge(parts) {
				switch {
				case plain && pt.v == "":
					pending += pt.text
					if len(pendingIDs) == 0 || pendingIDs[len(pendingIDs)-1] != r.ID {
						pendingIDs = append(pendingIDs, r.ID)
					}
				case plain:
					flush()
					g.Id("b").Dot("WriteString").Call(darwinVar(pt.v)).Comment(r.ID)
				case pt.v == "":
					writes = append(writes, jen.Id("b").Dot("WriteString").Call(jen.Lit(pt.text)).Comment(r.ID))
				default:
					writes = append(writes, jen.Id("b").Dot("WriteString").Call(darwinVar(pt.v)).Comment(r.ID))
				}
			}
			if plain {
				continue
			}
			flush()
			for _, s := range guard(condExpr(r.When, true), loop(r, usesPath(r), writes...)...) {
				g.Add(s)
			}
		}
		flush()
		g.Return(jen.Id("b").Dot("String").Call())
	})

	f.Comment("darwinSteps is darwinProfile grouped by the rule that emitted each form.")
	f.Func().Id("darwinSteps").Params(jen.Id("p").Op("*").Id("plan")).Index().Id("Step").BlockFunc(func(g *jen.Group) {
		g.Var().Id("s").Index().Id("Step")
		for _, r := range sbplRules(p) {
			var forms []jen.Code
			for _, form := range sbplForms(r) {
				var expr *jen.Statement
				for _, pt := range form {
					arg := jen.Lit(pt.text)
					if pt.v != "" {
						arg = darwinVar(pt.v)
					}
					if expr == nil {
						expr = jen.Add(arg)
					} else {
						expr = expr.Op("+").Add(arg)
					}
				}
				forms = append(forms, expr)
			}
			step := jen.Id("Step").Values(jen.Id("Rule").Op(":").Lit(r.ID), jen.Id("Args").Op(":").Index().String().Values(forms...))
			add := jen.Id("s").Op("=").Append(jen.Id("s"), step).Comment(r.ID)
			for _, s := range guard(condExpr(r.When, true), loop(r, usesPath(r), add)...) {
				g.Add(s)
			}
		}
		g.Return(jen.Id("s"))
	})
}
