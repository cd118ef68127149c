package gen

import (
	"bytes"
	"net/netip"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// ProxyRefuse is one row of the proxy-refuse section (rules/common.yaml):
// an address range network mode's proxy refuses to dial unless a
// destination in it is listed exactly.
type ProxyRefuse struct {
	Pos  Pos
	ID   string
	CIDR string
	Why  string
}

var proxyRefuseKeys = []string{"id", "cidr", "why"}

var proxyRefuseWant = map[string]string{
	"id":   "a unique kebab-case id",
	"cidr": "an address range as ADDRESS/BITS, IPv4 or IPv6",
	"why":  "the reason a reviewer reads",
}

// proxyRefuse reads the proxy-refuse section: {id, cidr, why} rows.
func (l *loader) proxyRefuse(n *yaml.Node) []ProxyRefuse {
	if !l.kind(n, yaml.SequenceNode, "", "proxy-refuse") {
		return nil
	}
	var out []ProxyRefuse
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "proxy-refuse entry") {
			continue
		}
		en := ProxyRefuse{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "proxy-refuse: id")
		}
		l.keys(e, en.ID, proxyRefuseKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "cidr":
				en.CIDR, _ = l.str(v, en.ID, "cidr")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range proxyRefuseKeys[:2] { // a missing why is checkWhy's
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "proxy-refuse: missing key %s (want %s)", key, proxyRefuseWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

// checkProxyRefuse checks the proxy-refuse section: unique ids, each
// range parsed and written in its canonical form (its address the first
// of the range), and no range twice.
func checkProxyRefuse(c *errs, cm *Common, local, ids map[string]Pos) {
	seen := map[netip.Prefix]Pos{}
	for _, e := range cm.ProxyRefuse {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.CIDR == "" {
			continue
		}
		p, err := netip.ParsePrefix(e.CIDR)
		switch {
		case err != nil:
			c.at(e.Pos, e.ID, "cidr %q: %v (want ADDRESS/BITS, as 10.0.0.0/8 or fc00::/7)", e.CIDR, err)
		case p.Addr().Zone() != "":
			c.at(e.Pos, e.ID, "cidr %q: a zone names no range (want ADDRESS/BITS without %%zone)", e.CIDR)
		case p.Masked() != p || p.String() != e.CIDR:
			c.at(e.Pos, e.ID, "cidr %q: not in its canonical form (want %q)", e.CIDR, p.Masked().String())
		default:
			if prev, dup := seen[p]; dup {
				c.at(e.Pos, e.ID, "cidr %q already refused at %s (want one row per range)", e.CIDR, prev)
			}
			seen[p] = e.Pos
		}
	}
}

// emitProxyRefuse writes the section as refusedPrefixes, each range built
// from its bytes (nothing is parsed at run time) with its row's id.
func emitProxyRefuse(f *jen.File, c *Common) {
	f.Comment("refusedPrefixes are the ranges network mode proxy refuses to dial unless a")
	f.Comment("destination in one is listed exactly (the proxy-refuse rows).")
	f.Var().Id("refusedPrefixes").Op("=").Index(jen.Op("...")).Qual("net/netip", "Prefix").ValuesFunc(func(g *jen.Group) {
		for _, e := range c.ProxyRefuse {
			p := netip.MustParsePrefix(e.CIDR)
			var addr *jen.Statement
			if p.Addr().Is4() {
				b := p.Addr().As4()
				addr = jen.Qual("net/netip", "AddrFrom4").Call(jen.Index(jen.Lit(4)).Byte().ValuesFunc(func(g *jen.Group) {
					for _, x := range b {
						g.Lit(int(x))
					}
				}))
			} else {
				b := p.Addr().As16()
				addr = jen.Qual("net/netip", "AddrFrom16").Call(jen.Index(jen.Lit(16)).Byte().ValuesFunc(func(g *jen.Group) {
					for _, x := range b {
						g.Lit(int(x))
					}
				}))
			}
			g.Line().Comment(e.ID+": "+e.CIDR).Line().Qual("net/netip", "PrefixFrom").Call(addr, jen.Lit(p.Bits()))
		}
		g.Line()
	})
	f.Comment("refusedPrefixRules are the ids of refusedPrefixes' rows, in the same order.")
	f.Var().Id("refusedPrefixRules").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, e := range c.ProxyRefuse {
			g.Line().Lit(e.ID)
		}
		g.Line()
	})
}

// docProxyRefuse renders the proxy-refuse section of docs/POLICY.md.
func docProxyRefuse(b *bytes.Buffer, c *Common) {
	if len(c.ProxyRefuse) == 0 {
		return
	}
	b.WriteString("\n### Addresses the proxy refuses\n\n")
	b.WriteString("Network mode proxy dials a destination only after resolving its name once;\n")
	b.WriteString("an address in one of these ranges is refused (an IPv4-mapped IPv6 address\n")
	b.WriteString("is checked as its IPv4 address too) unless the destination is listed\n")
	b.WriteString("exactly (`--allow-private`, or an exact `--allow-host`).\n\n")
	table(b, []string{"ID", "Range", "Why"}, func(row func(...string)) {
		for _, e := range c.ProxyRefuse {
			row(code(e.ID), code(e.CIDR), prose(e.Why))
		}
	})
}

// proxyRefuseDiff compares the proxy-refuse sections. A refused range
// takes destinations from the command: a removed row widens, an added one
// narrows, and a changed range narrows when it covers the old one,
// widens when the old one covers it, and both otherwise.
func proxyRefuseDiff(line func(string, ...any), old, new []ProxyRefuse) {
	changed := func(o, n ProxyRefuse) reach {
		op, err1 := netip.ParsePrefix(o.CIDR)
		np, err2 := netip.ParsePrefix(n.CIDR)
		switch {
		case err1 != nil || err2 != nil:
			return reach{unknown: true}
		case np.Bits() <= op.Bits() && np.Contains(op.Addr()):
			return reach{narrower: true}
		case op.Bits() <= np.Bits() && op.Contains(np.Addr()):
			return reach{wider: true}
		}
		return reach{wider: true, narrower: true}
	}
	rowDiff(line, "proxy-refuse", old, new, func(e ProxyRefuse) string { return e.ID },
		func(e ProxyRefuse) string { return e.CIDR }, reach{wider: true}, reach{narrower: true}, changed)
}

// proxyRefuseEmits is what a row does, for the rule table.
func proxyRefuseEmits(e ProxyRefuse) string {
	return "refuse " + strings.TrimSpace(e.CIDR) + " in the proxy"
}
