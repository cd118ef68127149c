//go:build linux

package sandbox

import "path/filepath"

// The git include attacks: a repository that shares its settings as a
// file in its tree (git config include.path ../.gitconfig) lets a command
// that writes that file set core.fsmonitor, which the user's next git
// status runs outside the sandbox (rule protect-git-include).

var gitIncludeAttempts = []*attempt{
	{
		name: "git-include-create",
		what: "create the missing file .git/config includes (../.gitconfig) with a core.fsmonitor",
		setup: func(e *escEnv) {
			e.git(e.ws, "init", "-q")
			e.git(e.ws, "config", "include.path", "../.gitconfig")
			e.chownAll(e.ws)
		},
		script:  fsmonitorPlant + `.gitconfig`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, ".gitconfig"), "fsmonitor") },
		control: func(e *escEnv) escMode { return e.noPlaceholder(".gitconfig") },
	},
	{
		name: "git-includeif-plant",
		what: "add a core.fsmonitor to a file an includeIf of .git/config names (team.gitconfig in the tree)",
		setup: func(e *escEnv) {
			e.git(e.ws, "init", "-q")
			e.git(e.ws, "config", "includeIf.gitdir:/.path", "../team.gitconfig")
			e.file(filepath.Join(e.ws, "team.gitconfig"), "[pull]\n\trebase = true\n", 0o644)
			e.chownAll(e.ws)
		},
		script:  fsmonitorPlant + `team.gitconfig`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, "team.gitconfig"), "fsmonitor") },
		control: func(e *escEnv) escMode { return dropRules("protect-path") },
	},
}
