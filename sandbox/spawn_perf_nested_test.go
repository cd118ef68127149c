//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkPrefixForLargeWorkspace is BenchmarkPrefixFor in a workspace
// of 100,000 files, a git repository with two nested clones: in
// node_modules, 90,000 of them in packages nested 8 deep (the git-search
// walk skips it), the rest in a source tree; and in src alone, 100,000
// files in 5,000 directories, where the walk stops at its bounds
// (git-search-dirs, git-search-entries).
func BenchmarkPrefixForLargeWorkspace(b *testing.B) {
	for _, c := range []struct {
		name                string
		srcDirs, moduleDirs int // directories of 20 files each
	}{
		{"node_modules", 500, 4500},
		{"src", 5000, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := spawnBenchConfig(b)
			ws := cfg.Workspace
			files := 0
			fill := func(dir string) {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < 20; i++ {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", i)), nil, 0o644); err != nil {
						b.Fatal(err)
					}
					files++
				}
			}
			for i := 0; i < c.srcDirs; i++ {
				fill(filepath.Join(ws, "src", fmt.Sprintf("m%d", i/50), fmt.Sprintf("d%d", i%50)))
			}
			for i := 0; i < c.moduleDirs; i++ {
				// node_modules/p0/node_modules/p1/.../lib: 8 packages deep.
				dir := filepath.Join(ws, "node_modules")
				for d := 0; d < 8; d++ {
					dir = filepath.Join(dir, fmt.Sprintf("p%d", (i>>d)%3), "node_modules")
				}
				fill(filepath.Join(dir, fmt.Sprintf("lib%d", i)))
			}
			for _, r := range []string{ws, ws + "/vendor/a", ws + "/vendor/b"} {
				cmd := exec.Command("git", "init", "-q", r)
				cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git init %s: %v: %s", r, err, out)
				}
			}
			if files != 100000 {
				b.Fatalf("%d files, want 100000", files)
			}
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if _, err := PrefixFor("linux", cfg); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time as well as wall time: on a shared machine the wall
			// time of a walk made of syscalls is mostly waiting for a CPU.
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is this process's user and system time so far, in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
