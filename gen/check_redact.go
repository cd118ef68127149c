package gen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sandtable/sandtable/internal/pathsyntax"
)

var redactKeyName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// redactGitKey is a gitconfig row's key: SECTION.KEY as git names a
// variable, without the subsection it matches with or without.
var redactGitKey = regexp.MustCompile(`^[A-Za-z0-9-]+\.[A-Za-z][A-Za-z0-9-]*$`)

// checkRedact checks the redact section: unique ids and paths, paths as
// default-hidden takes them, a known format, something to remove, keys
// spelled as the format names them, and includes followed only where the
// format has them.
func checkRedact(c *errs, cm *Common, local, ids map[string]Pos) {
	paths := map[string]Pos{}
	for _, e := range cm.Redact {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Path != "" {
			var msg string
			if rest, ok := strings.CutPrefix(e.Path, varHome+"/"); ok {
				msg = badPath("/" + rest)
				if pathsyntax.Clean("/"+rest) != "/"+rest {
					msg = fmt.Sprintf("not clean (want %q)", varHome+pathsyntax.Clean("/"+rest))
				}
			} else if _, list, _, ok := parseDerived(e.Path); ok && !list {
				msg = derivedProblem(e.Path)
			} else if strings.Contains(e.Path, "$") {
				msg = fmt.Sprintf("only %s/... and %sNAME[/REL] may be used (want an absolute path, %s/REL or %sNAME/REL)", varHome, varEnv, varHome, varEnv)
			} else {
				msg = badPath(e.Path)
			}
			if msg != "" {
				c.at(e.Pos, e.ID, "path %q: %s", e.Path, msg)
			}
			if prev, dup := paths[e.Path]; dup {
				c.at(e.Pos, e.ID, "path %q already redacted at %s (want one row per file)", e.Path, prev)
			}
			paths[e.Path] = e.Pos
			for _, h := range cm.DefaultHidden {
				if h.Value == e.Path {
					c.at(e.Pos, e.ID, "path %q is also hidden by %q (want it hidden or redacted, not both)", e.Path, h.ID)
				}
			}
		}
		if _, ok := redactFormatNamed(e.Format); e.Format != "" && !ok {
			c.at(e.Pos, e.ID, "format %q: unknown (want one of %s)", e.Format, words(redactFormatNames()))
		}
		if e.Includes && e.Format != "gitconfig" {
			c.at(e.Pos, e.ID, "follow-includes: format %q has no includes (want it on gitconfig rows only)", e.Format)
		}
		if len(e.Keys) == 0 && !e.URLs {
			c.at(e.Pos, e.ID, "removes nothing (want remove: [KEY, ...] or url-credentials: true)")
		}
		for _, k := range e.Keys {
			switch {
			case !redactKeyName.MatchString(k):
				c.at(e.Pos, e.ID, "remove: %q is not a key name (want letters, digits, _ . -)", k)
			case e.Format == "gitconfig" && !redactGitKey.MatchString(k):
				c.at(e.Pos, e.ID, "remove: %q is not a git variable (want SECTION.KEY, matched with or without a subsection)", k)
			}
		}
	}
}

// checkRedactFD keeps $redactfd to the rules that iterate the redacted
// files: anywhere else it has no value.
func checkRedactFD(c *errs, p *Platform) {
	for _, r := range p.Rules {
		if slices.Contains(r.Args, varRedactFD) && r.For != "redacted" {
			c.at(r.ArgsPos, r.ID, "%s is a redacted file's descriptor (want for: redacted)", varRedactFD)
		}
	}
}

// checkTarget keeps $target to the rules that iterate symlinks: anywhere
// else it has no value.
func checkTarget(c *errs, p *Platform) {
	for _, r := range p.Rules {
		if slices.Contains(r.Args, varTarget) && r.For != "socket-links" {
			c.at(r.ArgsPos, r.ID, "%s is a symlink's target (want for: socket-links)", varTarget)
		}
	}
}
