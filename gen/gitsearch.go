package gen

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// GitSearch is one row of the git-search section (rules/common.yaml): a
// bound of the search for the repositories below each writable root whose
// git directories the protect rows protect.
type GitSearch struct {
	Pos   Pos
	ID    string
	Bound string // one word of gitSearchBounds
	Value int    // depth, dirs, entries, git-dirs
	Names []string
	Why   string
	// valued: the row has a value key, well formed or not.
	valued bool
}

// gitSearchBounds are the bounds a row may set, each with its sandbox
// constant; skip takes names, the others a whole number.
var gitSearchBounds = map[string]string{
	"depth":    "gitSearchDepth",
	"dirs":     "gitSearchDirs",
	"entries":  "gitSearchEntries",
	"git-dirs": "gitSearchGitDirs",
	"skip":     "gitSearchSkip",
}

var gitSearchKeys = []string{"id", "bound", "value", "names", "why"}

var gitSearchWant = map[string]string{
	"id":    "a unique kebab-case id",
	"bound": "one of depth, dirs, entries, git-dirs, skip",
	"value": "a whole number, 1-1000000",
	"names": "directory names, each one path component",
	"why":   "the reason a reviewer reads",
}

// gitSearchName is a skipped directory's name: one component, no glob.
var gitSearchName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// gitSearch reads the git-search section: {id, bound, value or names, why}.
func (l *loader) gitSearch(n *yaml.Node) []GitSearch {
	if !l.kind(n, yaml.SequenceNode, "", "git-search") {
		return nil
	}
	var out []GitSearch
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "git-search entry") {
			continue
		}
		en := GitSearch{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "git-search: id")
		}
		l.keys(e, en.ID, gitSearchKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "bound":
				en.Bound, _ = l.str(v, en.ID, "bound")
			case "value":
				en.valued = true
				n, err := strconv.Atoi(v.Value)
				if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 1000000 || v.Value != strconv.Itoa(n) {
					l.at(l.pos(v), en.ID, "value %q (want %s)", v.Value, gitSearchWant["value"])
				} else {
					en.Value = n
				}
			case "names":
				en.Names = l.strs(v, en.ID, "names")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range []string{"id", "bound"} { // a missing why is checkWhy's
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "git-search: missing key %s (want %s)", key, gitSearchWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

// checkGitSearch checks the git-search rows: each bound known and set
// once, with a value (names for skip), and every bound set when the
// section is there.
func checkGitSearch(c *errs, cm *Common, local, ids map[string]Pos) {
	seen := map[string]Pos{}
	for _, e := range cm.GitSearch {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		switch {
		case e.Bound == "":
		case gitSearchBounds[e.Bound] == "":
			c.at(e.Pos, e.ID, "bound %q (want %s)", e.Bound, gitSearchWant["bound"])
			continue
		case seen[e.Bound] != Pos{}:
			c.at(e.Pos, e.ID, "bound %s already set at %s (want one row per bound)", e.Bound, seen[e.Bound])
		}
		seen[e.Bound] = e.Pos
		if e.Bound == "skip" {
			if e.valued || len(e.Names) == 0 {
				c.at(e.Pos, e.ID, "bound skip takes names, not a value (want %s)", gitSearchWant["names"])
			}
			for _, n := range e.Names {
				if !gitSearchName.MatchString(n) || n == "." || n == ".." {
					c.at(e.Pos, e.ID, "name %q (want %s)", n, gitSearchWant["names"])
				}
			}
		} else if !e.valued || len(e.Names) > 0 {
			c.at(e.Pos, e.ID, "bound %s takes a value, not names (want %s)", e.Bound, gitSearchWant["value"])
		}
	}
	if len(cm.GitSearch) > 0 {
		for _, b := range sortedKeys(gitSearchBounds) {
			if _, ok := seen[b]; !ok {
				c.at(cm.GitSearch[0].Pos, "", "git-search sets no bound %s (want a row for each of depth, dirs, entries, git-dirs, skip)", b)
			}
		}
	}
}

// emitGitSearch writes each bound as a constant (skip as an array) and
// the id of its row, for what explain says lies beyond it.
func emitGitSearch(f *jen.File, c *Common) {
	if len(c.GitSearch) == 0 {
		return
	}
	f.Comment("The bounds of the search for repositories below each writable root")
	f.Comment("(the git-search rows), and each one's row.")
	var consts []jen.Code
	for _, e := range c.GitSearch {
		name := gitSearchBounds[e.Bound]
		if e.Bound == "skip" {
			continue
		}
		consts = append(consts, jen.Id(name).Op("=").Lit(e.Value).Comment(e.ID), jen.Id(name+"Rule").Op("=").Lit(e.ID))
	}
	f.Const().Defs(consts...)
	for _, e := range c.GitSearch {
		if e.Bound != "skip" {
			continue
		}
		var names []jen.Code
		for _, n := range e.Names {
			names = append(names, jen.Lit(n))
		}
		f.Comment(e.ID)
		f.Var().Id("gitSearchSkip").Op("=").Index(jen.Op("...")).String().Values(names...)
		f.Const().Id("gitSearchSkipRule").Op("=").Lit(e.ID)
	}
}

// What is a git-search row's bound as the rule table shows it.
func (e GitSearch) What() string {
	if e.Bound == "skip" {
		return "skip " + strings.Join(e.Names, ", ")
	}
	return e.Bound + " " + strconv.Itoa(e.Value)
}

// docGitSearch renders the git-search section of docs/POLICY.md.
func docGitSearch(b *bytes.Buffer, c *Common) {
	if len(c.GitSearch) == 0 {
		return
	}
	b.WriteString("\n### Repositories below a writable root\n\n")
	b.WriteString("Besides the repository at each writable root, the protect rows' `$gitdir`,\n")
	b.WriteString("`$gitfile` and `$gitkey` paths are found in the repositories below it:\n")
	b.WriteString("every directory holding a `.git`, and every bare repository, that a\n")
	b.WriteString("breadth-first walk reaches within these bounds. Symbolic links, hidden\n")
	b.WriteString("and read-only paths and git directories are not descended. What lies\n")
	b.WriteString("beyond a bound is not protected; `sandtable explain` names where the\n")
	b.WriteString("walk stopped.\n\n")
	table(b, []string{"ID", "Bound", "Value", "Why"}, func(row func(...string)) {
		for _, e := range c.GitSearch {
			v := strconv.Itoa(e.Value)
			if e.Bound == "skip" {
				var names []string
				for _, n := range e.Names {
					names = append(names, code(n))
				}
				v = strings.Join(names, ", ")
			}
			row(code(e.ID), e.Bound, v, prose(e.Why))
		}
	})
}

// gitSearchDiff compares the git-search sections: a smaller bound finds
// fewer repositories to protect (widens), a larger one more (narrows); a
// name added to skip widens, one removed narrows; a removed row widens.
func gitSearchDiff(line func(string, ...any), old, new []GitSearch) {
	changed := func(o, n GitSearch) reach {
		if o.Bound != n.Bound {
			return reach{unknown: true}
		}
		if o.Bound == "skip" {
			var r reach
			for _, x := range n.Names {
				if !slices.Contains(o.Names, x) {
					r.wider = true
				}
			}
			for _, x := range o.Names {
				if !slices.Contains(n.Names, x) {
					r.narrower = true
				}
			}
			return r
		}
		return reach{wider: n.Value < o.Value, narrower: n.Value > o.Value}
	}
	rowDiff(line, "git-search", old, new, func(e GitSearch) string { return e.ID },
		func(e GitSearch) string { return e.What() },
		reach{wider: true}, reach{narrower: true}, changed)
}
