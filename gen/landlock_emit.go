package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/sandtable/sandtable/internal/landlock"
)

// landlockSetOrder is the order of the llSet constants.
var landlockSetOrder = []string{"root", "hidden", "cache-root", "redacted", "read", "workspace", "write", "caches", "tmpdir", "terminals", "protected", "paths"}

func goSet(word string) string { return landlockSets[word].goName }

func rightsLit(words []string) *jen.Statement {
	a, _ := parseRights(words)
	return jen.Lit(uint64(a))
}

func nrLit(nr [4]uint32) jen.Code {
	return jen.Index(jen.Lit(4)).Uint32().ValuesFunc(func(g *jen.Group) {
		for _, n := range nr {
			g.Lit(int(n))
		}
	})
}

func u32s(words []string, vocab map[string]uint32) jen.Code {
	return jen.Index().Uint32().ValuesFunc(func(g *jen.Group) {
		for _, w := range words {
			g.Lit(int(vocab[w]))
		}
	})
}

// emitLandlock renders the landlock section and the landlock column as
// the tables the reduced backend reads (backend_landlock*.go).
func emitLandlock(f *jen.File, p *Platform) {
	f.Comment("llSet is a set of the plan's paths a landlock grant row names.")
	f.Type().Id("llSet").Uint8()
	f.Const().DefsFunc(func(g *jen.Group) {
		for i, w := range landlockSetOrder {
			if i == 0 {
				g.Id(goSet(w)).Id("llSet").Op("=").Iota().Comment(landlockSets[w].what)
			} else {
				g.Id(goSet(w)).Comment(landlockSets[w].what)
			}
		}
	})
	f.Comment("landlockGrant is one grant row: the rights (landlock.AccessFS) a set of")
	f.Comment("the plan's paths, or constant paths, gets.")
	f.Type().Id("landlockGrant").Struct(
		jen.Id("rule").String(),
		jen.Id("set").Id("llSet"),
		jen.Id("paths").Index().String(),
		jen.Id("rights").Uint64(),
	)
	f.Comment("landlockNetRow is one network row: in mode, the network rights the")
	f.Comment("ruleset restricts, and whether connect is allowed to the proxy's port.")
	f.Type().Id("landlockNetRow").Struct(
		jen.Id("rule").String(),
		jen.Id("mode").Id("NetworkMode"),
		jen.Id("handled").Uint64(),
		jen.Id("connectProxy").Bool(),
	)
	f.Comment("landlockRedirect is one redirect row: the redact row whose file's")
	f.Comment("copy the helper writes to the run's TMPDIR, and the variable naming it.")
	f.Type().Id("landlockRedirect").Struct(
		jen.Id("rule").String(),
		jen.Id("redact").String(),
		jen.Id("env").String(),
	)
	f.Comment("backendColRow is one row's landlock column: how the reduced backend")
	f.Comment("keeps the row's guarantee (kept, weaker or lost) and why.")
	f.Type().Id("backendColRow").Struct(
		jen.Id("rule").String(),
		jen.Id("enforce").String(),
		jen.Id("why").String(),
	)

	var handled uint64
	var scoped uint64
	var scopeRule, protectDefault string
	var grants, nets, seccomp, redirects []jen.Code
	protects := jen.Dict{}
	does := jen.Dict{}
	for _, e := range p.Landlock {
		switch e.Kind() {
		case "handles":
			a, _ := parseRights(e.Handles)
			handled = uint64(a)
		case "grant":
			v := []jen.Code{jen.Id("rule").Op(":").Lit(e.ID)}
			if e.Paths != nil {
				v = append(v, jen.Id("set").Op(":").Id(goSet("paths")), jen.Id("paths").Op(":").Index().String().ValuesFunc(func(g *jen.Group) {
					for _, path := range e.Paths {
						g.Lit(path)
					}
				}))
			} else {
				v = append(v, jen.Id("set").Op(":").Id(goSet(e.For)))
			}
			v = append(v, jen.Id("rights").Op(":").Add(rightsLit(e.Grant)))
			grants = append(grants, jen.Line().Comment(e.ID+": "+strings.Join(e.Grant, ", ")).Line().Values(v...))
		case "network":
			a, _ := landlock.ParseNet(strings.Join(e.HandlesNet, ","))
			nets = append(nets, jen.Line().Values(
				jen.Id("rule").Op(":").Lit(e.ID),
				jen.Id("mode").Op(":").Id(landlockNetworkModes[e.Network]),
				jen.Id("handled").Op(":").Lit(uint64(a)),
				jen.Id("connectProxy").Op(":").Lit(e.Connect == "proxy"),
			))
		case "scopes":
			s, _ := landlock.ParseScope(strings.Join(e.Scopes, ","))
			scoped, scopeRule = uint64(s), e.ID
		case "refuse-socket", "refuse-syscall", "refuse-clone":
			v := []jen.Code{jen.Id("Rule").Op(":").Lit(e.ID)}
			switch e.Kind() {
			case "refuse-socket":
				v = append(v, jen.Id("Kind").Op(":").Qual(seccompPkg, "RefuseSocket"), jen.Id("Families").Op(":").Add(u32s(e.RefuseSocket, socketFamilies)))
				if e.KeepTypes != nil {
					v = append(v, jen.Id("KeepTypes").Op(":").Add(u32s(e.KeepTypes, socketTypes)))
				}
				if e.KeepProtocols != nil {
					v = append(v, jen.Id("KeepProtocols").Op(":").Add(u32s(e.KeepProtocols, socketProtocols)))
				}
				v = append(v, jen.Id("Nr").Op(":").Add(nrLit(landlockArgCalls["socket"])))
			case "refuse-syscall":
				nr, ok := landlockSyscalls[e.RefuseSyscall]
				if !ok {
					nr = seccompSyscalls[e.RefuseSyscall]
				}
				v = append(v, jen.Id("Kind").Op(":").Qual(seccompPkg, "RefuseSyscall"), jen.Id("Nr").Op(":").Add(nrLit(nr)))
			case "refuse-clone":
				var flags uint32
				for _, w := range e.RefuseClone {
					flags |= cloneFlags[w]
				}
				v = append(v, jen.Id("Kind").Op(":").Qual(seccompPkg, "RefuseClone"), jen.Id("Nr").Op(":").Add(nrLit(landlockArgCalls["clone"])), jen.Id("Flags").Op(":").Lit(int(flags)))
			}
			v = append(v, jen.Id("Errno").Op(":").Lit(int(landlockErrnos[e.errnoName()])))
			seccomp = append(seccomp, jen.Line().Comment(e.ID+": "+e.What()).Line().Values(v...))
		case "protect":
			protects[jen.Lit(e.Protect)] = jen.Lit(e.ID)
			if e.Default {
				protectDefault = e.Protect
			}
		case "does":
			does[jen.Lit(e.Does)] = jen.Lit(e.ID)
		case "redirect":
			redirects = append(redirects, jen.Line().Values(jen.Id("rule").Op(":").Lit(e.ID), jen.Id("redact").Op(":").Lit(e.Redirect), jen.Id("env").Op(":").Lit(e.Env)))
		}
	}
	f.Comment("landlockHandled are the file system rights the ruleset restricts.")
	f.Const().Id("landlockHandled").Op("=").Lit(handled)
	f.Comment("landlockScoped are the scopes of the domain, from landlockScopeRule.")
	f.Const().Id("landlockScoped").Op("=").Lit(scoped)
	f.Const().Id("landlockScopeRule").Op("=").Lit(scopeRule)
	f.Comment("landlockProtectDefault is the protect mode a spawn takes.")
	f.Const().Id("landlockProtectDefault").Op("=").Lit(protectDefault)
	f.Comment("landlockGrants are the grant rows, in table order.")
	f.Var().Id("landlockGrants").Op("=").Index(jen.Op("...")).Id("landlockGrant").Values(append(grants, jen.Line())...)
	f.Comment("landlockNetRows are the network rows, in table order.")
	f.Var().Id("landlockNetRows").Op("=").Index(jen.Op("...")).Id("landlockNetRow").Values(append(nets, jen.Line())...)
	f.Comment("landlockSeccompRows are the refuse rows, in table order.")
	f.Var().Id("landlockSeccompRows").Op("=").Index(jen.Op("...")).Qual(seccompPkg, "ReducedRow").Values(append(seccomp, jen.Line())...)
	f.Comment("landlockRedirects are the redirect rows, in table order.")
	f.Var().Id("landlockRedirects").Op("=").Index(jen.Op("...")).Id("landlockRedirect").Values(append(redirects, jen.Line())...)
	f.Comment("landlockProtectRows name each protect mode's row.")
	f.Var().Id("landlockProtectRows").Op("=").Map(jen.String()).String().Values(protects)
	f.Comment("landlockDoesRows name the row of each step of the helper.")
	f.Var().Id("landlockDoesRows").Op("=").Map(jen.String()).String().Values(does)
	f.Comment("backendColumn is every linux row's landlock column, in table order.")
	f.Var().Id("backendColumn").Op("=").Index(jen.Op("...")).Id("backendColRow").ValuesFunc(func(g *jen.Group) {
		add := func(id string, c *BackendCol) {
			if c != nil {
				g.Line().Values(jen.Id("rule").Op(":").Lit(id), jen.Id("enforce").Op(":").Lit(c.Enforce), jen.Id("why").Op(":").Lit(oneLine(c.Why)))
			}
		}
		for _, r := range p.Rules {
			add(r.ID, r.Landlock)
		}
		for _, e := range p.Seccomp {
			add(e.ID, e.Landlock)
		}
		for _, e := range p.Limits {
			add(e.ID, e.Landlock)
		}
		for _, e := range p.Watch {
			add(e.ID, e.Landlock)
		}
		g.Line()
	})
}
