//go:build linux

package sandbox

import "path/filepath"

// The nested repository attacks: a workspace holding several checkouts
// (~/code), a monorepo with a nested clone, a bare repository used as a
// local remote. Each repository below the root is found by the
// git-search walk and protected like the root's (protect-git-config,
// protect-git-hooks); the control drops the one protect-path step of the
// nested path, so the same write is shown to work without it.

var gitNestAttempts = []*attempt{
	{
		name: "nested-repo-hook",
		what: "plant a post-checkout hook in a repository below the workspace (code/app/.git/hooks)",
		setup: func(e *escEnv) {
			e.vars["R"] = e.mkdir(filepath.Join(e.ws, "code/app"))
			e.gitRepo(e.vars["R"])
		},
		script: `printf '#!/bin/sh\necho pwned\n' > code/app/.git/hooks/post-checkout && chmod +x code/app/.git/hooks/post-checkout`,
		escaped: func(e *escEnv, r *escResult) bool {
			return exists(filepath.Join(e.vars["R"], ".git/hooks/post-checkout"))
		},
		control: func(e *escEnv) escMode {
			return dropRules("protect-path=" + filepath.Join(e.vars["R"], ".git/hooks"))
		},
	},
	{
		name: "nested-repo-fsmonitor",
		what: "set core.fsmonitor in a nested clone's .git/config, which git status there runs",
		setup: func(e *escEnv) {
			e.vars["R"] = e.mkdir(filepath.Join(e.ws, "vendor/lib"))
			e.gitRepo(e.vars["R"])
		},
		script: fsmonitorPlant + `vendor/lib/.git/config`,
		escaped: func(e *escEnv, r *escResult) bool {
			return fileHas(filepath.Join(e.vars["R"], ".git/config"), "fsmonitor")
		},
		control: func(e *escEnv) escMode {
			return dropRules("protect-path=" + filepath.Join(e.vars["R"], ".git/config"))
		},
	},
	{
		name: "nested-bare-hook",
		what: "plant a post-receive hook in a bare repository below the workspace, which a local push runs",
		setup: func(e *escEnv) {
			e.vars["R"] = filepath.Join(e.ws, "remote.git")
			e.git(e.ws, "init", "-q", "--bare", e.vars["R"])
			e.chownAll(e.ws)
		},
		script:  `printf '#!/bin/sh\necho pwned\n' > remote.git/hooks/post-receive`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.vars["R"], "hooks/post-receive")) },
		control: func(e *escEnv) escMode {
			return dropRules("protect-path=" + filepath.Join(e.vars["R"], "hooks"))
		},
	},
}
