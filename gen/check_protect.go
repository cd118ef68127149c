package gen

import (
	"fmt"
	"regexp"
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
	varHostCfg   = "$githostconfig"
	varGitKey    = "$gitkey"
)

var protectBases = []string{varRoot, varGitdir}
var protectWholes = []string{varGitfile, varHooksPath, varInclude, varHostCfg, varGitKey}

// gitKeyValues are the ways git reads the value of a $gitkey row's keys,
// each with the sandbox constant that finds the path in it.
var gitKeyValues = map[string]string{
	"path":    "gitValuePath",    // a pathname, ~ expanded (git_config_pathname)
	"program": "gitValueProgram", // the whole value is the program git executes, no shell
	"proxy":   "gitValueProxy",   // core.gitProxy: a program, before an optional " for DOMAIN"
	"command": "gitValueCommand", // a shell command: its first word is the program
	"alias":   "gitValueAlias",   // a shell command after !, else a git command
	"helper":  "gitValueHelper",  // credential.helper: after !, or an absolute path with arguments
}

// gitKeyBases are what a relative path in a $gitkey row's value is taken
// against, each with its sandbox constant.
var gitKeyBases = map[string]string{
	"worktree": "gitRelWorktree", // the top of the work tree (the git directory of a bare one)
	"gitdir":   "gitRelGitdir",   // the git directory
	"none":     "gitRelNone",     // nothing known here: only an absolute or ~ path counts
}

// gitKeyPattern is a $gitkey row's key: section.name, section.*.name (any
// subsection) or section.* (any name), names as git spells them.
var gitKeyPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*\.((\*|[A-Za-z0-9-]+)\.)?([A-Za-z][A-Za-z0-9-]*|\*)$`)

// gitEnvName is a $gitkey row's environment variable.
var gitEnvName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// protectOptOuts are the words an unless may name, each a Config field and
// a sandtable run flag.
var protectOptOuts = map[string]string{
	"allow-git-config": "allowGitConfig",
}

// checkProtect checks the protect rows: ids, whys, paths in the vocabulary
// above, and opt-outs that are known and reviewed.
func checkProtect(c *errs, rows []ProtectEntry, local, ids map[string]Pos) {
	seen := map[string]Pos{}
	keys := map[string]Pos{}
	for _, e := range rows {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		checkGitKeyRow(c, e, keys)
		if msg := protectPathProblem(e.Path); msg != "" {
			c.at(e.Pos, e.ID, "path %q: %s", e.Path, msg)
		} else if e.Path == varGitKey {
			// One row per key and variable, checked above.
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
	want := fmt.Sprintf("want %s/REL, %s/REL, %s, %s, %s, %s or %s", varRoot, varGitdir, varGitfile, varHooksPath, varInclude, varHostCfg, varGitKey)
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

// checkGitKeyRow checks the columns of a $gitkey row: keys or env, both
// well formed and in no other row (seen, lower-cased as git compares
// keys), a known value and relative-to; and that no other row has them.
func checkGitKeyRow(c *errs, e ProtectEntry, seen map[string]Pos) {
	if e.Path != varGitKey {
		if len(e.Keys) > 0 || len(e.Env) > 0 || e.Value != "" || e.RelativeTo != "" {
			c.at(e.Pos, e.ID, "keys, env, value and relative-to are for path %s only", varGitKey)
		}
		return
	}
	if len(e.Keys) == 0 && len(e.Env) == 0 {
		c.at(e.Pos, e.ID, "path %s without keys or env (want the git keys or variables that name what git runs)", varGitKey)
	}
	for _, k := range e.Keys {
		if !gitKeyPattern.MatchString(k) || strings.Count(k, ".") == 2 && strings.HasSuffix(k, ".*") {
			c.at(e.Pos, e.ID, "key %q (want section.name, section.*.name or section.*)", k)
			continue
		}
		lk := strings.ToLower(k)
		if prev, dup := seen[lk]; dup {
			c.at(e.Pos, e.ID, "key %s already in the row at %s (want one row per key)", k, prev)
		}
		seen[lk] = e.Pos
	}
	for _, v := range e.Env {
		if !gitEnvName.MatchString(v) {
			c.at(e.Pos, e.ID, "env %q (want an upper-case variable name)", v)
			continue
		}
		if prev, dup := seen["$"+v]; dup {
			c.at(e.Pos, e.ID, "env %s already in the row at %s (want one row per variable)", v, prev)
		}
		seen["$"+v] = e.Pos
	}
	if gitKeyValues[e.Value] == "" {
		c.at(e.Pos, e.ID, "value %q (want one of %s)", e.Value, words(sortedKeys(gitKeyValues)))
	}
	if gitKeyBases[e.RelativeTo] == "" {
		c.at(e.Pos, e.ID, "relative-to %q (want one of %s)", e.RelativeTo, words(sortedKeys(gitKeyBases)))
	}
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
