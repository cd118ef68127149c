package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkSpawnNetwork times one sandboxed /bin/true through NewCmd in
// each network mode, side by side: proxy's difference to off is the
// network helper's cost per spawn (its re-execution, the namespaces, the
// loopback and the listeners handed over).
func BenchmarkSpawnNetwork(b *testing.B) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("bwrap not on PATH")
	}
	cfg := spawnBenchConfig(b)
	cfg.Policy = Required
	for _, m := range []NetworkMode{NetworkOff, NetworkHost, NetworkProxy} {
		b.Run(m.String(), func(b *testing.B) {
			cfg.Network.Mode = m
			for b.Loop() {
				c, err := NewCmd(context.Background(), cfg, "/bin/true")
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
