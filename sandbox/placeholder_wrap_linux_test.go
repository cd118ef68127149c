package sandbox

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommandRemovesPlaceholders: Command's spawn makes an empty
// placeholder on the host for a missing protected path (.vscode in the
// workspace) and, in every network mode, its wrap helper removes it once
// bwrap has ended, as NewCmd's Wait does; one the host wrote meanwhile is
// the user's and stays. Control: the same argv without its protect= words
// (the cleanup disabled) leaves the placeholder behind.
func TestCommandRemovesPlaceholders(t *testing.T) {
	requireBwrap(t)
	for _, c := range []struct {
		name           string
		mode           NetworkMode
		hostWrites     bool
		stripProtect   bool
		unpriv         bool // the helper runs as sandtable-test (a Credential), without the caches root made
		wantLeft, want string
	}{
		{name: "off", mode: NetworkOff},
		{name: "host", mode: NetworkHost},
		{name: "proxy", mode: NetworkProxy},
		{name: "written-by-host-stays", mode: NetworkOff, hostWrites: true, want: "the user's\n"},
		{name: "control-no-cleanup", mode: NetworkOff, stripProtect: true, want: ""},
		{name: "unprivileged", mode: NetworkOff, unpriv: true},
		{name: "unprivileged-control-no-cleanup", mode: NetworkOff, unpriv: true, stripProtect: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := realTempDir(t)
			if c.unpriv {
				dir = hostDir(t) // the other user reaches it
			}
			t.Setenv("HOME", mkdir(t, dir, "home"))
			ws := mkdir(t, dir, "ws")
			var cred *syscall.Credential
			if c.unpriv {
				u, err := user.Lookup(escUnprivileged)
				if err != nil || os.Geteuid() != 0 {
					t.Skipf("no unprivileged run: %v (euid %d)", err, os.Geteuid())
				}
				uid, _ := strconv.Atoi(u.Uid)
				gid, _ := strconv.Atoi(u.Gid)
				cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
				(&escUser{uid: uid, gid: gid, cred: cred}).spawnAs(t)
				for _, d := range []string{dir, ws, filepath.Join(dir, "home")} {
					if err := os.Chown(d, uid, gid); err != nil {
						t.Fatal(err)
					}
				}
			}
			ph := filepath.Join(ws, ".vscode")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd, err := Command(ctx, Config{Workspace: ws, Network: Network{Mode: c.mode}, NoCache: c.unpriv}, "sh", "-c", "test -f .vscode && test ! -s .vscode && echo placeholder; read x || true")
			if err != nil {
				t.Fatal(err)
			}
			if c.stripProtect {
				cmd.Args = slices.DeleteFunc(cmd.Args, func(a string) bool { return strings.HasPrefix(a, wrapHelperProtect) })
			}
			if cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// While the command runs, the placeholder is on the host: the
			// spawn made it.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Lstat(ph); err == nil {
					break
				}
				if time.Now().After(deadline) {
					stdin.Close()
					cmd.Wait()
					t.Fatalf("no placeholder %s on the host during the run (output %q)", ph, out.String())
				}
			}
			if c.hostWrites {
				if err := os.WriteFile(ph, []byte("the user's\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			stdin.Close()
			if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "placeholder") {
				t.Fatalf("the run: %v, output %q; want the placeholder seen inside", err, out.String())
			}
			b, err := os.ReadFile(ph)
			left := err == nil
			switch {
			case c.want == "" && !c.stripProtect && !c.hostWrites && left:
				t.Errorf("after the run %s is still there: the spawn's placeholder was not removed", ph)
			case c.stripProtect && !left:
				t.Errorf("control: without protect= words %s is gone (%v); want the placeholder left, as Command left it before", ph, err)
			case c.hostWrites && string(b) != c.want:
				t.Errorf("after the run %s holds %q (%v); want the host's %q kept", ph, b, err, c.want)
			}
		})
	}
}
