package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sandtable/sandtable/internal/pathsyntax"
)

// The protect section's vocabulary. A row's path is relative to a base the
// sandbox finds in each writable root: the root itself, each git directory
// it finds there (the .git directory, where a .git file's gitdir: line
// leads, its common directory, submodules' and worktrees' git directories),
// or, as a whole value, each .git file (of the root, a submodule, a
// worktree), each hooks directory core.hooksPath names and each file a
// git config includes.
const (
	varRoot      = "$root"
	varGitdir    = "$gitdir"
	varGitfile   = "$gitfile"
	varHooksPath = "$hookspath"
	varInclude   = "$gitinclude"
)

var protectBases = []string{varRoot, varGitdir}
var protectWholes = []string{varGitfile, varHooksPath, varInclude}

// protectOptOuts are the words an unless may name, each a Config field and
// a sandtable run flag.
var protectOptOuts = map[string]string{
	"allow-git-config": "allowGitConfig",
}

// checkProtect checks the protect rows: ids, whys, paths in the vocabulary
// above, and opt-outs that are known and reviewed.
func checkProtect(c *errs, rows []ProtectEntry, local, ids map[string]Pos) {
	seen := map[string]Pos{}
	for _, e := range rows {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if msg := protectPathProblem(e.Path); msg != "" {
			c.at(e.Pos, e.ID, "path %q: %s", e.Path, msg)
		} else if prev, dup := seen[e.Path]; dup {
			c.at(e.Pos, e.ID, "path %q protected twice (first at %s; want one row per path)", e.Path, prev)
		} else if e.Path != "" {
			seen[e.Path] = e.Pos
		}
		if e.IfMissing != "" && e.IfMissing != "placeholder" && e.IfMissing != "skip" {
			c.at(e.Pos, e.ID, "if-missing %q is not a choice (want placeholder or skip)", e.IfMissing)
		}
		switch {
		case e.Unless != "" && protectOptOuts[e.Unless] == "":
			c.at(e.Pos, e.ID, "unless %q is not an opt-out (want one of %s)", e.Unless, words(sortedKeys(protectOptOuts)))
		case e.Unless != "" && strings.TrimSpace(e.Reviewed) == "":
			c.at(e.Pos, e.ID, "unless %s without reviewed (want what the opt-out gives up, for a reviewer)", e.Unless)
		case e.Unless == "" && e.Reviewed != "":
			c.at(e.Pos, e.ID, "reviewed without unless (want reviewed only on a row with an opt-out)")
		}
	}
}

// protectPathProblem says what is wrong with a protect row's path, or "".
func protectPathProblem(p string) string {
	if p == "" {
		return ""
	}
	if slices.Contains(protectWholes, p) {
		return ""
	}
	want := fmt.Sprintf("want %s/REL, %s/REL, %s, %s or %s", varRoot, varGitdir, varGitfile, varHooksPath, varInclude)
	base, rest, ok := strings.Cut(p, "/")
	if !ok || !slices.Contains(protectBases, base) {
		return "not under a known base (" + want + ")"
	}
	if strings.Contains("/"+rest+"/", "/../") {
		return fmt.Sprintf("leaves %s (%s without ..)", base, want)
	}
	if clean := pathsyntax.Clean("/" + rest); clean != "/"+rest || rest == "" {
		return fmt.Sprintf("not clean (want %q)", base+clean)
	}
	if msg := badPath("/" + rest); msg != "" {
		return msg
	}
	if strings.Contains(rest, "$") {
		return "a variable inside REL (" + want + ")"
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// placeholderOperand reports whether op is the descriptor a missing
// protected path's placeholder is read from, which the plan hands out
// whenever there is one.
func placeholderOperand(r *Rule, op string) bool {
	return op == varNullFD && r.For == "protected" && slices.Contains(r.When, Cond{Word: "is-missing"})
}
