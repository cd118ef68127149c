package gen

import (
	"bytes"
	"fmt"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// NetDefaultEntry is one row of the network-default section
// (rules/common.yaml): the network mode of a Config that names none, on one
// platform.
type NetDefaultEntry struct {
	Pos      Pos
	ID       string
	Platform string
	Mode     string
	Why      string
}

var netDefaultKeys = []string{"id", "platform", "mode", "why"}

var netDefaultKeyWant = map[string]string{
	"id":       "a unique kebab-case id",
	"platform": "linux or darwin",
	"mode":     "off, proxy or host",
	"why":      "the reason a reviewer reads",
}

// netModeReach orders the modes by what they let the command reach.
var netModeReach = map[string]int{"off": 0, "proxy": 1, "host": 2}

// netModeConst is each mode's constant in package sandbox.
var netModeConst = map[string]string{"off": "NetworkOff", "proxy": "NetworkProxy", "host": "NetworkHost"}

// netDefault reads the network-default section: {id, platform, mode, why}.
func (l *loader) netDefault(n *yaml.Node) []NetDefaultEntry {
	if !l.kind(n, yaml.SequenceNode, "", "network-default") {
		return nil
	}
	var out []NetDefaultEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "network-default entry") {
			continue
		}
		en := NetDefaultEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "network-default: id")
		}
		l.keys(e, en.ID, netDefaultKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "platform":
				en.Platform, _ = l.str(v, en.ID, "platform")
			case "mode":
				en.Mode, _ = l.str(v, en.ID, "mode")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range netDefaultKeys {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "network-default: missing key %s (want %s)", key, netDefaultKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

// checkNetDefault checks the network-default section: a known platform and
// mode, one row per platform.
func checkNetDefault(c *errs, cm *Common, local, ids map[string]Pos) {
	seen := map[string]Pos{}
	for _, e := range cm.NetDefault {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Platform != "" && e.Platform != "linux" && e.Platform != "darwin" {
			c.at(e.Pos, e.ID, "platform %q (want linux or darwin)", e.Platform)
		} else if prev, dup := seen[e.Platform]; dup && e.Platform != "" {
			c.at(e.Pos, e.ID, "platform %s already has a default at %s (want one row per platform)", e.Platform, prev)
		}
		seen[e.Platform] = e.Pos
		if _, ok := netModeReach[e.Mode]; !ok && e.Mode != "" {
			c.at(e.Pos, e.ID, "mode %q (want off, proxy or host)", e.Mode)
		}
	}
}

// emitNetDefault writes defaultNetworkMode: a platform without a row gets
// mode off.
func emitNetDefault(f *jen.File, c *Common) {
	f.Comment("defaultNetworkMode is the network mode of a Config that names none on goos;")
	f.Comment("off where the table has no row.")
	f.Func().Id("defaultNetworkMode").Params(jen.Id("goos").String()).Id("NetworkMode").BlockFunc(func(g *jen.Group) {
		if len(c.NetDefault) > 0 {
			g.Switch(jen.Id("goos")).BlockFunc(func(s *jen.Group) {
				for _, e := range c.NetDefault {
					s.Case(jen.Lit(e.Platform)).Block(
						jen.Return(jen.Id(netModeConst[e.Mode])).Comment(e.ID),
					)
				}
			})
		}
		g.Return(jen.Id("NetworkOff"))
	})
}

// docNetDefault renders the network-default section of docs/POLICY.md.
func docNetDefault(b *bytes.Buffer, c *Common) {
	b.WriteString("\n### Default network mode\n\n")
	b.WriteString("The network mode of a Config that names none (`NetworkDefault`) and of\n")
	b.WriteString("`sandtable run` without `--network`, per platform; a platform without a\n")
	b.WriteString("row gets mode off.\n\n")
	table(b, []string{"ID", "Platform", "Mode", "Why"}, func(row func(...string)) {
		for _, e := range c.NetDefault {
			row(code(e.ID), e.Platform, code(e.Mode), prose(e.Why))
		}
	})
}

// netDefaultDiff compares the network-default sections: a mode that
// reaches more (off, proxy, host, in that order) widens. A removed row is
// mode off.
func netDefaultDiff(line func(string, ...any), old, new []NetDefaultEntry) {
	show := func(e NetDefaultEntry) string { return fmt.Sprintf("%s: %s", e.Platform, e.Mode) }
	changed := func(o, n NetDefaultEntry) reach {
		if o.Platform != n.Platform {
			return reach{unknown: true}
		}
		a, b := netModeReach[o.Mode], netModeReach[n.Mode]
		return reach{wider: b > a, narrower: b < a}
	}
	rowDiff(line, "network-default", old, new, func(e NetDefaultEntry) string { return e.ID }, show,
		reach{narrower: true}, reach{wider: true}, changed)
}
