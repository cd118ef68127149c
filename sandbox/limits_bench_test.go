//go:build linux

package sandbox

import (
	"context"
	"os"
	"testing"

	"github.com/sandtable/sandtable/internal/cgroup"
)

// BenchmarkSpawnLimits times one sandboxed /bin/true through NewCmd, side
// by side: with the default limits (the processes bound, applied while
// bwrap holds the command: a pids cgroup for a root caller, RLIMIT_NPROC
// otherwise) and with no run-time limit (Processes -1: no window, the
// spawn as it was before the limits).
func BenchmarkSpawnLimits(b *testing.B) {
	cfg := spawnBenchConfig(b)
	if _, err := Prefix(cfg); err != nil {
		b.Skipf("no working sandbox here: %v", err)
	}
	for _, c := range []struct {
		name string
		l    Limits
	}{{"default-limits", Limits{}}, {"no-runtime-limits", Limits{Processes: -1}}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := cfg
			cfg.Limits = c.l
			for b.Loop() {
				cmd, err := NewCmd(context.Background(), cfg, "/bin/true")
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				if u := cmd.Unenforced(); len(u) > 0 {
					b.Fatal(u)
				}
			}
		})
	}
}

// BenchmarkRunGroup is what a root caller's run pays for its pids cgroup:
// make it beneath this process's group, set its limit, remove it.
func BenchmarkRunGroup(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("a root caller's cost")
	}
	for b.Loop() {
		g, err := cgroup.New("pids", "pids.max", "pids.max", "4096")
		if err != nil {
			b.Skip(err)
		}
		if err := g.Remove(); err != nil {
			b.Fatal(err)
		}
	}
}
