package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// landlockBenchConfig is spawnBenchConfig's with a home of 104 entries
// beside the default hidden set's: 90 files, and 14 directories of the
// default hidden set's (.ssh, .aws, .config/gh, ...), each with a file.
func landlockBenchConfig(b *testing.B) Config {
	cfg := spawnBenchConfig(b)
	home := os.Getenv("HOME")
	for i := range 90 {
		os.WriteFile(filepath.Join(home, fmt.Sprintf("file%02d", i)), nil, 0o644)
	}
	for _, d := range []string{".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".mozilla", ".password-store", ".minikube", ".talos", ".oci", ".aliyun", ".fly", ".wrangler"} {
		os.MkdirAll(filepath.Join(home, d), 0o700)
		os.WriteFile(filepath.Join(home, d, "secret"), nil, 0o600)
	}
	for _, d := range []string{".config/gh", ".config/gcloud", ".local/share/keyrings"} {
		os.MkdirAll(filepath.Join(home, d), 0o700)
	}
	return cfg
}

// BenchmarkLandlockPlan is the reduced backend's PrefixFor: path facts for
// the default hidden set, then the ruleset (its complement, listed over
// the home's entries), beside BenchmarkPrefixFor's bwrap argv for the
// same Config; rules/op is the ruleset's size.
func BenchmarkLandlockPlan(b *testing.B) {
	cfg := landlockBenchConfig(b)
	b.Run("bwrap-PrefixFor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := PrefixFor("linux", cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("landlock-plan", func(b *testing.B) {
		b.ReportAllocs()
		var rules int
		for b.Loop() {
			p, err := newPlan("linux", cfg)
			if err != nil {
				b.Fatal(err)
			}
			rs, err := planLandlock(p, landlockMode(p), 7, false)
			if err != nil {
				b.Fatal(err)
			}
			rules = len(rs.Rules)
		}
		b.ReportMetric(float64(rules), "rules")
	})
	b.Run("landlock-PrefixFor", func(b *testing.B) {
		c := cfg
		c.Backend = BackendLandlock
		b.ReportAllocs()
		for b.Loop() {
			if _, err := PrefixFor("linux", c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLandlockSpawn times one sandboxed /bin/true through NewCmd
// under each backend, side by side in one process, in network modes off
// and proxy: the reduced backend's helper against bwrap.
func BenchmarkLandlockSpawn(b *testing.B) {
	if LandlockABI() < 6 {
		b.Skip("Landlock ABI 6 or later is needed")
	}
	cfg := landlockBenchConfig(b)
	for _, mode := range []NetworkMode{NetworkOff, NetworkProxy} {
		for _, backend := range []Backend{BackendBwrap, BackendLandlock} {
			b.Run(fmt.Sprintf("%s/%s", mode, backend), func(b *testing.B) {
				c := cfg
				c.Backend, c.Network.Mode = backend, mode
				for b.Loop() {
					cmd, err := NewCmd(context.Background(), c, "/bin/true")
					if err != nil {
						b.Fatal(err)
					}
					if err := cmd.Run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
