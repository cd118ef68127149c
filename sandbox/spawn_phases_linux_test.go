package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// spawnParts are the parts of a NewCmd spawn spawnPhases names, in order.
var spawnParts = []string{"plan", "check", "locks", "stdio", "window", "exec", "bwrap", "release", "watch", "command", "after"}

// BenchmarkSpawnPhases times one sandboxed /bin/true through NewCmd in
// each network mode, and reports the median of each part of the spawn
// (spawnPhases) as PART-µs beside the whole: a spawn that grew shows
// which part did. raw-bwrap is the floor, bwrap run directly with the
// network-off argv (as BenchmarkSpawn's): its bwrap and command parts
// are what NewCmd cannot do without.
func BenchmarkSpawnPhases(b *testing.B) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("bwrap not on PATH")
	}
	cfg := spawnBenchConfig(b)
	off := cfg
	off.Network.Mode = NetworkOff
	w, err := Prefix(off)
	if err != nil {
		b.Skipf("no working sandbox here: %v", err)
	}
	if _, err := splitHelper(&w); err != nil {
		b.Fatal(err)
	}
	env := slices.DeleteFunc(slices.Clone(w.Env), func(kv string) bool { return strings.HasPrefix(kv, wrapHelperEnv+"=") })
	b.Run("raw-bwrap", func(b *testing.B) {
		var total []time.Duration
		for b.Loop() {
			start := time.Now()
			cmd := exec.Command(w.Program, append(w.Args, "/bin/true")...)
			cmd.Dir = cfg.Workspace
			cmd.Env = append(os.Environ(), env...)
			fds, owned, err := openFiles(w.Files)
			if err != nil {
				b.Fatal(err)
			}
			cmd.ExtraFiles = fds
			err = cmd.Run()
			closeAll(owned)
			if err != nil {
				b.Fatal(err)
			}
			total = append(total, time.Since(start))
		}
		b.ReportMetric(medianMicros(total), "median-µs")
	})
	for _, mode := range []NetworkMode{NetworkOff, NetworkHost, NetworkProxy} {
		b.Run(mode.String(), func(b *testing.B) {
			c := cfg
			c.Network.Mode = mode
			parts := map[string][]time.Duration{}
			var total []time.Duration
			var last time.Time
			spawnPhases = func(part string) {
				now := time.Now()
				parts[part] = append(parts[part], now.Sub(last))
				last = now
			}
			b.Cleanup(func() { spawnPhases = nil })
			for b.Loop() {
				start := time.Now()
				last = start
				cmd, err := NewCmd(context.Background(), c, "/bin/true")
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				total = append(total, time.Since(start))
			}
			b.ReportMetric(medianMicros(total), "median-µs")
			for _, p := range spawnParts {
				if d := parts[p]; len(d) > 0 {
					b.ReportMetric(medianMicros(d), p+"-µs")
				}
			}
		})
	}
}

func medianMicros(d []time.Duration) float64 {
	s := slices.Sorted(slices.Values(d))
	return float64(s[len(s)/2]) / float64(time.Microsecond)
}

// spawnPartsOnce runs one NewCmd spawn of /bin/true in network mode mode
// and prints each part's time, "PART MICROSECONDS" a line.
func spawnPartsOnce(cfg Config, mode string) error {
	m, err := ParseNetworkMode(mode)
	if err != nil {
		return err
	}
	cfg.Network.Mode = m
	var lines []string
	last := time.Now()
	start := last
	spawnPhases = func(part string) {
		now := time.Now()
		lines = append(lines, fmt.Sprintf("%s %.0f", part, float64(now.Sub(last))/float64(time.Microsecond)))
		last = now
	}
	defer func() { spawnPhases = nil }()
	c, err := NewCmd(context.Background(), cfg, "/bin/true")
	if err != nil {
		return err
	}
	if err := c.Run(); err != nil {
		return err
	}
	lines = append(lines, fmt.Sprintf("total %.0f", float64(time.Since(start))/float64(time.Microsecond)))
	fmt.Println(strings.Join(lines, "\n"))
	return nil
}
