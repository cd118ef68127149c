package gen

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// OfflineEntry is one row of the offline-env section (rules/common.yaml): a
// variable set in the child's environment when the network is off, so that
// a tool fails at once, or works from its cache, instead of retrying a
// network it cannot reach.
type OfflineEntry struct {
	Pos   Pos
	ID    string
	Name  string
	Value string
	Why   string
}

var offlineKeys = []string{"id", "name", "value", "why"}

// offline reads the offline-env section: {id, name, value, why} rows.
func (l *loader) offline(n *yaml.Node) []OfflineEntry {
	if !l.kind(n, yaml.SequenceNode, "", "offline-env") {
		return nil
	}
	var out []OfflineEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "offline-env entry") {
			continue
		}
		en := OfflineEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "offline-env: id")
		}
		l.keys(e, en.ID, offlineKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "name":
				en.Name, _ = l.str(v, en.ID, "name")
			case "value":
				en.Value, _ = l.str(v, en.ID, "value")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range offlineKeys {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "offline-env: missing key %s (want %s)", key, offlineKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

var offlineKeyWant = map[string]string{
	"id":    "a unique kebab-case id",
	"name":  "an environment variable name",
	"value": "its value, plain text",
	"why":   "the reason a reviewer reads",
}

// checkOffline checks the offline-env section: unique ids and names, a
// variable name, a plain value.
func checkOffline(c *errs, cm *Common, local, ids map[string]Pos) {
	names := map[string]Pos{}
	for _, e := range cm.Offline {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Name != "" {
			if !envName.MatchString(e.Name) && !lowerEnvName.MatchString(e.Name) {
				c.at(e.Pos, e.ID, "name %q is not an environment variable name (want [A-Z_][A-Z0-9_]* or npm's [a-z_][a-z0-9_]*)", e.Name)
			} else if prev, dup := names[e.Name]; dup {
				c.at(e.Pos, e.ID, "name %q already set at %s (want one row per variable)", e.Name, prev)
			}
			names[e.Name] = e.Pos
			for _, cache := range cm.Caches {
				if cache.Env == e.Name {
					c.at(e.Pos, e.ID, "name %q is also set by cache row %q (want one row per variable)", e.Name, cache.ID)
				}
			}
		}
		if strings.ContainsAny(e.Value, "$\"'\\`") || hasControl(e.Value) {
			c.at(e.Pos, e.ID, "value %q: a quote, $, backslash or control character (want plain text)", e.Value)
		}
	}
}

// emitOffline writes the offline-env section as NAME=VALUE strings.
func emitOffline(f *jen.File, c *Common) {
	f.Comment("offlineEnv is set in the child's environment when the network is off.")
	f.Var().Id("offlineEnv").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, e := range c.Offline {
			g.Line().Comment(e.ID).Line().Lit(e.Name + "=" + e.Value)
		}
		g.Line()
	})
	f.Comment("offlineEnvRules are the ids of offlineEnv's rows, in the same order.")
	f.Var().Id("offlineEnvRules").Op("=").Index(jen.Op("...")).String().ValuesFunc(func(g *jen.Group) {
		for _, e := range c.Offline {
			g.Line().Lit(e.ID)
		}
		g.Line()
	})
}

// docOffline renders the offline-env section of docs/POLICY.md.
func docOffline(b *bytes.Buffer, c *Common) {
	if len(c.Offline) == 0 {
		return
	}
	b.WriteString("\n### Environment with the network off\n\n")
	b.WriteString("Set in the child's environment when the network is off (`NetworkOff`,\n")
	b.WriteString("`--network off`), in place of any value it had, so that a tool works from\n")
	b.WriteString("its cache or fails at once instead of retrying a network it cannot reach.\n\n")
	table(b, []string{"ID", "Sets", "Why"}, func(row func(...string)) {
		for _, e := range c.Offline {
			row(code(e.ID), code(e.Name+"="+e.Value), prose(e.Why))
		}
	})
}

// offlineDiff compares the offline-env sections. The variables change how
// a tool behaves without the network, not what the sandbox lets it reach:
// every change has the same reach.
func offlineDiff(line func(string, ...any), old, new []OfflineEntry) {
	same := func(OfflineEntry, OfflineEntry) reach { return reach{} }
	rowDiff(line, "offline-env", old, new, func(e OfflineEntry) string { return e.ID },
		func(e OfflineEntry) string { return fmt.Sprintf("%s=%s", e.Name, e.Value) }, reach{}, reach{}, same)
}
