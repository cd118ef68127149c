package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkCommandNetwork times one sandboxed /bin/true through Command
// (with the process's verdict known) in each network mode. Run on two
// trees, its modes host and off show what the wrap helper in front of
// bwrap costs per spawn.
func BenchmarkCommandNetwork(b *testing.B) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("bwrap not on PATH")
	}
	cfg := spawnBenchConfig(b)
	cfg.Policy = Required
	for _, m := range []NetworkMode{NetworkOff, NetworkHost} {
		b.Run(m.String(), func(b *testing.B) {
			cfg.Network.Mode = m
			for b.Loop() {
				c, err := Command(context.Background(), cfg, "/bin/true")
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Start(); err != nil {
					b.Fatal(err)
				}
				if n := len(c.ExtraFiles); n > 0 {
					c.ExtraFiles[n-1].Close() // the seccomp memfd, the caller's to close
				}
				if err := c.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
