//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"testing"
)

// BenchmarkPrefixForRepo is BenchmarkPrefixFor with a workspace that is a
// git repository with a submodule and a linked worktree, so the protect
// section has git directories to find and read.
func BenchmarkPrefixForRepo(b *testing.B) {
	cfg := spawnBenchConfig(b)
	ws := cfg.Workspace
	up := ws + "/../upstream"
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always",
			"-c", "user.name=b", "-c", "user.email=b@example.invalid"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %q: %v: %s", args, err, out)
		}
	}
	if err := os.Mkdir(up, 0o755); err != nil {
		b.Fatal(err)
	}
	git(up, "init", "-q")
	git(up, "commit", "-q", "--allow-empty", "-m", "up")
	git(ws, "init", "-q")
	git(ws, "commit", "-q", "--allow-empty", "-m", "one")
	git(ws, "submodule", "add", "-q", up, "sub")
	git(ws, "commit", "-qm", "sub")
	git(ws, "worktree", "add", "-q", "-b", "wt", ws+"/wt")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PrefixFor("linux", cfg); err != nil {
			b.Fatal(err)
		}
	}
}
