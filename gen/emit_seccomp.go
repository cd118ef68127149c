package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// seccompPkg assembles the filters from the rows emitted here.
const seccompPkg = "github.com/sandtable/sandtable/internal/seccomp"

// emitSeccomp renders the linux table's seccomp section as the rows
// internal/seccomp assembles the filter from, each entry under a comment
// naming its id, like every emitted statement.
func emitSeccomp(f *jen.File, p *Platform) {
	f.Comment("seccompSyscalls are the system calls the seccomp filter refuses, numbered")
	f.Comment("for x86-64, i386, aarch64 and arm, in that order, each with the errno it")
	f.Comment("returns.")
	f.Var().Id("seccompSyscalls").Op("=").Index(jen.Op("...")).Qual(seccompPkg, "Syscall").ValuesFunc(func(g *jen.Group) {
		for _, e := range p.Seccomp {
			if e.Syscall == "" {
				continue
			}
			nr := seccompSyscalls[e.Syscall]
			g.Line().Comment(e.ID).Line().Values(
				jen.Id("Rule").Op(":").Lit(e.ID),
				jen.Id("Name").Op(":").Lit(e.Syscall),
				jen.Id("Nr").Op(":").Index(jen.Lit(4)).Uint32().Values(jen.Lit(int(nr[0])), jen.Lit(int(nr[1])), jen.Lit(int(nr[2])), jen.Lit(int(nr[3]))),
				errnoField(e),
			)
		}
		g.Line()
	})
	f.Comment("seccompModeCalls are the system calls the seccomp filter refuses when they")
	f.Comment("would set the setuid or setgid bit, numbered as seccompSyscalls")
	f.Comment("(0xffffffff where the ABI lacks the call).")
	f.Var().Id("seccompModeCalls").Op("=").Index(jen.Op("...")).Qual(seccompPkg, "ModeCall").ValuesFunc(func(g *jen.Group) {
		for _, e := range p.Seccomp {
			if e.SetidMode == "" {
				continue
			}
			c := seccompModeCalls[e.SetidMode]
			nrs := make([]jen.Code, 4)
			for i, n := range c.nr {
				nrs[i] = jen.Op(fmt.Sprint(n))
				if n == noSyscall {
					nrs[i] = jen.Op("0xffffffff")
				}
			}
			g.Line().Comment(e.ID).Line().Values(
				jen.Id("Rule").Op(":").Lit(e.ID),
				jen.Id("Name").Op(":").Lit(e.SetidMode),
				jen.Id("Nr").Op(":").Index(jen.Lit(4)).Uint32().Values(nrs...),
				jen.Id("Mode").Op(":").Lit(c.mode),
				jen.Id("Flags").Op(":").Lit(c.flags),
				errnoField(e),
			)
		}
		g.Line()
	})
	emitSeccompFamilies(f, p)
	f.Comment("seccompIoctls are the ioctl requests the seccomp filter refuses.")
	f.Var().Id("seccompIoctls").Op("=").Index(jen.Op("...")).Qual(seccompPkg, "Ioctl").ValuesFunc(func(g *jen.Group) {
		for _, e := range p.Seccomp {
			if e.Ioctl == "" {
				continue
			}
			g.Line().Comment(e.ID).Line().Values(
				jen.Id("Rule").Op(":").Lit(e.ID),
				jen.Id("Name").Op(":").Lit(e.Ioctl),
				jen.Id("Request").Op(":").Op(fmt.Sprintf("%#04x", seccompIoctls[e.Ioctl])),
				errnoField(e),
			)
		}
		g.Line()
	})
}

// errnoField is the errno an entry's refusal returns, by number: the same
// on every ABI the filter knows.
func errnoField(e SeccompEntry) jen.Code {
	return jen.Id("Errno").Op(":").Lit(int(seccompErrnos[e.ErrnoName()].nr))
}
