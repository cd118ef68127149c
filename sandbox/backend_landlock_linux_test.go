package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

func requireLandlock(t *testing.T) {
	t.Helper()
	if LandlockABI() < 6 {
		msg := "Landlock ABI 6 or later is needed (this kernel's: %d)"
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatalf(msg, LandlockABI())
		}
		t.Skipf(msg, LandlockABI())
	}
}

// TestLandlockNewCmdAndCommand runs one script under the reduced backend
// through NewCmd and through Command: it cannot read a hidden file nor
// write outside the workspace, writes the workspace and its TMPDIR, and
// the run says it is reduced. The control: under Off the same script
// reads the secret and writes outside.
func TestLandlockNewCmdAndCommand(t *testing.T) {
	requireLandlock(t)
	base, home, ws := fixture(t)
	secret := writeFile(t, mkdir(t, home, ".ssh"), "id", "SANDTABLE-LL-SECRET")
	out := filepath.Join(base, "outside")
	script := `cat ` + secret + `; echo x > ` + out + ` && echo WROTE-OUTSIDE; echo y > in && echo WROTE-WS; touch "$TMPDIR/t" && echo WROTE-TMP; case "$TMPDIR" in /tmp/sandtable-run-*) echo TMPDIR-PRIVATE;; esac`
	run := func(cfg Config, viaCommand bool) (string, Backend) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		var b bytes.Buffer
		if viaCommand {
			cmd, err := Command(ctx, cfg, "sh", "-c", script)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout, cmd.Stderr = &b, &b
			_ = cmd.Run()
			return b.String(), BackendLandlock
		}
		cmd, err := NewCmd(ctx, cfg, "sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = &b, &b
		_ = cmd.Run()
		return b.String(), cmd.Backend()
	}
	for _, via := range []bool{false, true} {
		cfg := Config{Workspace: ws, Backend: BackendLandlock, Network: Network{Mode: NetworkOff}}
		got, backend := run(cfg, via)
		if backend != BackendLandlock {
			t.Errorf("Backend() = %v", backend)
		}
		for _, bad := range []string{"SANDTABLE-LL-SECRET", "WROTE-OUTSIDE"} {
			if strings.Contains(got, bad) {
				t.Errorf("via Command %v: %s:\n%s", via, bad, got)
			}
		}
		for _, want := range []string{"WROTE-WS", "WROTE-TMP", "TMPDIR-PRIVATE", "sandtable: reduced sandbox (backend landlock"} {
			if !strings.Contains(got, want) {
				t.Errorf("via Command %v: lacks %s:\n%s", via, want, got)
			}
		}
		os.Remove(out)
	}
	got, _ := run(Config{Workspace: ws, Policy: Off, Backend: BackendLandlock}, false)
	if !strings.Contains(got, "SANDTABLE-LL-SECRET") || !strings.Contains(got, "WROTE-OUTSIDE") {
		t.Errorf("control (Off): %s", got)
	}
}

