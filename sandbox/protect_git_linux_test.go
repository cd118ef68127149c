//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitEnv is a git environment that reads no user or system config.
var gitEnv = []string{
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
	"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid",
}

func hostGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Env = append(os.Environ(), gitEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %q: %v: %s", args, err, out)
	}
}

// gitFixture is a repository at ws with a commit, a submodule (sub, its git
// directory in .git/modules) and a linked worktree (wt, inside ws and
// excluded), as a user would have it.
func gitFixture(t *testing.T) (base, ws string) {
	base, _, ws = fixture(t)
	up := mkdir(t, base, "upstream")
	hostGit(t, up, "init", "-q")
	writeFile(t, up, "s", "s\n")
	hostGit(t, up, "add", "s")
	hostGit(t, up, "commit", "-qm", "upstream")
	hostGit(t, ws, "init", "-q")
	writeFile(t, ws, "f", "f\n")
	writeFile(t, ws, ".git/info/exclude", "/wt\n")
	hostGit(t, ws, "add", "f")
	hostGit(t, ws, "commit", "-qm", "one")
	hostGit(t, ws, "submodule", "add", "-q", up, "sub")
	hostGit(t, ws, "commit", "-qm", "sub")
	hostGit(t, ws, "worktree", "add", "-q", "-b", "wt", filepath.Join(ws, "wt"))
	return base, ws
}

func runGit(t *testing.T, cfg Config, script string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, err := NewCmd(ctx, cfg, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	c.Env = append(os.Environ(), gitEnv...)
	out, err := c.CombinedOutput()
	return string(out), err
}

// TestProtectedGitWorks: with the repository's hooks, config, the
// submodule's and the worktree's git directories protected, everyday git
// still works in the sandbox; writing the config does not, until
// AllowGitConfig; and the placeholders are gone afterwards.
func TestProtectedGitWorks(t *testing.T) {
	_, ws := gitFixture(t)
	p, err := newPlan("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		ws + "/.git/config": false, ws + "/.git/hooks": false,
		ws + "/.git/modules/sub/config": false, ws + "/.git/modules/sub/hooks": false,
		ws + "/sub/.git": false, ws + "/wt/.git": false, ws + "/.git/worktrees/wt/commondir": false,
	}
	for _, f := range p.protected {
		if _, ok := want[f.path]; ok {
			want[f.path] = f.kind != kindMissing
		}
	}
	for path, found := range want {
		if !found {
			t.Errorf("%s is not protected: %+v", path, p.protected)
		}
	}

	const everyday = `set -e
git status --short
echo a >> f && git add f && git commit -qm two
git branch b1 && git checkout -q b1 && git checkout -q main
echo x >> f && git stash -q && git stash pop -q && git commit -qam three
git checkout -q -b topic && echo t > t && git add t && git commit -qm topic
git checkout -q main && echo m >> f && git commit -qam four
git checkout -q topic && git rebase -q main && git checkout -q main
(cd sub && echo s >> s && git commit -qam sub-change && git status --short)
(cd wt && echo w > w && git add w && git commit -qm wt-change && git status --short)
git status --short
git worktree list >/dev/null
mkdir fresh && git -C fresh init -q && git -C fresh commit -q --allow-empty -m new
echo EVERYDAY-OK
`
	out, err := runGit(t, Config{Workspace: ws}, everyday)
	if err != nil || !strings.Contains(out, "EVERYDAY-OK") {
		t.Fatalf("everyday git failed in the sandbox: %v\n%s", err, out)
	}
	for _, row := range protectedPaths {
		if row.base == protectRoot {
			if _, err := os.Lstat(filepath.Join(ws, row.path)); err == nil {
				t.Errorf("placeholder %s left behind after the run", row.path)
			}
		}
	}

	// What no longer works: writing the config.
	const configWrite = `git config sandtable.test yes && git remote add origin /nowhere && echo CONFIG-WRITTEN`
	if out, _ := runGit(t, Config{Workspace: ws}, configWrite); strings.Contains(out, "CONFIG-WRITTEN") {
		t.Fatalf("the protected config was written: %s", out)
	}
	if out, err := runGit(t, Config{Workspace: ws, AllowGitConfig: true}, configWrite); err != nil || !strings.Contains(out, "CONFIG-WRITTEN") {
		t.Errorf("AllowGitConfig did not let git config write: %v\n%s", err, out)
	}
}
