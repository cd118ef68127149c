//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// listenMany opens n listening sockets in a fresh directory outside /tmp
// and the workspace, under /run where services keep theirs, as a busy host
// has (one per service, agent, editor).
func listenMany(b *testing.B, n int) {
	b.Helper()
	dir, err := os.MkdirTemp("/run", "sandtable-bench-sockets-")
	if err != nil {
		b.Skip(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var lns []*net.UnixListener
	b.Cleanup(func() {
		for _, ln := range lns {
			ln.Close()
		}
		os.RemoveAll(dir)
	})
	for i := range n {
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, fmt.Sprintf("s%d.sock", i)), Net: "unix"})
		if err != nil {
			b.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		lns = append(lns, ln)
	}
}

var socketCounts = []int{0, 16, 256}

// BenchmarkPrefixForSockets is BenchmarkPrefixFor on a host with n named
// sockets outside the workspace: each is listed, resolved and hidden.
func BenchmarkPrefixForSockets(b *testing.B) {
	for _, n := range socketCounts {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cfg := spawnBenchConfig(b)
			listenMany(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := PrefixFor("linux", cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSpawnSockets is one NewCmd spawn of /bin/true on such a host:
// bwrap mounts over each socket.
func BenchmarkSpawnSockets(b *testing.B) {
	for _, n := range socketCounts {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cfg := spawnBenchConfig(b)
			listenMany(b, n)
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
