//go:build linux

package sandbox

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// BenchmarkPrefixFor is everything a spawn does before it executes: path
// facts for the default hidden set, the PATH lookup of bwrap, the argv.
func BenchmarkPrefixFor(b *testing.B) {
	cfg := spawnBenchConfig(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PrefixFor("linux", cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawn times one sandboxed /bin/true, side by side in one
// process: bwrap run directly with the network-off argv Prefix builds,
// without the wrap helper (the floor, as scripts/bench-network.sh's),
// NewCmd (the check folded into the spawn), Command with the process's
// verdict already known, and Command as the first spawn of a process (the
// probe, then the command), which is what NewCmd replaces; the last three
// in the default network mode.
func BenchmarkSpawn(b *testing.B) {
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
	ctx := context.Background()
	run := func(b *testing.B, start func() error) {
		for b.Loop() {
			if err := start(); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Command's seccomp memfd is the caller's to close after Start.
	runCommand := func(c *exec.Cmd) error {
		if err := c.Start(); err != nil {
			return err
		}
		if n := len(c.ExtraFiles); n > 0 {
			c.ExtraFiles[n-1].Close()
		}
		return c.Wait()
	}
	b.Run("raw-bwrap", func(b *testing.B) {
		run(b, func() error {
			cmd := exec.Command(w.Program, append(w.Args, "/bin/true")...)
			cmd.Dir = cfg.Workspace
			cmd.Env = append(os.Environ(), env...)
			// The argv reads the seccomp filter (a fresh memfd per spawn)
			// and, when a hidden path is a file (/etc/shadow), /dev/null:
			// the same descriptors NewCmd passes.
			fds, owned, err := openFiles(w.Files)
			if err != nil {
				return err
			}
			defer closeAll(owned)
			cmd.ExtraFiles = fds
			return cmd.Run()
		})
	})
	b.Run("NewCmd", func(b *testing.B) {
		run(b, func() error {
			c, err := NewCmd(ctx, cfg, "/bin/true")
			if err != nil {
				return err
			}
			return c.Run()
		})
	})
	b.Run("Command-warm", func(b *testing.B) {
		run(b, func() error {
			c, err := Command(ctx, cfg, "/bin/true")
			if err != nil {
				return err
			}
			return runCommand(c)
		})
	})
	b.Run("Command-first", func(b *testing.B) {
		run(b, func() error {
			bwrapHosts.Delete(w.Program) // as in a new process: probe first
			c, err := Command(ctx, cfg, "/bin/true")
			if err != nil {
				return err
			}
			return runCommand(c)
		})
	})
}

// TestSpawnHelper is a helper process, not a test: scripts/bench-spawn.sh
// runs the test binary as
//
//	sandbox.test -test.run '^TestSpawnHelper$' spawn-helper newcmd|command WORKSPACE
//
// to time the first spawn of a process both ways, from one binary; with
// phases-off, phases-host or phases-proxy it runs NewCmd's spawn in that
// network mode and prints the time of each of its parts (spawnPhases), as
// scripts/bench-network.sh reads them.
func TestSpawnHelper(t *testing.T) {
	args := flag.Args()
	if len(args) != 3 || args[0] != "spawn-helper" {
		t.Skip("a helper process for scripts/bench-spawn.sh")
	}
	mode, cfg := args[1], Config{Workspace: args[2]}
	var err error
	switch mode {
	case "phases-off", "phases-host", "phases-proxy":
		err = spawnPartsOnce(cfg, strings.TrimPrefix(mode, "phases-"))
	case "newcmd":
		var c *Cmd
		if c, err = NewCmd(context.Background(), cfg, "/bin/true"); err == nil {
			err = c.Run()
		}
	case "command":
		var c *exec.Cmd
		if c, err = Command(context.Background(), cfg, "/bin/true"); err == nil {
			err = c.Run()
		}
	default:
		err = fmt.Errorf("spawn-helper: unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
