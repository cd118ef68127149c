package gen

import (
	"slices"

	"github.com/dave/jennifer/jen"
)

// emitLinux writes the bwrap builders: linuxMounts collects the mount group,
// linuxArgs builds the argv with one exact-size allocation, and linuxSteps
// builds the same argv grouped by rule for explain.
func emitLinux(f *jen.File, p *Platform) {
	f.Const().Id("linuxProgram").Op("=").Lit(p.Program).Comment("program")
	f.Line()
	f.Comment("Table indices of the linux mount-group rules, for mount.rule.")
	f.Const().DefsFunc(func(g *jen.Group) {
		for i, r := range p.Rules {
			if r.Group != "" {
				g.Id(mountConst(r)).Op("=").Lit(i).Comment(r.ID)
			}
		}
	})
	emitLinuxMounts(f, p)
	emitLinuxArgs(f, p)
	emitLinuxSteps(f, p)
}

func mountConst(r *Rule) string { return "linuxRule" + camel(r.ID) }

// linuxOperand is the Go value of one bwrap operand. Inside the mount group
// the destination is the entry's path; elsewhere $path is the loop's item.
func linuxOperand(r *Rule, a string, inGroup bool) jen.Code {
	switch a {
	case varWorkspace:
		if inGroup && r.For == "" {
			return jen.Id("m").Dot("path")
		}
		return jen.Id("p").Dot("workspace")
	case varPath:
		if inGroup {
			return jen.Id("m").Dot("path")
		}
		return jen.Id("f").Dot("path")
	case varTarget:
		if inGroup {
			return jen.Id("m").Dot("target")
		}
		return jen.Id("f").Dot("target")
	case varNullFD:
		return jen.Id("p").Dot("nullFD")
	case varRedactFD:
		if inGroup {
			return jen.Id("redactFD").Call(jen.Id("p"), jen.Id("m").Dot("path"))
		}
		return jen.Id("f").Dot("fd")
	case varSeccompFD:
		return jen.Id("p").Dot("seccompFD")
	case varStatusFD:
		return jen.Id("p").Dot("statusFD")
	case varResolvFD:
		return jen.Id("p").Dot("resolvFD")
	}
	if c := limitOperand(a); c != nil {
		return c
	}
	return jen.Lit(a)
}

// emitArgsRule is the emitter of the bwrap rule kind: one append of the
// rule's flag and operands, either to the argv or as a Step.
func emitArgsRule(r *Rule, inGroup, steps bool) jen.Code {
	vals := make([]jen.Code, len(r.Args))
	for i, a := range r.Args {
		vals[i] = linuxOperand(r, a, inGroup)
	}
	if steps {
		step := jen.Id("Step").Values(jen.Id("Rule").Op(":").Lit(r.ID), jen.Id("Args").Op(":").Index().String().Values(vals...))
		return jen.Id("s").Op("=").Append(jen.Id("s"), step).Comment(r.ID)
	}
	return jen.Id("a").Op("=").Append(append([]jen.Code{jen.Id("a")}, vals...)...).Comment(r.ID)
}

func emitLinuxMounts(f *jen.File, p *Platform) {
	f.Comment("linuxMounts appends the mount group's entries in table order, rule by rule")
	f.Comment("and item by item, with every condition applied. sortMounts then orders")
	f.Comment("them by depth, keeping this order on ties.")
	f.Func().Id("linuxMounts").Params(jen.Id("p").Op("*").Id("plan"), jen.Id("dst").Index().Id("mount")).Index().Id("mount").BlockFunc(func(g *jen.Group) {
		for _, r := range p.Rules {
			if r.Group == "" {
				continue
			}
			path := jen.Id("p").Dot("workspace")
			if r.For != "" {
				path = jen.Id("f").Dot("path")
			}
			fields := []jen.Code{jen.Id("rule").Op(":").Id(mountConst(r)), jen.Id("path").Op(":").Add(path)}
			if slices.Contains(r.Args, varTarget) {
				fields = append(fields, jen.Id("target").Op(":").Id("f").Dot("target"))
			}
			add := jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Id("mount").Values(fields...)).Comment(r.ID)
			for _, s := range guard(condExpr(r.When, true), loop(r, true, add)...) {
				g.Add(s)
			}
		}
		g.Return(jen.Id("dst"))
	})
}

