package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRespawnVanishedSocket removes a host socket the spawn listed (and
// hides, hide-host-socket) after NewCmd and before Start, which bwrap's
// mount over it then fails on: Wait runs the spawn again with the sockets
// listed anew, and the command runs. The control, without the respawn,
// fails with the error that names the socket. As root and as the
// unprivileged user starting bwrap.
func TestRespawnVanishedSocket(t *testing.T) {
	requireBwrap(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			for _, respawn := range []bool{true, false} {
				base := hostDir(t)
				if err := os.Chmod(base, 0o755); err != nil {
					t.Fatal(err)
				}
				newHome(t, base)
				ws := mkdir(t, base, "ws")
				if u.cred != nil {
					if err := os.Chown(ws, u.uid, u.gid); err != nil {
						t.Fatal(err)
					}
				}
				// Listed by this process alone (listAlso): a real socket's
				// removal would fail the other test binary's spawns too.
				sock := filepath.Join(runDir(t), "vanishing.sock")
				socketFile(t, sock)
				listAlso(t, sock)
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				c, err := NewCmd(ctx, Config{Workspace: ws, NoCache: u.cred != nil}, "sh", "-c", "echo ran")
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(c.checked.plan.sockets, func(f pathFact) bool { return f.path == sock }) {
					t.Fatalf("the spawn does not hide %s: %v", sock, c.checked.plan.sockets)
				}
				if err := os.Remove(sock); err != nil { // gone before bwrap mounts over it
					t.Fatal(err)
				}
				if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s is still there: %v", sock, err)
				}
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				var out, stderr bytes.Buffer
				c.Stdout, c.Stderr = &out, &stderr
				respawnVanished = respawn
				err = c.Run()
				respawnVanished = true
				if respawn {
					if err != nil || out.String() != "ran\n" || !c.checked.respawned {
						t.Errorf("with the respawn: %v, out %q, respawned %v; stderr %s", err, out.String(), c.checked.respawned, stderr.String())
					}
					continue
				}
				if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), sock+" was removed while the sandbox was being built") || out.Len() != 0 {
					t.Errorf("control, without the respawn: %v, out %q, want the removed socket's error", err, out.String())
				}
			}
		})
	}
}
