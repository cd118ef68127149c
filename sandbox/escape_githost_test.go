//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// The host's git configuration attacks: what git reads outside any
// repository (~/.gitconfig, the system file, GIT_CONFIG_COUNT's pairs and
// what they include) names hooks, commands and files inside the
// workspace, which the host's next git command runs unsandboxed. Each
// attempt plants one of them; the control drops the protect-path step of
// that one path (or, for a missing one, the placeholder rule), so the
// same write is shown to work without the row. The pass's home holds the
// configuration (gitHostFixture), so these run in a test of their own,
// TestEscapeGitHostConfig, not in TestEscape's shared home.
var gitHostAttempts = []*attempt{
	{
		name:    "host-hookspath-create",
		what:    "create .githooks/pre-commit, the hooks directory ~/.gitconfig's core.hooksPath names, in a repository that has none",
		setup:   func(e *escEnv) { e.gitRepo(e.ws) },
		script:  `rm -f .githooks 2>/dev/null; mkdir -p .githooks && printf '#!/bin/sh\necho pwned\n' > .githooks/pre-commit`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, ".githooks/pre-commit")) },
		control: func(e *escEnv) escMode { return e.noPlaceholder(".githooks") },
	},
	{
		name: "host-hookspath-plant",
		what: "plant a pre-commit hook in the existing .githooks that ~/.gitconfig's core.hooksPath names",
		setup: func(e *escEnv) {
			e.git(e.ws, "init", "-q")
			e.mkdir(filepath.Join(e.ws, ".githooks"))
			e.chownAll(e.ws)
		},
		script:  `printf '#!/bin/sh\necho pwned\n' > .githooks/pre-commit`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, ".githooks/pre-commit")) },
		control: func(e *escEnv) escMode { return dropRules("protect-path=" + filepath.Join(e.ws, ".githooks")) },
	},
	{
		name: "host-fsmonitor-script",
		what: "rewrite tools/fsmonitor, the hook ~/.gitconfig's core.fsmonitor names, which git status runs",
		setup: func(e *escEnv) {
			e.git(e.ws, "init", "-q")
			e.mkdir(filepath.Join(e.ws, "tools"))
			e.file(filepath.Join(e.ws, "tools/fsmonitor"), "#!/bin/sh\nexit 1\n", 0o755)
			e.chownAll(e.ws)
		},
		script:  `printf '#!/bin/sh\necho pwned\n' > tools/fsmonitor`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, "tools/fsmonitor"), "pwned") },
		control: func(e *escEnv) escMode { return dropRules("protect-path=" + filepath.Join(e.ws, "tools/fsmonitor")) },
	},
	{
		name: "env-filter-clean",
		what: "rewrite scripts/clean.sh, the clean filter GIT_CONFIG_COUNT's pair names, which git add and status run",
		setup: func(e *escEnv) {
			e.git(e.ws, "init", "-q")
			e.mkdir(filepath.Join(e.ws, "scripts"))
			e.file(filepath.Join(e.ws, "scripts/clean.sh"), "#!/bin/sh\ncat\n", 0o755)
			e.chownAll(e.ws)
		},
		script:  `printf '#!/bin/sh\necho pwned\n' > scripts/clean.sh`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, "scripts/clean.sh"), "pwned") },
		control: func(e *escEnv) escMode { return dropRules("protect-path=" + filepath.Join(e.ws, "scripts/clean.sh")) },
	},
	{
		name:    "host-include-plant",
		what:    "add a core.fsmonitor to team.gitconfig, which ~/.gitconfig includes from the workspace",
		setup:   func(e *escEnv) { e.file(filepath.Join(e.ws, "team.gitconfig"), "[pull]\n\trebase = true\n", 0o644) },
		script:  fsmonitorPlant + `team.gitconfig`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, "team.gitconfig"), "fsmonitor") },
		control: func(e *escEnv) escMode { return dropRules("protect-path=" + filepath.Join(e.ws, "team.gitconfig")) },
	},
	{
		name: "system-config-plant",
		what: "add a core.fsmonitor to etc/gitconfig in the workspace, git's system config there (GIT_CONFIG_SYSTEM, a git built with that prefix)",
		setup: func(e *escEnv) {
			e.mkdir(filepath.Join(e.ws, "etc"))
			e.file(filepath.Join(e.ws, "etc/gitconfig"), "[user]\n\tname = u\n", 0o644)
		},
		script:  fsmonitorPlant + `etc/gitconfig`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.ws, "etc/gitconfig"), "fsmonitor") },
		control: func(e *escEnv) escMode { return dropRules("protect-path=" + filepath.Join(e.ws, "etc/gitconfig")) },
	},
	{
		name: "template-dir-plant",
		what: "plant a post-checkout hook in the init.templateDir ~/.gitconfig names, which the next git clone copies and runs",
		setup: func(e *escEnv) {
			e.mkdir(filepath.Join(e.ws, "template/hooks"))
		},
		script:  `printf '#!/bin/sh\necho pwned\n' > template/hooks/post-checkout`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, "template/hooks/post-checkout")) },
		control: func(e *escEnv) escMode { return dropRules("protect-path=" + filepath.Join(e.ws, "template")) },
	},
}

