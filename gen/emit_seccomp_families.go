package gen

import "github.com/dave/jennifer/jen"

// emitSeccompFamilies renders the keep-families entries: the socket calls
// whose family is checked, numbered as seccompSyscalls, the families that
// pass, and the errno every other family gets.
func emitSeccompFamilies(f *jen.File, p *Platform) {
	f.Comment("seccompFamilies are the table's keep-families entries: socket(2) and")
	f.Comment("socketpair(2) fail for every address family but those kept.")
	f.Var().Id("seccompFamilies").Op("=").Index(jen.Op("...")).Qual(seccompPkg, "FamilyRule").ValuesFunc(func(g *jen.Group) {
		for _, e := range p.Seccomp {
			if e.KeepFamilies == nil {
				continue
			}
			var calls, keep, names []jen.Code
			for _, name := range familyCallOrder {
				nr := seccompFamilyCalls[name]
				calls = append(calls, jen.Values(jen.Lit(int(nr[0])), jen.Lit(int(nr[1])), jen.Lit(int(nr[2])), jen.Lit(int(nr[3]))))
			}
			for _, fam := range e.KeepFamilies {
				keep = append(keep, jen.Lit(int(socketFamilies[fam])))
				names = append(names, jen.Lit(fam))
			}
			g.Line().Comment(e.ID).Line().Values(
				jen.Id("Rule").Op(":").Lit(e.ID),
				jen.Id("Names").Op(":").Index().String().Values(names...),
				jen.Id("Calls").Op(":").Index(jen.Lit(2)).Index(jen.Lit(4)).Uint32().Values(calls...),
				jen.Id("Keep").Op(":").Index().Uint32().Values(keep...),
				errnoField(e),
			)
		}
		g.Line()
	})
}