// TestLandlockRefuses: what the reduced backend cannot enforce is refused
// before anything runs, one error each.
func TestLandlockRefuses(t *testing.T) {
	requireLandlock(t)
	_, _, ws := fixture(t)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Limits: Limits{Memory: 1 << 30}}, "Limits.Memory"},
		{Config{Limits: Limits{TmpSize: 1 << 20}}, "Limits.TmpSize"},
		{Config{Limits: Limits{Processes: 10}}, "Limits.Processes"},
		{Config{Limits: Limits{CPUTime: time.Second}}, "Limits.CPUTime"},
	} {
		c.cfg.Workspace, c.cfg.Backend = ws, BackendLandlock
		if _, err := NewCmd(t.Context(), c.cfg, "true"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
	if _, err := PrefixFor("darwin", Config{Workspace: ws, Backend: BackendLandlock}); err == nil {
		t.Error("the reduced backend rendered for darwin")
	}
}

// TestLandlockProtect: under detection (the default) a run that writes a
// protected path is killed, fails, and finds the path put back; one that
// makes a missing one finds it removed. Under the read-only row the write
// fails at once and the run goes on. The control: a run that writes
// nothing protected succeeds and leaves its files.
func TestLandlockProtect(t *testing.T) {
	requireLandlock(t)
	_, _, ws := fixture(t)
	mkdir(t, ws, ".git", "hooks")
	cfgFile := writeFile(t, filepath.Join(ws, ".git"), "config", "[core]\n")
	run := func(cfg Config, script string) (string, error) {
		cfg.Workspace, cfg.Backend, cfg.Network = ws, BackendLandlock, Network{Mode: NetworkOff}
		cmd, err := NewCmd(t.Context(), cfg, "sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(Config{}, `echo '[core] fsmonitor = evil' >> .git/config; sleep 5; echo AFTER`)
	if err == nil || strings.Contains(out, "AFTER") || !strings.Contains(out, "protected path") {
		t.Errorf("detect: %v:\n%s", err, out)
	}
	if b, _ := os.ReadFile(cfgFile); string(b) != "[core]\n" {
		t.Errorf("detect: .git/config not put back: %q", b)
	}
	out, err = run(Config{}, `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit`)
	if _, serr := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit")); err == nil || serr == nil {
		t.Errorf("detect: the hook stayed (%v, %v):\n%s", err, serr, out)
	}
	out, err = run(Config{}, `mkdir .vscode && echo '{}' > .vscode/tasks.json`)
	if _, serr := os.Stat(filepath.Join(ws, ".vscode")); err == nil || serr == nil {
		t.Errorf("detect: .vscode stayed (%v, %v):\n%s", err, serr, out)
	}
	out, err = run(Config{LandlockProtectReadOnly: true}, `echo evil >> .git/config || echo REFUSED; echo AFTER`)
	if err != nil || !strings.Contains(out, "REFUSED") || !strings.Contains(out, "AFTER") {
		t.Errorf("read-only: %v:\n%s", err, out)
	}
	if b, _ := os.ReadFile(cfgFile); string(b) != "[core]\n" {
		t.Errorf("read-only: .git/config written: %q", b)
	}
	out, err = run(Config{}, `echo ok > main.go && mkdir -p node_modules/x && git --version >/dev/null && echo DONE`)
	if err != nil || !strings.Contains(out, "DONE") {
		t.Errorf("control: %v:\n%s", err, out)
	}
}

// TestLandlockTmpdirRemoved: a command that leaves a read-only tree in
// its TMPDIR (a Go module cache, chmod a-w) and makes TMPDIR itself
// read-only leaves nothing behind under the reduced backend, whose TMPDIR
// is on the host, and a symlink it leaves there to a read-only directory
// outside is not followed. The control: the same tree made outside the
// sandbox defeats a plain rm -rf by the unprivileged user.
func TestLandlockTmpdirRemoved(t *testing.T) {
	requireLandlock(t)
	const tree = `mkdir -p "$D/mod/x" && touch "$D/mod/x/f" && ln -s "$KEEP" "$D/mod/link" && chmod -R a-w "$D/mod" && chmod 500 "$D"`
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			base := hostDir(t)
			keep := filepath.Join(base, "keep")
			for _, d := range []string{base, filepath.Join(base, "home"), filepath.Join(base, "ws"), keep} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if u.cred != nil {
					if err := os.Chown(d, u.uid, u.gid); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := os.Chmod(keep, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", filepath.Join(base, "home"))
			u.spawnAs(t)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd, err := NewCmd(ctx, Config{Workspace: filepath.Join(base, "ws"), Backend: BackendLandlock, NoCache: true, Network: Network{Mode: NetworkOff}},
				"sh", "-c", `D="$TMPDIR"; `+tree+` && echo "TMP=$D"`)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(cmd.Env, "KEEP="+keep)
			if u.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			var b bytes.Buffer
			cmd.Stdout, cmd.Stderr = &b, &b
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			_, after, ok := strings.Cut(b.String(), "TMP=")
			tmp := strings.TrimSpace(after)
			if !ok || !strings.HasPrefix(tmp, "/") {
				t.Fatalf("the command did not name its TMPDIR:\n%s", b.String())
			}
			if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
				t.Errorf("the run's TMPDIR %s is still there: %v", tmp, err)
				testkit.RemoveAll(tmp)
			}
			if fi, err := os.Stat(keep); err != nil || fi.Mode().Perm() != 0o555 {
				t.Errorf("the directory outside that a symlink named: %v, %v (want mode 0555)", fi, err)
			}
			if u.cred == nil {
				return // root's rm -rf removes any tree: no control
			}
			d := filepath.Join(base, "control")
			ctl := exec.Command("sh", "-c", tree+`; rm -rf "$D" 2>/dev/null; test -e "$D" && echo LEFT`)
			ctl.Env = append(os.Environ(), "D="+d, "KEEP="+keep)
			ctl.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			if out, _ := ctl.CombinedOutput(); !strings.Contains(string(out), "LEFT") {
				t.Errorf("control: rm -rf removed the tree, so it proves nothing: %s", out)
			}
		})
	}
}
