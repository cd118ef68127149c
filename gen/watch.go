package gen

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// WatchEntry is one row of the linux table's watch section: a set of paths
// (an iteration of the plan) whose names NewCmd watches on the host for the
// length of a run, stopping the run when one is created, removed or
// replaced there.
type WatchEntry struct {
	Pos Pos
	ID  string
	For string // hidden, protected, cache-root or suspend
	// StopSeconds is a suspend row's stop-timeout: how long stopping the
	// sandbox may take before the run is killed instead; 0 on other rows.
	StopSeconds int
	Why         string
	Landlock    *BackendCol
}

// watchFor maps a watch row's `for` to the sandbox constant.
var watchFor = map[string]string{
	"hidden":     "watchHidden",
	"protected":  "watchProtected",
	"cache-root": "watchCacheRoot",
	"suspend":    "watchSuspend",
}

// watchWhat says what a watch row watches, for POLICY.md and genrules
// -diff.
func watchWhat(e WatchEntry) string {
	if e.For == "suspend" {
		return "the caller's suspension (^Z): the whole sandbox stops first, or the run is killed after " + strconv.Itoa(e.StopSeconds) + "s"
	}
	return "each " + e.For + " path"
}

// watchEmits is what a watch row does, for the rule metadata table.
func watchEmits(e WatchEntry) string {
	if e.For == "suspend" {
		return "stop the whole sandbox before the caller stops (^Z), or kill the run after " + strconv.Itoa(e.StopSeconds) + "s"
	}
	return "stop the run when a " + e.For + " path changes on the host"
}

// watch reads the watch section: {id, for, why} rows.
func (l *loader) watch(n *yaml.Node) []WatchEntry {
	if !l.kind(n, yaml.SequenceNode, "", "watch") {
		return nil
	}
	var out []WatchEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "watch entry") {
			continue
		}
		en := WatchEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "watch: id")
		}
		l.keys(e, en.ID, []string{"id", "for", "stop-timeout", "why", "landlock"}, func(key string, k, v *yaml.Node) {
			switch key {
			case "landlock":
				en.Landlock = l.backendCol(v, en.ID)
			case "for":
				en.For, _ = l.str(v, en.ID, "for")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range []string{"id", "for", "why"} {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "watch: missing key %s (want %s)", key, map[string]string{
					"id": "a unique kebab-case id", "for": "hidden, protected, cache-root or suspend", "why": "the reason a reviewer reads",
				}[key])
			}
		}
		en.StopSeconds = l.watchStop(e, en.ID, en.For)
		out = append(out, en)
	}
	return out
}

// checkWatch checks the watch rows: ids, whys, and a known `for`, once.
func checkWatch(c *errs, p *Platform, local, global map[string]Pos) {
	seen := map[string]Pos{}
	for _, e := range p.Watch {
		checkID(c, e.Pos, e.ID, local, nil)
		if prev, ok := global[e.ID]; ok && e.ID != "" {
			c.at(e.Pos, e.ID, "id already names a shared entry at %s (want an id of its own)", prev)
		}
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.For == "" {
			continue
		}
		if watchFor[e.For] == "" {
			c.at(e.Pos, e.ID, "for: %q cannot be watched (want hidden, protected, cache-root or suspend)", e.For)
		} else if prev, dup := seen[e.For]; dup {
			c.at(e.Pos, e.ID, "for: %s watched twice (first at %s; want one row)", e.For, prev)
		} else {
			seen[e.For] = e.Pos
		}
	}
}

// emitWatch renders the watch section as the watchRows array.
func emitWatch(f *jen.File, p *Platform) {
	f.Comment("watchRows are the paths NewCmd watches on the host during a run, by")
	f.Comment("the plan's set they come from; see watch_linux.go.")
	f.Var().Id("watchRows").Op("=").Index(jen.Op("...")).Id("watchRow").ValuesFunc(func(g *jen.Group) {
		for _, e := range p.Watch {
			v := []jen.Code{jen.Id("rule").Op(":").Lit(e.ID), jen.Id("of").Op(":").Id(watchFor[e.For])}
			if e.For == "suspend" {
				v = append(v, jen.Id("stopTimeout").Op(":").Lit(e.StopSeconds).Op("*").Qual("time", "Second"))
			}
			g.Line().Comment(e.ID).Line().Values(v...)
		}
		g.Line()
	})
	f.Comment("watchRow is one row of the watch section.")
	f.Type().Id("watchRow").Struct(
		jen.Id("rule").String(),
		jen.Id("of").Id("watchSet"),
		jen.Comment("stopTimeout is a suspend row's: how long stopping the sandbox may"),
		jen.Comment("take before the run is killed instead."),
		jen.Id("stopTimeout").Qual("time", "Duration"),
	)
}

// docWatch renders the watch section of docs/POLICY.md.
func docWatch(b *bytes.Buffer, p *Platform) {
	if len(p.Watch) == 0 {
		return
	}
	b.WriteString("\n### Watched on the host\n\n")
	b.WriteString("For the length of a run started by `NewCmd` (and `sandtable run`), the\n")
	b.WriteString("directory holding each of these paths is watched (inotify); when the\n")
	b.WriteString("path is created, removed or renamed there on the host, which detaches\n")
	b.WriteString("the sandbox's mount from it, the run is killed and `Wait` returns\n")
	b.WriteString("`ErrHostChanged`. `Command` has no such watch. A `suspend` row is\n")
	b.WriteString("`sandtable run`'s (and `Cmd.Suspend`'s): when the run is suspended, every\n")
	b.WriteString("process of the sandbox is stopped before sandtable stops, and continued\n")
	b.WriteString("with it; when some process is still running after the row's stop-timeout,\n")
	b.WriteString("the run is killed instead.\n\n")
	table(b, []string{"ID", "Watches", "Why"}, func(row func(...string)) {
		for _, e := range p.Watch {
			row(code(e.ID), watchWhat(e), prose(e.Why))
		}
	})
}

// watchDiff compares the watch sections: a watch takes a way out from the
// process, so an added row narrows and a removed one widens. A longer
// stop-timeout lets a process that will not stop run on (with the
// terminal) longer before the run is killed, so it widens; a shorter one
// narrows.
func watchDiff(o, n *Platform) []string {
	var out []string
	line := func(format string, args ...any) {
		out = append(out, "linux: "+fmt.Sprintf(format, args...))
	}
	rows := func(p *Platform) []WatchEntry {
		if p == nil {
			return nil
		}
		return p.Watch
	}
	changed := func(a, b WatchEntry) reach {
		if a.For != b.For {
			return reach{wider: true, narrower: true}
		}
		return reach{wider: b.StopSeconds > a.StopSeconds, narrower: b.StopSeconds < a.StopSeconds}
	}
	rowDiff(line, "watch", rows(o), rows(n), func(e WatchEntry) string { return e.ID },
		func(e WatchEntry) string { return "watch " + watchWhat(e) }, reach{wider: true}, reach{narrower: true}, changed)
	return out
}
