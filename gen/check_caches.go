package gen

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sandtable/sandtable/internal/pathsyntax"
)

// cacheDirName is a cache directory's name: one path component, so a row
// cannot name a place outside sandtable's cache root.
var cacheDirName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// checkCaches checks the caches section: unique ids, directories and
// variables; a value with $dir exactly once and nothing else to expand;
// a default that is a path.
func checkCaches(c *errs, cm *Common, local, ids map[string]Pos) {
	dirs, envs := map[string]Pos{}, map[string]Pos{}
	for _, e := range cm.Caches {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Dir != "" {
			if !cacheDirName.MatchString(e.Dir) {
				c.at(e.Pos, e.ID, "dir %q is not a plain directory name (want lower-case letters, digits, . and -, one component)", e.Dir)
			} else if prev, dup := dirs[e.Dir]; dup {
				c.at(e.Pos, e.ID, "dir %q already used at %s (want a directory of its own)", e.Dir, prev)
			}
			dirs[e.Dir] = e.Pos
		}
		if e.Env != "" {
			if !envName.MatchString(e.Env) && !lowerEnvName.MatchString(e.Env) {
				c.at(e.Pos, e.ID, "env %q is not an environment variable name (want [A-Z_][A-Z0-9_]* or npm's [a-z_][a-z0-9_]*)", e.Env)
			} else if prev, dup := envs[e.Env]; dup {
				c.at(e.Pos, e.ID, "env %q already set at %s (want one row per variable)", e.Env, prev)
			}
			envs[e.Env] = e.Pos
		}
		switch rest := strings.Replace(e.Value, varDir, "", 1); {
		case strings.Count(e.Value, varDir) != 1:
			c.at(e.Pos, e.ID, "value %q: names %s %d times (want it exactly once)", e.Value, varDir, strings.Count(e.Value, varDir))
		case strings.Contains(rest, "$"):
			c.at(e.Pos, e.ID, "value %q: only %s may be expanded (want constants around it)", e.Value, varDir)
		case strings.ContainsAny(rest, "\"\\'`") || hasControl(rest):
			c.at(e.Pos, e.ID, "value %q: quote, backslash or control character (want plain text around %s)", e.Value, varDir)
		}
		if _, ok := cacheScopes[e.Scope]; e.Scope != "" && !ok {
			c.at(e.Pos, e.ID, "scope %q is not a cache scope (want workspace or user)", e.Scope)
		}
		if e.Default != "" {
			var msg string
			if rest, ok := strings.CutPrefix(e.Default, varHome); ok {
				msg = badPath(rest)
			} else if strings.Contains(e.Default, "$") {
				msg = fmt.Sprintf("only %s may be expanded (want an absolute path or %s/REL)", varHome, varHome)
			} else {
				msg = badPath(e.Default)
			}
			if msg != "" {
				c.at(e.Pos, e.ID, "default %q: %s", e.Default, msg)
			}
		}
	}
}

// lowerEnvName is npm's configuration variables (npm_config_cache), the
// one lower-case family a cache row may set.
var lowerEnvName = regexp.MustCompile(`^npm_config_[a-z0-9_]+$`)

func hasControl(s string) bool {
	for _, r := range s {
		if pathsyntax.IsControl(r) {
			return true
		}
	}
	return false
}