func emitLinuxArgs(f *jen.File, p *Platform) {
	f.Comment("linuxArgCount is the length of linuxArgs(p), counted without building it:")
	f.Comment("the refuse section's bwrap-argv input.")
	f.Func().Id("linuxArgCount").Params(jen.Id("p").Op("*").Id("plan")).Int().BlockFunc(func(g *jen.Group) {
		fixed := 0
		var counts []jen.Code
		groupDone := false
		for _, r := range p.Rules {
			switch {
			case r.Group != "":
				if !groupDone {
					counts = append(counts, mountCount(p))
					groupDone = true
				}
			case r.For == "" && len(r.When) == 0:
				fixed += len(r.Args)
			default:
				inc := jen.Id("n").Op("+=").Lit(len(r.Args)).Comment(r.ID)
				counts = append(counts, guard(condExpr(r.When, true), loop(r, false, inc)...)...)
			}
		}
		g.Id("n").Op(":=").Lit(fixed).Comment("the unconditional rules")
		for _, c := range counts {
			g.Add(c)
		}
		g.Return(jen.Id("n"))
	})
	f.Comment("linuxArgs returns bwrap's argv after the program name, ending in \"--\",")
	f.Comment("in one allocation of exactly the size it needs.")
	f.Func().Id("linuxArgs").Params(jen.Id("p").Op("*").Id("plan")).Index().String().BlockFunc(func(g *jen.Group) {
		g.Id("a").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Id("linuxArgCount").Call(jen.Id("p")))
		linuxBody(g, p, false)
		g.Return(jen.Id("a"))
	})
}

// mountCount adds up the mount group's arguments, one switch over rules
// that share an argument count.
func mountCount(p *Platform) jen.Code {
	byCount := map[int][]jen.Code{}
	var order []int
	for _, r := range p.Rules {
		if r.Group == "" {
			continue
		}
		if _, ok := byCount[len(r.Args)]; !ok {
			order = append(order, len(r.Args))
		}
		byCount[len(r.Args)] = append(byCount[len(r.Args)], jen.Id(mountConst(r)))
	}
	return jen.For(jen.Id("i").Op(":=").Range().Id("p").Dot("mounts")).Block(
		jen.Switch(jen.Id("p").Dot("mounts").Index(jen.Id("i")).Dot("rule")).BlockFunc(func(g *jen.Group) {
			for _, n := range order {
				g.Case(byCount[n]...).Id("n").Op("+=").Lit(n)
			}
		}))
}

// linuxBody emits every rule in table order; the mount group becomes one
// loop over plan.mounts at the position of its first rule.
func linuxBody(g *jen.Group, p *Platform, steps bool) {
	groupDone := false
	for _, r := range p.Rules {
		if r.Group != "" {
			if groupDone {
				continue
			}
			groupDone = true
			g.For(jen.List(jen.Id("_"), jen.Id("m")).Op(":=").Range().Id("p").Dot("mounts")).Block(
				jen.Switch(jen.Id("m").Dot("rule")).BlockFunc(func(sw *jen.Group) {
					for _, gr := range p.Rules {
						if gr.Group != "" {
							sw.Case(jen.Id(mountConst(gr))).Add(emitArgsRule(gr, true, steps))
						}
					}
				}))
			continue
		}
		for _, s := range guard(condExpr(r.When, true), loop(r, usesPath(r), emitArgsRule(r, false, steps))...) {
			g.Add(s)
		}
	}
}

func emitLinuxSteps(f *jen.File, p *Platform) {
	f.Comment("linuxSteps is linuxArgs grouped by the rule that emitted each part.")
	f.Func().Id("linuxSteps").Params(jen.Id("p").Op("*").Id("plan")).Index().Id("Step").BlockFunc(func(g *jen.Group) {
		g.Var().Id("s").Index().Id("Step")
		linuxBody(g, p, true)
		g.Return(jen.Id("s"))
	})
}
