package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// mkProtected creates every $root row of the protect section under root,
// as a directory, so that no placeholder is needed there.
func mkProtected(t *testing.T, root string) {
	t.Helper()
	for _, row := range protectedPaths {
		if row.base == protectRoot {
			if err := os.MkdirAll(filepath.Join(root, row.path), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// protectRootRows is how many rows of the protect section are under $root.
func protectRootRows() int {
	n := 0
	for _, row := range protectedPaths {
		if row.base == protectRoot {
			n++
		}
	}
	return n
}

func TestGitConfigCore(t *testing.T) {
	for _, c := range []struct{ in, hooks, wt string }{
		{"[core]\n\thooksPath = .husky\n", ".husky", ""},
		{"[Core]\n\tHooksPath=\"a b\" ; comment\n\tworktree = ../../../sub\n", "a b", "../../../sub"},
		{"[core \"x\"]\n\thooksPath = no\n[core] hooksPath = inline\n", "inline", ""},
		{"[core]\nhooksPath = first\n[alias]\nhooksPath = other\n[core]\nhooksPath = last # c\n", "last", ""},
		{"[core\nhooksPath = broken\n", "", ""},
	} {
		h, w := gitConfigCore([]byte(c.in))
		if h != c.hooks || w != c.wt {
			t.Errorf("%q: hooksPath %q worktree %q, want %q %q", c.in, h, w, c.hooks, c.wt)
		}
	}
}

// TestFindGitDefensive: what findGit reads was written by the sandbox
// before it was protected, so a pointer leads only into a writable root,
// never through a link there, and every file is bounded.
func TestFindGitDefensive(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	outside := mkdir(t, dir, "outside", "gitdir")
	mkdir(t, outside, "hooks")

	t.Run("pointer outside the roots", func(t *testing.T) {
		ws := mkdir(t, dir, "ws1")
		writeFile(t, ws, ".git", "gitdir: "+outside+"\n")
		p, err := newPlan("linux", Config{Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.protected {
			if strings.HasPrefix(f.path, outside) {
				t.Errorf("protected outside the workspace: %s", f.path)
			}
		}
		if !slices.ContainsFunc(p.protected, func(f pathFact) bool { return f.path == ws+"/.git" && f.kind == kindFile }) {
			t.Errorf("the .git file itself is not protected: %+v", p.protected)
		}
	})
	t.Run("pointer through a link in the workspace", func(t *testing.T) {
		ws := mkdir(t, dir, "ws2")
		mkdir(t, ws, "real", "hooks")
		if err := os.Symlink(filepath.Join(ws, "real"), filepath.Join(ws, "link")); err != nil {
			t.Fatal(err)
		}
		writeFile(t, ws, ".git", "gitdir: link\n")
		if _, err := newPlan("linux", Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "symlink") {
			t.Errorf("newPlan = %v, want a refusal of the re-pointable link", err)
		}
	})
	t.Run("oversized config", func(t *testing.T) {
		ws := mkdir(t, dir, "ws3")
		mkdir(t, ws, ".git")
		writeFile(t, ws, ".git/config", strings.Repeat("#", maxGitConfig+1))
		if _, err := newPlan("linux", Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "too large") {
			t.Errorf("newPlan = %v, want a refusal of a config over %d bytes", err, maxGitConfig)
		}
	})
	t.Run("symlinked .git and hooks", func(t *testing.T) {
		ws := mkdir(t, dir, "ws4")
		if err := os.Symlink(outside, filepath.Join(ws, ".git")); err != nil {
			t.Fatal(err)
		}
		if _, err := newPlan("linux", Config{Workspace: ws}); !errors.Is(err, ErrBadPath) {
			t.Errorf(".git as a symlink: newPlan = %v, want ErrBadPath", err)
		}
		ws = mkdir(t, dir, "ws5")
		mkdir(t, ws, ".git")
		if err := os.Symlink(filepath.Join(outside, "hooks"), filepath.Join(ws, ".git/hooks")); err != nil {
			t.Fatal(err)
		}
		if _, err := newPlan("linux", Config{Workspace: ws}); !errors.Is(err, ErrBadPath) {
			t.Errorf(".git/hooks as a symlink: newPlan = %v, want ErrBadPath", err)
		}
	})
	t.Run("hooksPath outside, FIFO config", func(t *testing.T) {
		ws := mkdir(t, dir, "ws6")
		mkdir(t, ws, ".git")
		if err := syscall.Mkfifo(filepath.Join(ws, ".git/config"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := newPlan("linux", Config{Workspace: ws}); err != nil {
			t.Errorf("a FIFO config must be skipped without blocking: %v", err)
		}
	})
	t.Run("opt-out", func(t *testing.T) {
		ws := mkdir(t, dir, "ws7")
		mkdir(t, ws, ".git", "hooks")
		writeFile(t, ws, ".git/config", "[core]\n")
		p, err := newPlan("linux", Config{Workspace: ws, AllowGitConfig: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.protected {
			if f.path == ws+"/.git/config" {
				t.Errorf("AllowGitConfig still protects %s", f.path)
			}
		}
		if !slices.ContainsFunc(p.protected, func(f pathFact) bool { return f.path == ws+"/.git/hooks" }) {
			t.Errorf("AllowGitConfig dropped the hooks too: %+v", p.protected)
		}
	})
}

// TestStrictlyUnder checks strictlyUnder against what it replaces.
func TestStrictlyUnder(t *testing.T) {
	paths := []string{"/", "/a", "/ab", "/a/b", "/a/b/c", "/b", "//a", "/a/", "/aa/b"}
	for _, p := range paths {
		for _, d := range paths {
			if got, want := strictlyUnder(p, d), strings.HasPrefix(p, d+"/"); got != want {
				t.Errorf("strictlyUnder(%q, %q) = %v, want %v", p, d, got, want)
			}
		}
	}
	if n := fewestAllocs(0, func() {
		strictlyUnder("/var/tmp/sandtable-bench-123456/ws/.git/hooks", "/var/tmp/sandtable-bench-123456/ws")
	}); n != 0 {
		t.Errorf("strictlyUnder allocates %v times", n)
	}
}