// gitHostFixture writes the pass's host git configuration, naming paths
// in the attempts' workspaces (each attempt's is p.base/NAME/ws), and
// points the environment at it (GIT_CONFIG_SYSTEM, GIT_CONFIG_COUNT's
// pair; no GIT_CONFIG_GLOBAL, which a pass fixture sets) until the
// returned function restores it: call it before the pass's own restore.
func gitHostFixture(t *testing.T, p *escPass) (restore func()) {
	t.Helper()
	ws := func(name string) string { return filepath.Join(p.base, name, "ws") }
	p.escWrite(t, filepath.Join(p.home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n\tfsmonitor = tools/fsmonitor\n"+
		"[include]\n\tpath = "+ws("host-include-plant")+"/team.gitconfig\n"+
		"[init]\n\ttemplateDir = "+ws("template-dir-plant")+"/template\n", 0o644)
	saved := map[string]*string{}
	set := func(k, v string, unset bool) {
		if old, ok := os.LookupEnv(k); ok {
			saved[k] = &old
		} else {
			saved[k] = nil
		}
		if unset {
			os.Unsetenv(k)
		} else {
			os.Setenv(k, v)
		}
	}
	set("GIT_CONFIG_SYSTEM", ws("system-config-plant")+"/etc/gitconfig", false)
	set("GIT_CONFIG_GLOBAL", "", true)
	set("GIT_CONFIG_PARAMETERS", "", true)
	set("XDG_CONFIG_HOME", "", true)
	set("GIT_CONFIG_COUNT", "1", false)
	set("GIT_CONFIG_KEY_0", "filter.team.clean", false)
	set("GIT_CONFIG_VALUE_0", "./scripts/clean.sh", false)
	return func() {
		for k, v := range saved {
			if v == nil {
				os.Unsetenv(k)
			} else {
				os.Setenv(k, *v)
			}
		}
	}
}

// TestEscapeGitHostConfig runs gitHostAttempts as each user, in the
// sandbox and as its control, with the pass's home holding the host's git
// configuration, and logs the table.
func TestEscapeGitHostConfig(t *testing.T) {
	requireBwrap(t)
	tab := newEscTable()
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			pass, restore := newEscPass(t, u)
			defer restore()
			defer gitHostFixture(t, pass)()
			pass.each(t, gitHostAttempts, func(t *testing.T, e *escEnv) {
				cell := "FAILED"
				defer func() { tab.set(e.a.name, u.label, cell) }()
				cell = e.verdict()
			})
		})
	}
	t.Logf("%d attempts; per user:%s", len(gitHostAttempts), tab)
}
