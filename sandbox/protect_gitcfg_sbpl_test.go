package sandbox

import (
	"os"
	"os/exec"
	"testing"
)

// TestGitConfigProtectDecisions judges, with the SBPL evaluator, the macOS
// profile of a workspace the host's git configuration and a nested
// repository reach: ~/.gitconfig's core.hooksPath (.githooks, missing)
// and core.fsmonitor (tools/fsmonitor), GIT_CONFIG_COUNT's clean filter,
// the hooks and config of a repository below the root and of a bare one.
// Each write is denied by protect-deny, and allowed without it; the
// workspace's other files stay writable.
func TestGitConfigProtectDecisions(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", mkdir(t, dir, "xdg-cache"))
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	unsetenv(t, "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "filter.team.clean")
	t.Setenv("GIT_CONFIG_VALUE_0", "./scripts/clean.sh")
	writeFile(t, home, ".gitconfig", "[core]\n\thooksPath = .githooks\n\tfsmonitor = tools/fsmonitor\n")
	ws := mkdir(t, dir, "ws")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Env = append(cmd.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v: %s", args, err, out)
		}
	}
	git("init", "-q", ws)
	git("init", "-q", ws+"/code/app")
	git("init", "-q", "--bare", ws+"/remote.git")
	writeFile(t, ws, "tools/fsmonitor", "#!/bin/sh\n")
	writeFile(t, ws, "scripts/clean.sh", "#!/bin/sh\ncat\n")

	p, err := newPlan("darwin", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	steps := darwinSteps(p)
	forms, err := readPolicy(steps)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := readPolicy(without(steps, "protect-deny", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		name  string
		q     sbplRequest
		allow bool
	}{
		{"create .githooks/pre-commit (core.hooksPath)", sbplRequest{op: "file-write-create", path: ws + "/.githooks/pre-commit"}, false},
		{"create .GitHooks/pre-commit", sbplRequest{op: "file-write-create", path: ws + "/.GitHooks/pre-commit"}, false},
		{"create a nested repository's .githooks", sbplRequest{op: "file-write-create", path: ws + "/code/app/.githooks/pre-commit"}, false},
		{"rewrite tools/fsmonitor (core.fsmonitor)", sbplRequest{op: "file-write-data", path: ws + "/tools/fsmonitor"}, false},
		{"rewrite scripts/clean.sh (GIT_CONFIG_COUNT's filter)", sbplRequest{op: "file-write-data", path: ws + "/scripts/clean.sh"}, false},
		{"plant a nested repository's hook", sbplRequest{op: "file-write-create", path: ws + "/code/app/.git/hooks/post-checkout"}, false},
		{"set a nested repository's core.fsmonitor", sbplRequest{op: "file-write-data", path: ws + "/code/app/.git/config"}, false},
		{"plant a bare repository's hook", sbplRequest{op: "file-write-create", path: ws + "/remote.git/hooks/post-receive"}, false},
		{"write another script", sbplRequest{op: "file-write-data", path: ws + "/scripts/build.sh"}, true},
		{"write a nested repository's object", sbplRequest{op: "file-write-create", path: ws + "/code/app/.git/objects/ab/cd"}, true},
	} {
		got, at := decide(forms, e.q)
		by := "no rule"
		if at >= 0 {
			by = forms[at].rule
		}
		if got != e.allow || !e.allow && by != "protect-deny" {
			t.Errorf("%s (%s): %s by %s, want %s", e.name, e.q, answer(got), by, answer(e.allow))
			continue
		}
		if !e.allow {
			if cut, _ := decide(bare, e.q); !cut {
				t.Errorf("%s (%s): denied without protect-deny too; the entry proves nothing", e.name, e.q)
			}
		}
		t.Logf("%-54s %s by %s", e.name+":", answer(got), by)
	}
}

// unsetenv unsets the variables names until t ends.
func unsetenv(t *testing.T, names ...string) {
	t.Helper()
	for _, k := range names {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}
