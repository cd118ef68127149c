//go:build linux

package sandbox

import (
	"path/filepath"
)

// defaultAttempts try the credential stores and histories the default
// hidden set covers beyond the first ones (~/.ssh, ~/.gnupg): an agent
// host's own login, and a shell history. Each control drops the one hide
// step for that path, so the read is shown to work without the row. The
// files are in the pass's home from the start (defaultFixtures), since
// every attempt's spawn hides what that home holds.
var defaultAttempts = []*attempt{
	{
		name: "agent-credentials",
		what: "read Claude Code's OAuth login, ~/.claude/.credentials.json (default hidden: hide-claude)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["agent-secret"]
		},
		script:  `cat "$HOME/.claude/.credentials.json"; ls -la "$HOME/.claude"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + filepath.Join(e.home, ".claude")) },
	},
	{
		name: "codex-auth",
		what: "read Codex CLI's auth.json (default hidden: hide-codex)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["agent-secret"]
		},
		script:  `cat "$HOME/.codex/auth.json"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + filepath.Join(e.home, ".codex")) },
	},
	{
		name: "shell-history",
		what: "read a token typed into bash, ~/.bash_history, which must read as an empty file (default hidden: hide-bash-history)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["agent-secret"]
			e.vars["F"] = filepath.Join(e.home, ".bash_history")
		},
		script: `cat "$HOME/.bash_history"; test -f "$HOME/.bash_history" && test ! -s "$HOME/.bash_history" || echo "not an empty file: $F"`,
		escaped: func(e *escEnv, r *escResult) bool {
			return containsAny(r.out, e.secret, "not an empty file")
		},
		control: func(e *escEnv) escMode { return dropRules("hide-file=" + e.vars["F"]) },
	},
}
