//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/cgroup"
	"github.com/sandtable/sandtable/internal/testkit"
)

// limitRun runs a python3 snippet with NewCmd as u under cfg (its
// workspace filled in) and returns its output. token is in the command
// line of every process the snippet forks, so a leftover can be found.
func limitRun(t *testing.T, p *escPass, cfg Config, script, token string) (string, error) {
	t.Helper()
	if p.py == "" {
		t.Skip("no python3 on " + escPath)
	}
	ws := filepath.Join(p.base, "ws-"+token)
	p.escMkdir(t, ws, 0o755)
	cfg.Workspace = ws
	// A cache directory made for the caller (root, 0700) does not serve
	// the test user, as in the escape suite.
	cfg.NoCache = p.u.cred != nil
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := NewCmd(ctx, cfg, p.py, "-c", script, token)
	if err != nil {
		return "", err
	}
	c.Env = append(stripEnv(os.Environ()), "HOME="+p.home, "PATH="+escPath)
	if p.u.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: p.u.cred}
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err = c.Run()
	if left := procsWith(token); len(left) > 0 {
		t.Errorf("%d processes of the run outlived it: %v", len(left), left)
	}
	if left := runGroupsLeft(); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
	return out.String(), err
}

// procsWith lists the pids whose command line holds token.
func procsWith(token string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(b, []byte(token)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// runGroupsLeft lists this process's run groups that still exist.
func runGroupsLeft() []string {
	var left []string
	for _, c := range []string{"pids", "memory"} {
		if dir, _, err := cgroup.Parent(c); err == nil {
			m, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("sandtable-%d-*", os.Getpid())))
			left = append(left, m...)
		}
	}
	return left
}

// TestLimitProcesses forks 200 processes in a run bounded to 64, as root
// (a pids cgroup) and as the unprivileged user (RLIMIT_NPROC): the forks
// stop with EAGAIN below 64. The control, the same run with no bound,
// starts all 200.
func TestLimitProcesses(t *testing.T) {
	requireBwrap(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			p, restore := newEscPass(t, u)
			defer restore()
			out, err := limitRun(t, p, Config{Limits: Limits{Processes: 64}}, testkit.ForkScript, escToken("nproc"))
			n := testkit.ForksStarted(out)
			if err != nil || n < 0 || n >= 64 || !strings.Contains(out, "FORKFAIL errno=11") {
				t.Errorf("limit 64: %v, %d started: %s", err, n, out)
			}
			out, err = limitRun(t, p, Config{Limits: Limits{Processes: -1}}, testkit.ForkScript, escToken("nproc-control"))
			if n := testkit.ForksStarted(out); err != nil || n != 200 {
				t.Errorf("control, no limit: %v, %d started, want 200: %s", err, n, out)
			}
			t.Logf("%s: limit 64 stopped the forks at %d; without it 200 started", u.label, n)
		})
	}
}

// TestCommandRefusesRunLimits: Command's plain exec.Cmd cannot apply a
// run-time limit, so one set in Config.Limits is refused rather than
// dropped; the defaults leave Command working.
func TestCommandRefusesRunLimits(t *testing.T) {
	requireBwrap(t)
	_, _, ws := fixture(t)
	for _, l := range []Limits{{Processes: 64}, {Memory: 64 << 20}, {CPUTime: time.Second}} {
		c, err := Command(context.Background(), Config{Workspace: ws, Limits: l}, "true")
		if c != nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "use NewCmd") {
			t.Errorf("%+v: %v, %v; want ErrUnavailable naming NewCmd", l, c, err)
		}
	}
	c, err := Command(context.Background(), Config{Workspace: ws}, "true")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(); err != nil {
		t.Errorf("Command with the default limits: %v", err)
	}
	for _, l := range []Limits{{Processes: -2}, {Memory: -1}, {CPUTime: -time.Second}} {
		if _, err := NewCmd(context.Background(), Config{Workspace: ws, Limits: l}, "true"); !errors.Is(err, ErrBadLimit) {
			t.Errorf("%+v: %v, want ErrBadLimit", l, err)
		}
	}
}

// TestHiddenDirSizeBackstop: the tmpfs hiding a directory is read-only
// (hidden-dir-store in the escape suite); should that remount ever be
// lost, its size is one page. With hide-dir-read-only dropped, a 64 KiB
// write into a hidden directory stops with ENOSPC at 4 KiB; the control,
// hide-dir without --size as well, stores all of it.
func TestHiddenDirSizeBackstop(t *testing.T) {
	requireBwrap(t)
	a := &attempt{
		name: "hidden-dir-fill",
		setup: func(e *escEnv) {
			hid := e.mkdir(filepath.Join(e.out, "hid"))
			e.cfg.Hidden = []string{hid}
			e.vars["HID"] = hid
		},
		script: `head -c 65536 /dev/zero 2>&1 > "$HID/fill"; echo "STORED=$(stat -c %s "$HID/fill")"`,
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			p, restore := newEscPass(t, u)
			defer restore()
			p.each(t, []*attempt{a}, func(t *testing.T, e *escEnv) {
				hid := e.vars["HID"]
				r := e.run(dropRules("hide-dir-read-only=" + hid))
				if n := stored(r.out); !r.ran || n < 0 || n > 4096 || !strings.Contains(r.out, "No space left on device") {
					t.Errorf("without the read-only remount: %d bytes stored, want at most 4096 and ENOSPC: %s", n, r.out)
				}
				// A swap replaces every hide-dir step (the default hidden
				// directories' too), so every remount goes with it.
				ctl := dropRules("hide-dir-read-only")
				ctl.swap = map[string][]string{"hide-dir": {"--tmpfs", hid}}
				r = e.run(ctl)
				if n := stored(r.out); !r.ran || n != 65536 {
					t.Errorf("control, no size either: %d bytes stored, want 65536: %s", n, r.out)
				}
			})
		})
	}
}
