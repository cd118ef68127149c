package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchBeforeSandboxMounts: the watch must be in place before bwrap
// mounts anything. A hidden file the host replaces by rename after bwrap
// covered it, and before the watch looks, leaves the name uncovered in the
// sandbox (the kernel detaches the mount) with no event to stop the run.
// The watch's setup is held (a lookup of its own, made slow) until bwrap
// has mounted over the hidden file or 3 s have passed; the host then
// replaces it, and the command reads it. As root and as the unprivileged
// user. The control is Command, which watches nothing: the same sequence
// reads the new secret.
func TestWatchBeforeSandboxMounts(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			dir := mkdir(t, base, u.label)
			ws := wrapHelperWorkspace(t, dir, u)
			cred := writeFile(t, dir, "cred", "OLD-SECRET\n")
			slow := mkdir(t, dir, "slow")
			goFile := filepath.Join(dir, "go")
			cfg := Config{Workspace: ws, NoCache: u.cred != nil, Hidden: []string{cred, slow + "/missing"}}
			script := `for i in $(seq 200); do [ -e "$2" ] && break; sleep 0.05; done; echo "read:[$(cat "$1" 2>&1)]"`

			run := func(t *testing.T, watched bool) (string, error) {
				os.Remove(goFile)
				writeFile(t, dir, "cred", "OLD-SECRET\n")
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				var out lockedBuffer
				var start, wait func() error
				attr := &syscall.SysProcAttr{}
				if u.cred != nil {
					attr.Credential = u.cred
				}
				if watched {
					c, err := NewCmd(ctx, cfg, "bash", "-c", script, "bash", cred, goFile)
					if err != nil {
						t.Fatal(err)
					}
					c.SysProcAttr, c.Stdout, c.Stderr = attr, &out, &out
					// The watch finds its targets itself, with the
					// lstat the test holds for slow.
					p := *c.checked.plan
					p.watchPlanned = false
					c.checked.plan = &p
					start, wait = c.Start, c.Wait
				} else {
					c, err := Command(ctx, cfg, "bash", "-c", script, "bash", cred, goFile)
					if err != nil {
						t.Fatal(err)
					}
					c.SysProcAttr, c.Stdout, c.Stderr = attr, &out, &out
					start, wait = c.Start, c.Wait
				}
				release := make(chan struct{})
				own := lstat
				lstat = func(name string) (fs.FileInfo, error) {
					if name == slow {
						select {
						case <-release:
						case <-time.After(10 * time.Second):
						}
					}
					return os.Lstat(name)
				}
				defer func() { lstat = own }()
				started := make(chan error, 1)
				go func() { started <- start() }()
				if mountedOver(cred, 3*time.Second) {
					t.Logf("watched=%v: bwrap mounted over %s, and the host replaces it now", watched, cred)
				} else {
					t.Logf("watched=%v: bwrap had not mounted over %s in 3s: the host replaces it now", watched, cred)
				}
				tmp := writeFile(t, dir, "cred.tmp", "NEW-SECRET\n")
				if err := os.Rename(tmp, cred); err != nil {
					t.Fatal(err)
				}
				close(release)
				if err := os.WriteFile(goFile, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := <-started; err != nil {
					return out.String(), err
				}
				err := wait()
				return out.String(), err
			}

			out, err := run(t, true)
			t.Logf("sandbox: %v: %q", err, out)
			if strings.Contains(out, "NEW-SECRET") {
				t.Errorf("the sandbox read the hidden file the host replaced before the watch was set up (%v): %q", err, out)
			} else if err != nil && !errors.Is(err, ErrHostChanged) {
				t.Errorf("run = %v (%q), want ErrHostChanged or a hidden file", err, out)
			}
			if out, err := run(t, false); !strings.Contains(out, "NEW-SECRET") {
				t.Errorf("control: Command did not read the replaced file (%v: %q): the test shows no attack", err, out)
			}
		})
	}
}

// mountedOver reports whether some process has a mount at target within d
// (bwrap's child, once it has covered a hidden path).
func mountedOver(target string, d time.Duration) bool {
	needle := " " + target + " "
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		pids, _ := filepath.Glob("/proc/[0-9]*/mountinfo")
		for _, f := range pids {
			b, err := os.ReadFile(f)
			if err == nil && strings.Contains(string(b), needle) {
				return true
			}
		}
	}
	return false
}
