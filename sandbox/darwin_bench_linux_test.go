//go:build linux

package sandbox

import "testing"

// BenchmarkPrefixForDarwin is BenchmarkPrefixFor for the macOS profile:
// path facts, the macOS facts (folded patterns, guards, ancestors) and
// the profile, rendered on this machine.
func BenchmarkPrefixForDarwin(b *testing.B) {
	cfg := spawnBenchConfig(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PrefixFor("darwin", cfg); err != nil {
			b.Fatal(err)
		}
	}
}
