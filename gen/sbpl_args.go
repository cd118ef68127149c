package gen

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
)

// A darwin rule with args is an option of sandbox-exec itself rather than
// an SBPL form: the inline profile, and the -- that ends the options so a
// command whose name starts with - is never read as one.

// sandboxExecFlags are the options a darwin args rule may name, with the
// number of operands each takes.
var sandboxExecFlags = map[string]int{"-p": 1, "--": 0}

// varProfile is the generated profile, the operand of -p.
const varProfile = "$profile"

// checkDarwinArgs checks one args rule: known options, their operands,
// and no SBPL or iteration alongside.
func checkDarwinArgs(c *errs, r *Rule) {
	if r.Action != "" || len(r.Filters) > 0 || r.For != "" || len(r.When) > 0 {
		c.at(r.ArgsPos, r.ID, "args: a sandbox-exec option takes no version, allow, deny, filters, for or when (want args alone)")
	}
	for i := 0; i < len(r.Args); {
		n, ok := sandboxExecFlags[r.Args[i]]
		if !ok {
			c.at(r.ArgsPos, r.ID, "args: %q is not a sandbox-exec option the table knows (want -p %s or --)", r.Args[i], varProfile)
			return
		}
		if i+1+n > len(r.Args) {
			c.at(r.ArgsPos, r.ID, "args: %s takes %d operand(s) (want %d after it)", r.Args[i], n, n)
			return
		}
		if r.Args[i] == "-p" && r.Args[i+1] != varProfile {
			c.at(r.ArgsPos, r.ID, "args: -p takes the generated profile (want -p %s, got %q)", varProfile, r.Args[i+1])
		}
		i += 1 + n
	}
}

// darwinArgRules are the args rules in table order.
func darwinArgRules(p *Platform) []*Rule {
	var out []*Rule
	for _, r := range p.Rules {
		if len(r.Args) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// checkDarwinArgsOrder wants the profile passed once and -- as the last
// option, alone in its rule.
func checkDarwinArgsOrder(c *errs, p *Platform) {
	rs := darwinArgRules(p)
	profiles := 0
	for _, r := range rs {
		profiles += strings.Count(" "+strings.Join(r.Args, " ")+" ", " -p ")
	}
	if profiles != 1 {
		c.at(p.Pos, "", "darwin: the profile is passed %d times (want one rule with args: [-p, %s])", profiles, varProfile)
	}
	if len(rs) == 0 || !slices.Equal(rs[len(rs)-1].Args, []string{"--"}) {
		c.at(p.Pos, "", "darwin: the last args rule must be [--], or a command named -x is read as an option of sandbox-exec (want a rule with args: [--] after the others)")
		return
	}
	for _, r := range rs[:len(rs)-1] {
		if slices.Contains(r.Args, "--") {
			c.at(r.ArgsPos, r.ID, "args: -- before the last args rule would end sandbox-exec's options early (want -- in the last one only)")
		}
	}
}

// emitDarwinArgs writes darwinArgs, sandbox-exec's options for a profile.
func emitDarwinArgs(f *jen.File, p *Platform) {
	f.Comment("darwinArgs returns sandbox-exec's options for profile, the command's name")
	f.Comment("and arguments to follow them.")
	f.Func().Id("darwinArgs").Params(jen.Id("profile").String()).Index().String().BlockFunc(func(g *jen.Group) {
		var vals []jen.Code
		for _, r := range darwinArgRules(p) {
			for i, a := range r.Args {
				v := jen.Lit(a)
				if a == varProfile {
					v = jen.Id("profile")
				}
				if i == len(r.Args)-1 {
					v = jen.Add(v).Op(",").Comment(r.ID)
				} else {
					v = jen.Add(v).Op(",")
				}
				vals = append(vals, jen.Line().Add(v))
			}
		}
		g.Return(jen.Index().String().Custom(jen.Options{Open: "{", Close: "}", Multi: false}, append(vals, jen.Line())...))
	})
}

// sbplRules are the rules that emit SBPL forms: all but the args rules.
func sbplRules(p *Platform) []*Rule {
	out := make([]*Rule, 0, len(p.Rules))
	for _, r := range p.Rules {
		if len(r.Args) == 0 {
			out = append(out, r)
		}
	}
	return out
}

// darwinArgsReach judges a changed sandbox-exec option: without the --
// that ends the options a command can pass its own, which is wider.
func darwinArgsReach(o, n *Rule) reach {
	had, has := slices.Contains(o.Args, "--"), slices.Contains(n.Args, "--")
	if had == has {
		return reach{unknown: true}
	}
	return reach{wider: had, narrower: has}
}
