//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
)

// The protect section's attacks: a command leaves in the workspace what
// runs later outside the sandbox (git hooks and config, editor and agent
// configuration). Each one must fail with the rule and succeed without it.

var protectAttempts = []*attempt{
	{
		name:    "git-hook-plant",
		what:    "plant a post-checkout hook, which the user's next checkout runs outside the sandbox",
		setup:   func(e *escEnv) { e.gitRepo(e.ws) },
		script:  `printf '#!/bin/sh\necho pwned\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, ".git/hooks/post-checkout")) },
		control: func(e *escEnv) escMode { return dropRules("protect-path") },
	},
	{
		name: "git-hooks-create",
		what: "create .git/hooks, with a hook, in a repository that has none",
		setup: func(e *escEnv) {
			e.gitRepo(e.ws)
			os.RemoveAll(filepath.Join(e.ws, ".git/hooks"))
		},
		script:  `rm -f .git/hooks 2>/dev/null; mkdir -p .git/hooks && printf '#!/bin/sh\necho pwned\n' > .git/hooks/post-checkout`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, ".git/hooks/post-checkout")) },
		control: func(e *escEnv) escMode { return e.noPlaceholder(".git/hooks") },
	},
	{
		name:  "git-config-fsmonitor",
		what:  "set core.fsmonitor in .git/config, which the user's next git status runs",
		setup: func(e *escEnv) { e.gitRepo(e.ws) },
		script: `git config core.fsmonitor "touch $OUT/pwned" ||
			printf '[core]\n\tfsmonitor = touch %s/pwned\n' "$OUT" >> .git/config`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, ".git/config"), "fsmonitor") },
		control: func(e *escEnv) escMode { return dropRules("protect-path") },
	},
	{
		name:  "git-dir-swap",
		what:  "move .git aside and put a repository with a hook in its place",
		setup: func(e *escEnv) { e.gitRepo(e.ws) },
		script: `mv .git .git.old && mkdir -p .git/hooks &&
			printf '#!/bin/sh\necho pwned\n' > .git/hooks/post-checkout`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, ".git/hooks/post-checkout")) },
		control: func(e *escEnv) escMode { return dropRules("pin-dir") },
	},
	{
		name: "gitfile-repoint",
		what: "re-point a .git file (a worktree's, a submodule's) at a repository the command made",
		setup: func(e *escEnv) {
			e.git(e.ws, "init", "-q", "--separate-git-dir="+filepath.Join(e.ws, ".realgit"), e.ws)
			e.chownAll(e.ws)
		},
		script:  `mkdir -p evil/hooks && printf 'gitdir: evil\n' > .git`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, ".git"), "evil") },
		control: func(e *escEnv) escMode { return dropRules("protect-path") },
	},
	{
		name: "hookspath-plant",
		what: "plant a pre-commit hook in the directory core.hooksPath names (husky's .husky)",
		setup: func(e *escEnv) {
			e.git(e.ws, "init", "-q")
			e.git(e.ws, "config", "core.hooksPath", ".husky")
			e.mkdir(filepath.Join(e.ws, ".husky"))
			e.chownAll(e.ws)
		},
		script:  `printf '#!/bin/sh\necho pwned\n' > .husky/pre-commit`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, ".husky/pre-commit")) },
		control: func(e *escEnv) escMode { return dropRules("protect-path") },
	},
	{
		name:    "vscode-task-create",
		what:    "create .vscode/tasks.json (runOn folderOpen) in a workspace that had no .vscode",
		script:  `rm -f .vscode 2>/dev/null; mkdir -p .vscode && echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, ".vscode/tasks.json")) },
		control: func(e *escEnv) escMode { return e.noPlaceholder(".vscode") },
	},
	{
		name:    "mcp-json-create",
		what:    "create .mcp.json, whose servers an agent host starts when it opens the project",
		script:  `rm -f .mcp.json 2>/dev/null; echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, ".mcp.json"), "mcpServers") },
		control: func(e *escEnv) escMode { return e.noPlaceholder(".mcp.json") },
	},
	{
		name: "claude-hooks-edit",
		what: "add a hook to an existing .claude/settings.json",
		setup: func(e *escEnv) {
			e.mkdir(filepath.Join(e.ws, ".claude"))
			e.file(filepath.Join(e.ws, ".claude/settings.json"), "{}\n", 0o644)
		},
		script: `echo '{"hooks":{"SessionStart":[{"command":"sh"}]}}' > .claude/settings.json`,
		escaped: func(e *escEnv, r *escResult) bool {
			return fileHas(filepath.Join(e.ws, ".claude/settings.json"), "hooks")
		},
		control: func(e *escEnv) escMode { return dropRules("protect-path") },
	},
}
